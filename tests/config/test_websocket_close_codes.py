"""The README's close codes as a browser receives them, from the real ASGI server.

Channels' test communicator reports a close sent before the handshake as a close code,
but uvicorn turns it into an HTTP 403 with no code (issue 15); only a real server and a
real websocket client show which one the page gets.
"""

from __future__ import annotations

import asyncio

import pytest
import websockets
from django.test import Client

from apps.chat.services import conversation_create
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def site(site_port: int) -> str:
    return f"ws://127.0.0.1:{site_port}"


def close_code(url: str, cookie: str | None = None) -> int | None:
    async def connect() -> int | None:
        headers = {"Cookie": cookie} if cookie else {}
        async with websockets.connect(
            url, origin="http://127.0.0.1", additional_headers=headers
        ) as socket:
            try:
                await asyncio.wait_for(socket.recv(), timeout=10)
            except websockets.ConnectionClosed as closed:
                return closed.rcvd.code if closed.rcvd else None
        return None

    return asyncio.run(connect())


def test_each_refusal_reaches_the_page_as_its_close_code(site: str) -> None:
    owner, intruder = UserFactory(), UserFactory()
    conversation = conversation_create(user=owner)
    client = Client()
    client.force_login(intruder)
    cookie = f"sessionid={client.cookies['sessionid'].value}"

    assert close_code(f"{site}/ws/chat/{conversation.id}/") == 4401
    assert close_code(f"{site}/ws/events/") == 4401
    assert close_code(f"{site}/ws/chat/{conversation.id}/", cookie) == 4404
    assert close_code(f"{site}/ws/chat/not-a-uuid/", cookie) == 4404
    assert close_code(f"{site}/ws/nope/", cookie) == 4404
    assert close_code(f"{site}/ws/nope/") == 4404
