"""A per-user event stream: background work (indexing progress, extracted memories) is
published to the group ``user_group_name(user_id)`` and relayed to every open page."""

from __future__ import annotations

from typing import Any

from channels.generic.websocket import AsyncJsonWebsocketConsumer, AsyncWebsocketConsumer

CLOSE_UNAUTHENTICATED = 4401
CLOSE_NOT_FOUND = 4404


async def refuse(consumer: AsyncWebsocketConsumer, code: int) -> None:
    """Close with one of the README's codes (4401, 4404).

    A close sent before the handshake is accepted reaches the browser as an HTTP 403 with
    no code at all (uvicorn and daphne both do that), so the socket is accepted first:
    the page then reads ``event.code`` and knows a lost session from a missing chat.
    """
    await consumer.accept()
    await consumer.close(code=code)


class NotFoundConsumer(AsyncWebsocketConsumer):
    """Every websocket path no route matches (``/ws/nope/``, ``/ws/chat/not-a-uuid/``):
    closed with 4404 instead of the server's 500 for an unrouted handshake."""

    async def connect(self) -> None:
        await refuse(self, CLOSE_NOT_FOUND)


def user_group_name(user_id: object) -> str:
    return f"user.{user_id}"


class UserEventsConsumer(AsyncJsonWebsocketConsumer):
    group: str | None = None

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await refuse(self, CLOSE_UNAUTHENTICATED)
            return
        self.group = user_group_name(user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send_json({"type": "hello", "user": user.email})

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if isinstance(content, dict) and content.get("type") == "ping":
            await self.send_json({"type": "pong"})

    async def user_event(self, event: dict[str, Any]) -> None:
        await self.send_json(event["payload"])
