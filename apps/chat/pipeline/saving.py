"""Saying "saved" only when it is (issue 26): what a failed save is called in words, the
failures a turn can end with, and the answer's save retried through a short database
outage (a restart takes 0.5–2 s)."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from django.db import DatabaseError, IntegrityError, InterfaceError, OperationalError

from .threads import in_worker_thread

if TYPE_CHECKING:
    from apps.chat.models import Message

    from .finish import Review
    from .stream import StreamOutcome
    from .types import PreparedTurn

logger = logging.getLogger(__name__)

# The tries after the first: about 15 s in all, long enough for a database restart.
ANSWER_SAVE_DELAYS: tuple[float, ...] = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)


def failure_in_words(error: BaseException) -> str:
    """Why a save failed, as the page and the API say it (never a stack trace)."""
    if isinstance(error, OperationalError | InterfaceError):
        return "the database could not be reached"
    if isinstance(error, IntegrityError):
        return "the database refused it"
    if isinstance(error, DatabaseError):
        return "the database failed"
    return "an internal error"


class NotSaved(Exception):  # a state the user is told
    """The user's message did not commit: nothing of the turn exists."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class FailedAfterSave(Exception):
    """The user's message committed, then preparing its answer failed."""

    def __init__(self, message: Message, reason: str) -> None:
        super().__init__(reason)
        self.message = message
        self.reason = reason


@dataclass
class PendingAnswer:
    """A streamed answer whose save failed, kept (by the socket that streamed it) under
    the id it will be saved with, so that "Save again" never re-generates it."""

    prepared: PreparedTurn
    outcome: StreamOutcome
    checked: Review
    id: uuid.UUID = field(default_factory=uuid.uuid4)


class AnswerNotSaved(Exception):
    def __init__(self, pending: PendingAnswer, reason: str) -> None:
        super().__init__(reason)
        self.pending = pending
        self.reason = reason


async def save_with_retries(
    save: Callable[[PendingAnswer], Message],
    pending: PendingAnswer,
    delays: tuple[float, ...] | None = None,
) -> Message:
    """``save(pending)`` in a worker thread, tried again after each of ``delays`` (by
    default ``ANSWER_SAVE_DELAYS``) while the database fails; ``AnswerNotSaved`` when every
    try failed. The save runs on even if the caller is cancelled (the socket closed): what
    streamed is not dropped."""
    waits = ANSWER_SAVE_DELAYS if delays is None else delays
    task = asyncio.ensure_future(_tries(save, pending, waits))
    return await asyncio.shield(task)


async def _tries(
    save: Callable[[PendingAnswer], Message], pending: PendingAnswer, delays: tuple[float, ...]
) -> Message:
    last: DatabaseError | None = None
    for attempt, delay in enumerate((0.0, *delays)):
        if delay:
            await asyncio.sleep(delay)
        try:
            return await in_worker_thread(save)(pending)
        except DatabaseError as error:  # connection lost, server restarting, disk full
            logger.warning("saving answer %s failed (try %d): %s", pending.id, attempt + 1, error)
            last = error
    assert last is not None
    raise AnswerNotSaved(pending, failure_in_words(last)) from last
