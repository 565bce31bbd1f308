from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.test import Client

from apps.accounts.consumers import CLOSE_UNAUTHENTICATED, user_group_name
from config.asgi import application
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

ORIGIN = (b"origin", b"http://localhost")


async def _session_cookie() -> tuple[object, bytes]:
    user = await sync_to_async(UserFactory)()
    client = Client()
    await sync_to_async(client.force_login)(user)
    return user, f"sessionid={client.cookies['sessionid'].value}".encode()


async def test_an_authenticated_websocket_connects_and_receives_its_events() -> None:
    user, cookie = await _session_cookie()
    communicator = WebsocketCommunicator(
        application, "/ws/events/", headers=[ORIGIN, (b"cookie", cookie)]
    )

    connected, _ = await communicator.connect()
    assert connected
    assert (await communicator.receive_json_from())["type"] == "hello"

    await get_channel_layer().group_send(
        user_group_name(user.pk), {"type": "user.event", "payload": {"type": "progress", "done": 3}}
    )
    assert await communicator.receive_json_from() == {"type": "progress", "done": 3}
    await communicator.disconnect()


async def test_an_anonymous_websocket_is_refused() -> None:
    communicator = WebsocketCommunicator(application, "/ws/events/", headers=[ORIGIN])

    assert await communicator.connect() == (True, None)
    assert await communicator.receive_output() == {
        "type": "websocket.close",
        "code": CLOSE_UNAUTHENTICATED,
    }


async def test_a_foreign_origin_is_refused() -> None:
    _, cookie = await _session_cookie()
    communicator = WebsocketCommunicator(
        application,
        "/ws/events/",
        headers=[(b"origin", b"http://evil.example"), (b"cookie", cookie)],
    )

    connected, _ = await communicator.connect()

    assert not connected


@pytest.mark.parametrize(
    ("frame", "says"),
    [
        ("not json", 'Send JSON, e.g. {"type": "ping"}.'),
        ("[" * 100_000, 'Send JSON, e.g. {"type": "ping"}.'),
        ('{"type": "ping", "x": "\\u0000"}', "x: Remove the NUL character"),
        ('{"type": "\\ud800"}', "type: Remove the unpaired surrogate"),
    ],
)
async def test_the_events_socket_guards_its_frames(frame: str, says: str) -> None:
    """Issue 29: a frame that was not JSON ended the events consumer with an error; its
    frames now pass the same input guard as the chat socket's."""
    _, cookie = await _session_cookie()
    communicator = WebsocketCommunicator(
        application, "/ws/events/", headers=[ORIGIN, (b"cookie", cookie)]
    )
    await communicator.connect()
    assert (await communicator.receive_json_from())["type"] == "hello"

    await communicator.send_to(text_data=frame)

    answer = await communicator.receive_json_from()
    assert answer["type"] == "error"
    assert answer["message"].startswith(says)
    await communicator.send_json_to({"type": "ping"})
    assert await communicator.receive_json_from() == {"type": "pong"}
    await communicator.disconnect()
