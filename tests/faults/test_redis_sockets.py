"""Websockets over the Redis channel layer, served by a real uvicorn process and driven by
a real websocket client (issue 26): idle sockets stay open, and a Redis restart neither
ends them nor stops a chat turn."""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import websockets
from channels_redis.core import RedisChannelLayer
from django.conf import settings
from django.test import Client

from apps.accounts.consumers import user_group_name
from apps.accounts.models import User
from apps.chat.models import Conversation, Message
from apps.chat.services import conversation_create
from tests.factories import UserFactory
from tests.processes import running_site, start_redis

# A person reads for a while between turns; channels_redis's reads are 5 s long, and
# before the fix every idle socket died within 10 s. The idle must outlast the layer's
# read timeout with a blocking read in flight (checked against the settings in the
# test), and spans a websocket keep-alive ping (20 s in uvicorn and the client).
IDLE_SECONDS = 30
# The close codes after which the page gives up instead of reconnecting.
FINAL_CLOSE_CODES = (4401, 4404)


class Sockets:
    """A chat socket and the events socket of one logged-in user, on one site."""

    def __init__(self, port: int, cookie: str, conversation_id: str) -> None:
        self.base = f"ws://127.0.0.1:{port}"
        self.headers = {"Cookie": cookie, "Origin": f"http://127.0.0.1:{port}"}
        self.conversation_id = conversation_id
        self.chat: Any = None
        self.events: Any = None

    async def open(self) -> None:
        self.chat = await websockets.connect(
            f"{self.base}/ws/chat/{self.conversation_id}/", additional_headers=self.headers
        )
        self.events = await websockets.connect(
            f"{self.base}/ws/events/", additional_headers=self.headers
        )
        assert json.loads(await self.events.recv())["type"] == "hello"

    async def close(self) -> None:
        for socket in (self.chat, self.events):
            if socket is not None:
                await socket.close()


async def _next(socket: Any, kind: str, timeout: float = 60) -> dict[str, Any]:
    """The next event of type ``kind`` (earlier ones are skipped)."""
    while True:
        event = json.loads(await asyncio.wait_for(socket.recv(), timeout=timeout))
        if event["type"] == kind:
            return dict(event)
        if event["type"] == "error":
            raise AssertionError(f"the turn failed: {event}")


async def _turn(socket: Any, text: str) -> dict[str, Any]:
    await socket.send(json.dumps({"type": "message", "text": text}))
    await _next(socket, "ack")
    return (await _next(socket, "done"))["message"]  # type: ignore[no-any-return]


async def _pong(socket: Any) -> bool:
    await socket.send(json.dumps({"type": "ping"}))
    return (await _next(socket, "pong", timeout=10))["type"] == "pong"


def _logged_in() -> tuple[User, Conversation, str]:
    user = UserFactory()
    client = Client()
    client.force_login(user)
    return user, conversation_create(user=user), f"sessionid={client.cookies['sessionid'].value}"


def _answers(conversation: Conversation) -> list[str]:
    return list(
        Message.objects.filter(conversation=conversation, role="assistant")
        .order_by("order")
        .values_list("status", flat=True)
    )


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_idle_chat_and_events_sockets_still_answer_after_30_seconds(
    redis_url: str, tmp_path: Path
) -> None:
    layer_host = settings.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"][0]
    assert layer_host["socket_timeout"] + RedisChannelLayer.brpop_timeout < IDLE_SECONDS
    user, conversation, cookie = _logged_in()

    async def scenario(port: int) -> None:
        sockets = Sockets(port, cookie, str(conversation.id))
        await sockets.open()
        await asyncio.sleep(IDLE_SECONDS)  # the idle time is what is tested

        assert await _pong(sockets.chat)
        assert await _pong(sockets.events)
        assert (await _turn(sockets.chat, "We keep bees on the roof."))["status"] == "complete"
        # The events socket is still in its group: an event published now reaches it.
        layer = RedisChannelLayer(hosts=[redis_url])
        await layer.group_send(
            user_group_name(user.pk), {"type": "user.event", "payload": {"type": "probe"}}
        )
        assert (await _next(sockets.events, "probe", timeout=10))["type"] == "probe"
        await sockets.close()

    with running_site(lifespan=False, REDIS_URL=redis_url, log=tmp_path / "site.log") as port:
        asyncio.run(scenario(port))
    assert "TimeoutError" not in (tmp_path / "site.log").read_text()
    assert _answers(conversation) == ["complete"]


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_sockets_and_turns_ride_out_a_redis_restart(
    own_redis: tuple[int, list[subprocess.Popen[bytes]]], tmp_path: Path
) -> None:
    port, servers = own_redis
    url = f"redis://127.0.0.1:{port}/0"
    user, conversation, cookie = _logged_in()

    async def probe_until_delivered(events: Any) -> None:
        """Publish to the user's group until the events socket gets it: the site's layer
        has reconnected and joined the group again (Redis forgot it in the restart)."""
        layer = RedisChannelLayer(hosts=[url])
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            await layer.group_send(
                user_group_name(user.pk), {"type": "user.event", "payload": {"type": "probe"}}
            )
            try:
                if (await _next(events, "probe", timeout=1))["type"] == "probe":
                    return
            except TimeoutError:
                continue
        raise AssertionError("the events socket never got an event after Redis came back")

    async def scenario(site: int) -> None:
        sockets = Sockets(site, cookie, str(conversation.id))
        await sockets.open()
        assert (await _turn(sockets.chat, "Before: we keep bees."))["status"] == "complete"

        servers[0].terminate()
        servers[0].wait(timeout=10)
        # Redis is down: the chat's own turn needs only the database.
        during = await _turn(sockets.chat, "During: the hives face south.")
        assert during["status"] == "complete"
        assert await _pong(sockets.events)

        servers.append(start_redis(port))
        await probe_until_delivered(sockets.events)
        assert (await _turn(sockets.chat, "After: where do the hives face?"))[
            "status"
        ] == "complete"
        # A socket opened after the restart works too.
        fresh = Sockets(site, cookie, str(conversation.id))
        await fresh.open()
        assert await _pong(fresh.chat)
        await fresh.close()
        await sockets.close()

    with running_site(lifespan=False, REDIS_URL=url, log=tmp_path / "site.log") as site:
        asyncio.run(scenario(site))
    assert _answers(conversation) == ["complete", "complete", "complete"]
