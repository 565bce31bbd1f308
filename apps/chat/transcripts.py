"""Transcript import: a conversation from elsewhere, stored and indexed message by message."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone

from apps.core.work import work_add
from apps.projects.models import Project

from .models import Conversation, Message
from .services import conversation_create

if TYPE_CHECKING:
    from apps.accounts.models import User

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class TranscriptTurn:
    role: str
    content: str
    created_at: datetime | None = None


@transaction.atomic
def transcript_import(
    *, user: User, project: Project | None, title: str, turns: Sequence[TranscriptTurn]
) -> tuple[Conversation, list[uuid.UUID]]:
    """Create the conversation and its messages in order (one insert), keep the given
    times, and owe the indexing of every message. Facts and memories are
    not extracted: a transcript is a record, not the user talking to Cairn now."""
    conversation = conversation_create(
        user=user, project=project, title=title or "Imported conversation"
    )
    # Marked as imported, so that its ``import_status`` says when it is searchable.
    Conversation.objects.filter(pk=conversation.pk).update(external_source="transcript")
    now = timezone.now()
    messages = Message.objects.bulk_create(
        [
            Message(
                conversation=conversation,
                role=turn.role,
                content=turn.content,
                order=index + 1,
                status=Message.Status.COMPLETE,
                index_status="pending",
            )
            for index, turn in enumerate(turns)
        ]
    )
    # created_at is auto_now_add: restore the transcript's own times afterwards.
    for message, turn in zip(messages, turns, strict=True):
        if turn.created_at is not None:
            Message.objects.filter(pk=message.pk).update(created_at=turn.created_at)
    last = max((t.created_at for t in turns if t.created_at), default=now)
    Conversation.objects.filter(pk=conversation.pk).update(updated_at=max(last, now))
    ids = [message.pk for message in messages]
    # One task for the whole transcript, owed in this transaction: its messages are
    # embedded as one batch, then marked "indexed" (until then "pending").
    work_add(
        task="apps.chat.exports.tasks.imported_messages_index",
        args=[[str(message_id) for message_id in ids]],
        group=f"transcript:{conversation.pk}",
        user_id=user.pk,
    )
    return conversation, ids
