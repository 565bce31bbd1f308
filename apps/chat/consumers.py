"""The chat websocket, `/ws/chat/<conversation_id>/`: authenticate, validate, run one turn
at a time, relay its events. The protocol is in the README."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings
from django.core.cache import cache
from django.http import Http404

from apps.accounts.consumers import CLOSE_NOT_FOUND, CLOSE_UNAUTHENTICATED, SessionBound, refuse
from apps.accounts.models import User
from apps.chat.error_codes import ErrorCode
from apps.chat.events import Pong, TurnError, TurnEvent, event_payload
from apps.chat.llm.factory import provider_for_running_loop
from apps.chat.models import Conversation
from apps.chat.pipeline.prepare import attached_ids
from apps.chat.pipeline.turn import run_turn
from apps.chat.pipeline.types import MAX_MESSAGE_CHARS, TurnRejected, TurnRequest
from apps.chat.selectors import conversation_get
from apps.core.validation import NESTED_TOO_DEEPLY, input_problem

logger = logging.getLogger(__name__)


def rate_limit_allows(user_id: int) -> bool:
    """A fixed window per user (CAIRN_CHAT_RATE_LIMIT = "turns/seconds"), in the cache, so
    it holds across processes when the cache is Redis."""
    turns, seconds = (int(part) for part in settings.CAIRN_CHAT_RATE_LIMIT.split("/"))
    key = f"chat-rate:{user_id}"
    if cache.add(key, 1, timeout=seconds):
        return True
    try:
        return cache.incr(key) <= turns
    except ValueError:  # the window expired between add and incr
        cache.add(key, 1, timeout=seconds)
        return True


class ChatConsumer(SessionBound):  # closed when its session ends (logout, password change)
    user: User
    conversation: Conversation
    turn: asyncio.Task[Any] | None = None
    closed = False

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await refuse(self, CLOSE_UNAUTHENTICATED)
            return
        try:
            self.conversation = await database_sync_to_async(conversation_get)(
                user=user, conversation_id=self.scope["url_route"]["kwargs"]["conversation_id"]
            )
        except Http404:
            await refuse(self, CLOSE_NOT_FOUND)
            return
        self.user = user
        await self.join_session(user.pk)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        self.closed = True
        await self.leave_session()
        # The turn goes on saving what it has: cancelling it stores the partial answer.
        if self.turn is not None and not self.turn.done():
            self.turn.cancel()

    async def emit(self, event: TurnEvent) -> None:
        """The edge: the typed event becomes the JSON the page reads."""
        if not self.closed:
            await self.send(text_data=json.dumps(event_payload(event), default=str))

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if text_data is None:
            await self.emit(TurnError(code=ErrorCode.INVALID, message="Send JSON text."))
            return
        if len(text_data.encode("utf-8")) > MAX_MESSAGE_CHARS + 4096:
            await self.emit(
                TurnError(
                    code=ErrorCode.TOO_LARGE,
                    message=f"Messages are limited to {MAX_MESSAGE_CHARS // 1024} KB.",
                )
            )
            return
        try:
            content = json.loads(text_data)
        except json.JSONDecodeError:
            await self.emit(TurnError(code=ErrorCode.INVALID, message="Malformed JSON."))
            return
        except RecursionError:  # the C parser gives up near the interpreter's limit
            await self.emit(TurnError(code=ErrorCode.INVALID, message=NESTED_TOO_DEEPLY))
            return
        problem = input_problem(content)
        if problem is not None:  # the same door as HTTP: nothing reaches the database
            await self.emit(
                TurnError(code=ErrorCode.INVALID, message=f"{problem.field}: {problem.message}")
            )
            return
        kind = content.get("type") if isinstance(content, dict) else None
        if kind == "message":
            await self.start_turn(content)
        elif kind == "cancel":
            if self.turn is not None and not self.turn.done():
                self.turn.cancel()
        elif kind == "ping":
            await self.emit(Pong())
        else:
            await self.emit(
                TurnError(
                    code=ErrorCode.INVALID,
                    message="Unknown event type; send 'message' or 'cancel'.",
                )
            )

    async def start_turn(self, content: dict[str, Any]) -> None:
        if self.turn is not None and not self.turn.done():
            await self.emit(
                TurnError(
                    code=ErrorCode.BUSY, message="Wait for the answer, or stop it, before sending."
                )
            )
            return
        try:
            text = content.get("text")
            if not isinstance(text, str):
                raise TurnRejected("'text' must be a string.", ErrorCode.INVALID)
            topic = content.get("fact_topic")
            attached = content.get("attached_claim_ids") or []
            if not isinstance(attached, list):
                raise TurnRejected(
                    "'attached_claim_ids' must be a list of claim ids.", ErrorCode.INVALID
                )
            request = TurnRequest(
                text=text,
                attached_claim_ids=attached_ids(attached),
                fact_topic=topic if isinstance(topic, str) and topic.strip() else None,
            )
        except TurnRejected as rejection:
            await self.emit(TurnError(code=rejection.code, message=str(rejection)))
            return
        if not await database_sync_to_async(rate_limit_allows)(self.user.pk):
            await self.emit(
                TurnError(
                    code=ErrorCode.RATE_LIMITED, message="Too many messages at once; wait a moment."
                )
            )
            return
        self.turn = asyncio.create_task(self._run(request))

    async def _run(self, request: TurnRequest) -> None:
        try:
            await run_turn(
                user=self.user,
                conversation=self.conversation,
                request=request,
                emit=self.emit,
                provider=provider_for_running_loop(),
            )
        except Exception:
            logger.exception("chat turn failed")
            await self.emit(
                TurnError(
                    code=ErrorCode.INTERNAL,
                    message="Something went wrong. Your message was saved; try again.",
                )
            )
