"""A per-user event stream: background work (indexing progress, extracted memories) is
published to the group ``user_group_name(user_id)`` and relayed to every open page."""

from __future__ import annotations

import json
from typing import Any

from channels.generic.websocket import AsyncJsonWebsocketConsumer, AsyncWebsocketConsumer

from apps.core.validation import input_problem

from .sessions import CLOSE_SESSION_CHANGED, CLOSE_UNAUTHENTICATED, auth_group_name, session_tag

__all__ = ["CLOSE_NOT_FOUND", "CLOSE_SESSION_CHANGED", "CLOSE_UNAUTHENTICATED"]

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


class SessionBound(AsyncWebsocketConsumer):
    """A socket that ends with its session (apps/accounts/sessions.py): it joins its
    user's ``auth`` group once authenticated, and a ``session.ended`` message for its
    session (or for all of the user's) closes it with the code the message carries."""

    auth_group: str | None = None
    session: str | None = None

    async def join_session(self, user_id: object) -> None:
        session = self.scope.get("session")
        self.session = session_tag(session.session_key if session is not None else None)
        self.auth_group = auth_group_name(user_id)
        await self.channel_layer.group_add(self.auth_group, self.channel_name)

    async def leave_session(self) -> None:
        if self.auth_group:
            await self.channel_layer.group_discard(self.auth_group, self.channel_name)

    async def session_ended(self, event: dict[str, Any]) -> None:
        if event["session"] is None or event["session"] == self.session:
            await self.close(code=event["code"])


def user_group_name(user_id: object) -> str:
    return f"user.{user_id}"


class UserEventsConsumer(SessionBound, AsyncJsonWebsocketConsumer):
    group: str | None = None

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await refuse(self, CLOSE_UNAUTHENTICATED)
            return
        self.group = user_group_name(user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.join_session(user.pk)
        await self.accept()
        await self.send_json({"type": "hello", "user": user.email})

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)
        await self.leave_session()

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Frames pass the site's input guard like the chat's (a frame that was not JSON
        ended the consumer with an error); the only one it answers is a ping."""
        try:
            content = json.loads(text_data or "")
        except (ValueError, RecursionError):
            await self.send_json({"type": "error", "message": 'Send JSON, e.g. {"type": "ping"}.'})
            return
        problem = input_problem(content)
        if problem is not None:
            await self.send_json(
                {"type": "error", "message": f"{problem.field}: {problem.message}"}
            )
        elif isinstance(content, dict) and content.get("type") == "ping":
            await self.send_json({"type": "pong"})

    async def user_event(self, event: dict[str, Any]) -> None:
        await self.send_json(event["payload"])
