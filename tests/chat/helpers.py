"""Shared by the chat tests: a logged-in websocket to a conversation, and event helpers."""

from __future__ import annotations

from typing import Any

from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from apps.accounts.models import User
from config.asgi import application

ORIGIN = (b"origin", b"http://localhost")


async def connect(user: User, conversation_id: object) -> WebsocketCommunicator:
    client = Client()
    await sync_to_async(client.force_login)(user)
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    communicator = WebsocketCommunicator(
        application, f"/ws/chat/{conversation_id}/", headers=[ORIGIN, (b"cookie", cookie)]
    )
    connected, code = await communicator.connect()
    assert connected, f"refused with {code}"
    return communicator


async def events_until(
    communicator: WebsocketCommunicator, last: str, timeout: float = 30
) -> list[dict[str, Any]]:
    """Every event up to and including the first of type ``last``."""
    events = []
    while True:
        event = await communicator.receive_json_from(timeout=timeout)
        events.append(event)
        if event["type"] == last:
            return events


def of_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [event for event in events if event["type"] == kind]
