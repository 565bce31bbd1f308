"""Writing a parsed export as Cairn conversations, idempotently, and the import's life.

A conversation is matched by its id at the vendor: importing the same export twice
creates nothing new, and a later export of a conversation that went on adds only the
messages Cairn does not have yet. Each conversation is written in its own transaction, so
the progress bar moves and a failure half-way keeps what was stored (a re-run adds the
rest). Claims are extracted only when the user asked, and then wait for review.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.db.models import Max, Q
from django.utils import timezone

from apps.chat.claim_extraction import rule_based_candidates
from apps.chat.models import ChatImport, Conversation, Message
from apps.claims.models import ClaimOrigin, ClaimStatus
from apps.core.models import Work, WorkState
from apps.core.storage import storage_writing, stored_files_delete
from apps.core.work import work_add, work_group_state
from apps.memory.dedupe import claim_add_or_reinforce
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


RUN_TASK = "apps.chat.exports.tasks.chat_import_run"
INDEX_TASK = "apps.chat.exports.tasks.chat_import_index"
FINISHED = (ChatImport.Status.DONE, ChatImport.Status.FAILED)


def chat_import_group(chat_import_id: object) -> str:
    """The ledger's group of an import's work, whose state is the import's status."""
    return f"import:{chat_import_id}"


@transaction.atomic
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
    chat_import = ChatImport(
        user=user,
        project=project,
        file_name=(upload.name or "export")[:200],
        extract_claims=extract_claims,
    )
    # The file first, under a key of its own; a disk that cannot take it is the ``file``
    # field's error, and a row (or the work it owes) that cannot be written takes its file
    # with it.
    with storage_writing():
        chat_import.file.save(upload.name or "export", upload, save=False)
    try:
        chat_import.save()
        if queue:
            # Owed in the same transaction as the row: an import is never left waiting
            # for a task the queue lost.
            work_add(
                task=RUN_TASK,
                args=[str(chat_import.pk), 0],
                key=f"{chat_import.pk}:0",
                group=chat_import_group(chat_import.pk),
                user_id=user.pk,
            )
    except BaseException:
        stored_files_delete([chat_import.file.name])
        raise
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


def chat_import_index_enqueue(*, chat_import_id: str, message_ids: list[str]) -> None:
    """Owe the indexing of these newly stored messages, in the transaction storing them."""
    work_add(
        task=INDEX_TASK,
        args=[str(chat_import_id), message_ids],
        key=f"{chat_import_id}:{message_ids[0]}",
        group=chat_import_group(chat_import_id),
    )


def chat_import_settle(*, chat_import_id: uuid.UUID | str) -> ChatImport | None:
    """Write what the import's row says from what is true: its work in the ledger and its
    messages. "Searchable" only when no work is owed, none failed and every message it
    stored is indexed; messages left unindexed with nothing owed for them (work lost
    before the ledger existed) are owed again here."""
    chat_import = ChatImport.objects.filter(pk=chat_import_id).first()
    if chat_import is None:
        return None
    group = chat_import_group(chat_import.pk)
    storing = work_group_state(group=group, task=RUN_TASK)
    indexing = work_group_state(group=group, task=INDEX_TASK)
    messages = Message.objects.filter(chat_import=chat_import)
    stored = messages.count()
    pending = [
        str(pk) for pk in messages.exclude(index_status="indexed").values_list("pk", flat=True)
    ]
    fields: dict[str, object] = {
        "messages_stored": stored,
        "messages_total": stored,
        "messages_indexed": stored - len(pending),
        "error": "",
        "finished_at": None,
    }
    if storing.open:
        started = chat_import.status != ChatImport.Status.QUEUED
        fields["status"] = ChatImport.Status.STORING if started else ChatImport.Status.QUEUED
    elif indexing.open:
        fields["status"] = ChatImport.Status.INDEXING
    elif storing.failed or indexing.failed:
        fields.update(
            status=ChatImport.Status.FAILED,
            error=storing.error or indexing.error,
            finished_at=timezone.now(),
        )
    elif storing.total == 0:
        return chat_import  # not run through the ledger (a command imports in its process)
    elif pending:
        with transaction.atomic():
            for first in range(0, len(pending), 256):
                chat_import_index_enqueue(
                    chat_import_id=str(chat_import.pk), message_ids=pending[first : first + 256]
                )
        fields["status"] = ChatImport.Status.INDEXING
    else:
        fields.update(status=ChatImport.Status.DONE, finished_at=timezone.now())
    ChatImport.objects.filter(pk=chat_import.pk).update(**fields)
    chat_import.refresh_from_db()
    return chat_import


def chat_imports_settle_unfinished(*, user: User) -> None:
    """Before a page or the API lists a user's imports: any still under way is read again
    from the ledger (a worker that died between finishing its work and writing the row
    leaves nothing stale)."""
    for pk in (
        ChatImport.objects.filter(user=user)
        .exclude(status__in=FINISHED)
        .values_list("pk", flat=True)
    ):
        chat_import_settle(chat_import_id=pk)


@transaction.atomic
def chat_import_retry(*, chat_import: ChatImport) -> ChatImport:
    """Run a failed import again: its failures are forgotten and its storing owed anew
    from the first conversation (what was stored is matched and skipped, what was not
    indexed is indexed). Only a failed import can be retried."""
    if chat_import.status != ChatImport.Status.FAILED:
        raise ValidationError({"status": "Only a failed import can be retried."})
    group = chat_import_group(chat_import.pk)
    Work.objects.filter(group=group, state=WorkState.FAILED).delete()
    ChatImport.objects.filter(pk=chat_import.pk).update(
        status=ChatImport.Status.QUEUED, error="", finished_at=None
    )
    work_add(
        task=RUN_TASK,
        args=[str(chat_import.pk), 0],
        key=f"{chat_import.pk}:0",
        group=group,
        user_id=chat_import.user_id,
    )
    chat_import.refresh_from_db()
    return chat_import


@transaction.atomic
def chat_import_delete(*, chat_import: ChatImport, with_conversations: bool = False) -> int:
    """Delete the import and its uploaded file, and stop its work (a task under way finds
    the import gone); with ``with_conversations``, the messages it stored too (with their
    chunks), and the conversations left empty. Returns the conversations deleted."""
    Work.objects.filter(group=chat_import_group(chat_import.pk), state=WorkState.DUE).delete()
    deleted = 0
    if with_conversations:
        conversations = set(chat_import.messages.values_list("conversation_id", flat=True))
        chat_import.messages.all().delete()
        # The conversations left empty, and the empty ones an export brings (a ChatGPT
        # conversation of nothing but hidden system messages): an imported conversation
        # without a message is nothing a person can read.
        brought = Q(pk__in=conversations)
        if chat_import.source:  # never the user's own (not imported) conversations
            brought |= Q(project=chat_import.project, external_source=chat_import.source)
        empty = Conversation.objects.filter(brought, user=chat_import.user, messages__isnull=True)
        _, counts = empty.delete()
        deleted = counts.get("chat.Conversation", 0)
    name = chat_import.file.name
    chat_import.delete()
    if name:
        transaction.on_commit(lambda: stored_files_delete([name]))
    return deleted


def chat_import_skip(*, chat_import_id: str, skipped: list[SkippedConversation]) -> None:
    """Count conversations that could not be stored, and list them while the list is
    short (one a task taken again skips again is listed once); the conversations
    done are counted by the task, skipped or not."""
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
