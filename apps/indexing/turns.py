"""What the chat hands indexing about a message (DESIGN §2): a typed value, never its models.
Search reads the turns it shows the same way (``TurnSaid``).

Indexing runs in the background, by message id (ids survive the queue and its retries), so
the chat registers a ``TurnSource`` when it starts (``ChatConfig.ready``) and indexing asks
it, at run time, for the ``TurnToIndex`` of an id. Indexing never imports the chat app.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from apps.core.provided import Provided


@dataclass(frozen=True, kw_only=True)
class TurnToIndex:
    """One chat message as indexing needs it: its text, who said it and when, the turns
    either side (``"assistant: <text>"``, for context), whose it is, and whether its
    conversation is archived (hidden from search)."""

    message_id: uuid.UUID
    text: str
    speaker: str
    created_at: datetime
    previous_turn: str | None
    following_turn: str | None
    user_id: int
    project_id: uuid.UUID
    archived: bool
    # The turn before, whose window gains this one as its following turn.
    previous_message_id: uuid.UUID | None = None


@dataclass(frozen=True, kw_only=True)
class TurnSaid:
    """One chat message as a search hit shows it: what was said, by whom, when, in which
    conversation (imported from ``external_source``, or Cairn's own when empty), and
    whether the turn finished (``status``): what search's evidence rule reads."""

    message_id: uuid.UUID
    conversation_id: uuid.UUID
    role: str
    content: str
    status: str
    created_at: datetime
    external_source: str


class TurnSource(Protocol):
    def turn(self, *, message_id: uuid.UUID | str) -> TurnToIndex | None:
        """The message as indexing needs it, or None when it is gone."""

    def lock(self, *, message_id: uuid.UUID | str) -> bool | None:
        """Lock the message (and its conversation) until the transaction ends, so neither is
        deleted or archived under the chunks being written; whether its conversation is
        archived now, or None when the message is gone."""

    def turns(self, *, message_ids: Sequence[uuid.UUID | str]) -> list[TurnToIndex]:
        """Several messages at once (those still there), in conversation order: a batch
        reads each conversation once instead of three queries a message."""

    def lock_many(self, *, message_ids: Sequence[uuid.UUID | str]) -> dict[uuid.UUID, bool]:
        """``lock`` for several messages: each one still there, with its archived flag."""

    def said(self, *, message_ids: Sequence[uuid.UUID | str]) -> dict[uuid.UUID, TurnSaid]:
        """The messages still there, by id, as a search hit shows them: one query for
        all of a search's hits."""


_turn_source: Provided[TurnSource] = Provided(what="TurnSource", provider="apps.chat")
turn_source_register = _turn_source.register
turn_source = _turn_source.get
