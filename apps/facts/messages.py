"""What facts reads of a chat message (DESIGN §2): a typed value, never the chat's models.

Facts sits below the chat: it stores what a user's message states and links each row back
to it (a lazy foreign key, the one backward link), but it never loads the chat's rows. The
chat hands it the message as a ``MessageToRead``, and registers a ``MessageSource`` when
it starts (``ChatConfig.ready``), as it registers indexing's ``TurnSource``, for what
facts asks of a conversation.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from apps.core.provided import Provided


@dataclass(frozen=True, kw_only=True)
class MessageToRead:
    """One chat message as facts reads it: what was said, by whom, when, and where."""

    message_id: uuid.UUID
    conversation_id: uuid.UUID
    project_id: uuid.UUID
    role: str
    content: str
    created_at: datetime


class MessageSource(Protocol):
    def conversation_message_ids(self, *, conversation_id: uuid.UUID) -> list[uuid.UUID]:
        """The ids of the conversation's messages, in conversation order."""


_message_source: Provided[MessageSource] = Provided(what="MessageSource", provider="apps.chat")
message_source_register = _message_source.register
message_source = _message_source.get
