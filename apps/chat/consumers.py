"""The chat websocket, `/ws/chat/<conversation_id>/`: authenticate, validate, run one turn
at a time, relay its events. The protocol is in the README."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from channels.db import database_sync_to_async
from django.http import Http404

from apps.accounts.consumers import CLOSE_NOT_FOUND, CLOSE_UNAUTHENTICATED, SessionBound, refuse
from apps.accounts.models import User
from apps.chat.connections.selectors import conversation_answerer
from apps.chat.error_codes import ErrorCode
from apps.chat.events import (
    Ack,
    AnswerSaved,
    AnswerUnsaved,
    Pong,
    TurnError,
    TurnEvent,
    event_payload,
)
from apps.chat.llm.factory import provider_for_running_loop
from apps.chat.models import Conversation
from apps.chat.pipeline.saving import PendingAnswer, failure_in_words
from apps.chat.pipeline.types import MAX_MESSAGE_CHARS, TurnRequest
from apps.chat.selectors import conversation_get
from apps.chat.turn import answer_save_again, run_turn
from apps.chat.turn_input import InputRefused, SendMessageInput
from apps.core.validation import NESTED_TOO_DEEPLY, input_problem

logger = logging.getLogger(__name__)


class ChatConsumer(SessionBound):  # closed when its session ends (logout, password change)
    user: User
    conversation: Conversation
    turn: asyncio.Task[Any] | None = None
    closed = False
    acked = False  # whether this turn's user message was acknowledged (so: committed)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Answers whose save failed, by the id sent to the page: "Save again" saves them
        # from here, never generating them again. Gone with the socket.
        self.unsaved: dict[str, PendingAnswer] = {}

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
        # A running turn is not stopped: it finishes and saves its answer, which the page
        # replays from the database when it reconnects (issue 26). Only "cancel" stops it.
        self.closed = True
        await self.leave_session()

    async def emit(self, event: TurnEvent) -> None:
        """The edge: the typed event becomes the JSON the page reads."""
        if isinstance(event, Ack):
            self.acked = True
        elif isinstance(event, AnswerUnsaved):
            self.unsaved[str(event.pending.id)] = event.pending
        elif isinstance(event, AnswerSaved):
            self.unsaved.pop(str(event.pending_id), None)
        if self.closed:
            return
        try:
            await self.send(text_data=json.dumps(event_payload(event), default=str))
        except (OSError, RuntimeError) as error:
            # The socket went away under the send (uvicorn: ClientDisconnected, or "after
            # sending 'websocket.close'"): the turn goes on and saves; the page replays it.
            logger.info("chat socket gone mid-turn: %s", error)
            self.closed = True

    async def close(self, code: int | bool | None = None, reason: str | None = None) -> None:
        self.closed = True
        await super().close(code=code, reason=reason)

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
        elif kind == "save_answer":
            await self.save_again(content.get("id"))
        else:
            await self.emit(
                TurnError(
                    code=ErrorCode.INVALID,
                    message="Unknown event type; send 'message', 'cancel' or 'save_answer'.",
                )
            )

    async def save_again(self, pending_id: object) -> None:
        pending = self.unsaved.get(str(pending_id))
        if pending is None:
            await self.emit(
                TurnError(
                    code=ErrorCode.INVALID,
                    message="The server no longer holds that answer (the connection that "
                    "streamed it has closed): copy its text if you need it.",
                )
            )
            return
        if self.turn is not None and not self.turn.done():
            await self.emit(
                TurnError(code=ErrorCode.BUSY, message="Wait for the answer before saving another.")
            )
            return
        self.turn = asyncio.create_task(answer_save_again(pending=pending, emit=self.emit))

    async def start_turn(self, content: object) -> None:
        if self.turn is not None and not self.turn.done():
            await self.emit(
                TurnError(
                    code=ErrorCode.BUSY, message="Wait for the answer, or stop it, before sending."
                )
            )
            return
        try:
            request = SendMessageInput.read(content).request()
        except InputRefused as refusal:
            await self.emit(
                TurnError(code=ErrorCode.INVALID, message=refusal.message, field=refusal.field)
            )
            return
        self.acked = False
        self.turn = asyncio.create_task(self._run(request))

    async def _run(self, request: TurnRequest) -> None:
        try:
            # Read at each turn: the picker may have changed since the socket opened.
            answerer = await database_sync_to_async(conversation_answerer)(
                conversation=self.conversation
            )
            await run_turn(
                user=self.user,
                conversation=self.conversation,
                request=request,
                emit=self.emit,
                provider=provider_for_running_loop(answerer),
            )
        except Exception as error:
            logger.exception("chat turn failed")
            if self.acked:
                await self.emit(
                    TurnError(
                        code=ErrorCode.INTERNAL,
                        message="Something went wrong. Your message was saved; try again.",
                    )
                )
            else:  # the pipeline acknowledges a message as soon as it is committed
                await self.emit(
                    TurnError(
                        code=ErrorCode.NOT_SAVED,
                        message=f"Your message was not saved: {failure_in_words(error)}.",
                    )
                )
