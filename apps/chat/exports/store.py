"""Writing a parsed export as Cairn conversations, idempotently, and the import's life.

A conversation is matched by its id at the vendor: importing the same export twice
creates nothing new, and a later export of a conversation that went on adds only the
messages Cairn does not have yet. Each conversation is written in its own transaction, so
the progress bar moves and a failure half-way keeps what was stored (a re-run adds the
rest). Claims are extracted only when the user asked, and then wait for review.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.db.models import F, Max
from django.utils import timezone

from apps.chat.claim_extraction import rule_based_candidates
from apps.chat.models import ChatImport, Conversation, Message
from apps.chat.pipeline.dedupe import claim_add_or_reinforce
from apps.claims.models import ClaimOrigin, ClaimStatus
from apps.core.jobs import queue_task
from apps.projects.models import Project

from .check import upload_check
from .parse import ExportConversation, SkippedConversation

if TYPE_CHECKING:
    from apps.accounts.models import User

logger = logging.getLogger(__name__)
SKIPPED_KEPT = 100  # skipped conversations listed on the import; all are counted


@dataclass(frozen=True)
class StoredConversation:
    conversation: Conversation
    created: bool
    new_message_ids: list[str]


def chat_import_create(
    *,
    user: User,
    project: Project,
    upload: UploadedFile,
    extract_claims: bool = False,
    queue: bool = True,
) -> ChatImport:
    """Keep the upload and queue its import (``queue=False``: the caller runs it); a file
    that is plainly no export is a ValidationError naming the ``file`` field, and nothing
    is kept."""
    if project.owner_id != user.pk:
        raise ValidationError({"project": "No such project."})
    limit = settings.CAIRN_IMPORT_MAX_BYTES
    if upload.size is not None and upload.size > limit:
        raise ValidationError({"file": f"Exports up to {limit // (1024 * 1024)} MB are accepted."})
    upload_check(upload)
    chat_import = ChatImport.objects.create(
        user=user,
        project=project,
        file=upload,
        file_name=(upload.name or "export")[:200],
        extract_claims=extract_claims,
    )
    if not queue:
        return chat_import
    transaction.on_commit(
        lambda: queue_task(
            "apps.chat.exports.tasks.chat_import_run",
            str(chat_import.pk),
            task_name=f"import-{chat_import.pk}",
        )
    )
    return chat_import


@transaction.atomic
def conversation_store(
    *, chat_import: ChatImport, source: str, exported: ExportConversation
) -> StoredConversation:
    existing = (
        Conversation.objects.select_for_update()
        .filter(user=chat_import.user, external_source=source, external_id=exported.external_id)
        .first()
    )
    created = existing is None
    conversation = existing or Conversation.objects.create(
        user=chat_import.user,
        project=chat_import.project,
        title=exported.title or "Imported conversation",
        external_source=source,
        external_id=exported.external_id,
    )
    known = set(conversation.messages.values_list("external_id", flat=True))
    fresh = [message for message in exported.messages if message.external_id not in known]
    start = (conversation.messages.aggregate(last=Max("order"))["last"] or 0) + 1
    messages = Message.objects.bulk_create(
        Message(
            conversation=conversation,
            role=message.role,
            content=message.text,
            order=start + offset,
            status=Message.Status.COMPLETE,
            index_status="pending",
            external_id=message.external_id,
            chat_import=chat_import,
        )
        for offset, message in enumerate(fresh)
    )
    # created_at is auto_now_add: the export's own times are restored afterwards.
    for message, original in zip(messages, fresh, strict=True):
        if original.created_at is not None:
            Message.objects.filter(pk=message.pk).update(created_at=original.created_at)
    if created:
        times = [m.created_at for m in exported.messages if m.created_at is not None]
        first = exported.created_at or min(times, default=None)
        last = max(times, default=None)
        if first or last:
            Conversation.objects.filter(pk=conversation.pk).update(
                created_at=first or last, updated_at=last or first
            )
    if chat_import.extract_claims:
        _suggest_claims(chat_import, messages)
    return StoredConversation(conversation, created, [str(message.pk) for message in messages])


def _suggest_claims(chat_import: ChatImport, messages: list[Message]) -> None:
    """What the user said about themselves, as pending claims for their review."""
    for message in messages:
        if message.role != Message.Role.USER:
            continue
        for candidate in rule_based_candidates(message.content):
            claim_add_or_reinforce(
                user=chat_import.user,
                statement=candidate.statement,
                claim_types=list(candidate.claim_types),
                possible_questions=list(candidate.possible_questions),
                origin=ClaimOrigin.IMPORTED,
                status=ClaimStatus.PENDING,
                source_message=message,
            )


def chat_import_progress(
    *,
    chat_import_id: str,
    conversations_done: int = 0,
    conversations_created: int = 0,
    messages_stored: int = 0,
    messages_indexed: int = 0,
) -> None:
    """Add to the import's counters (an UPDATE of its own, visible to the page at once)."""
    ChatImport.objects.filter(pk=chat_import_id).update(
        conversations_done=F("conversations_done") + conversations_done,
        conversations_created=F("conversations_created") + conversations_created,
        messages_stored=F("messages_stored") + messages_stored,
        messages_total=F("messages_total") + messages_stored,
        messages_indexed=F("messages_indexed") + messages_indexed,
    )


def chat_import_finish_if_indexed(*, chat_import_id: str) -> None:
    ChatImport.objects.filter(
        pk=chat_import_id,
        status=ChatImport.Status.INDEXING,
        messages_indexed__gte=F("messages_total"),
    ).update(status=ChatImport.Status.DONE, finished_at=timezone.now())


def chat_import_skip(*, chat_import_id: str, skipped: list[SkippedConversation]) -> None:
    """Count conversations that could not be stored, and list them while the list is
    short (one a re-delivered task skips again is listed once)."""
    if not skipped:
        return
    with transaction.atomic():
        chat_import = ChatImport.objects.select_for_update().get(pk=chat_import_id)
        listed = {record.get("index") for record in chat_import.skipped}
        fresh = [item for item in skipped if item.index not in listed]
        room = max(SKIPPED_KEPT - len(chat_import.skipped), 0)
        chat_import.skipped += [item.as_record() for item in fresh[:room]]
        chat_import.conversations_skipped += len(fresh)
        chat_import.save(update_fields=["skipped", "conversations_skipped"])
    chat_import_progress(chat_import_id=chat_import_id, conversations_done=len(fresh))
