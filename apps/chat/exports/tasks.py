"""The background half of an import, as work of the ledger (apps/core/work.py), grouped as
``import:<id>``: store the conversations a batch per task, index their messages a few
hundred per task. What the import's row says (storing, indexing, searchable, failed, the
counts) is settled from the ledger and the messages themselves (``chat_import_settle``),
never from a counter a task might not have reached.

Each group of conversations is stored in one transaction together with the work that
indexes its new messages, so a worker killed anywhere leaves either both or neither; the
storing task, taken again after its lease ran out, skips what is stored (conversations are
matched by their id at the vendor) and goes on.
"""

from __future__ import annotations

import logging
from typing import Any, BinaryIO, cast

from django.db import transaction
from django.db.models import F, Value
from django.db.models.functions import Greatest

from apps.chat.models import ChatImport, Message
from apps.core.storage import stored_file_open
from apps.core.work import WorkFailed, durable, work_add
from apps.indexing.services import messages_index

from .parse import (
    ExportError,
    ParsedConversation,
    SkippedConversation,
    count_conversations,
    iter_export,
)
from .store import (
    RUN_TASK,
    chat_import_group,
    chat_import_index_enqueue,
    chat_import_settle,
    chat_import_skip,
    conversation_store,
)

logger = logging.getLogger(__name__)
CONVERSATIONS_PER_TASK = 400
# New messages are indexed in tasks of at least this many (whole conversations; the last
# task of a batch takes what is left). The embedding model batches texts of like length, so
# one conversation a task (40 messages in the bench) embedded 15 % slower than the same
# messages together; a few hundred is as fast as thousands (bench/bench_import.py).
INDEX_MESSAGES_PER_TASK = 256
SKIPPED_PER_WRITE = 500  # skipped conversations recorded on the import in one write


def _settle(args: list[Any]) -> None:
    chat_import_settle(chat_import_id=args[0])


@durable(max_attempts=3, on_finish=_settle)
def chat_import_run(chat_import_id: str, start: int = 0) -> str:
    """Store conversations ``start`` … of the export, read one at a time, until this task
    has stored ``CONVERSATIONS_PER_TASK`` (skipped ones cost no writes, so three million
    ``{}`` are one task), and owe the next task from where it stopped."""
    chat_import = ChatImport.objects.filter(pk=chat_import_id).first()
    if chat_import is None:
        return "import gone"
    try:
        with stored_file_open(chat_import.file.name) as opened:
            handle = cast(BinaryIO, opened)
            if start == 0:
                total = count_conversations(handle)
                ChatImport.objects.filter(pk=chat_import.pk).update(
                    status=ChatImport.Status.STORING, conversations_total=total
                )
            following = _store(chat_import, handle, start)
    except (ExportError, OSError) as error:
        raise WorkFailed(str(error)) from error
    if following is None:
        return f"conversations from {start} on stored"
    work_add(
        task=RUN_TASK,
        args=[chat_import_id, following],
        key=f"{chat_import_id}:{following}",
        group=chat_import_group(chat_import_id),
        user_id=chat_import.user_id,
    )
    return f"conversations {start}–{following} stored; the rest owed"


def _store(chat_import: ChatImport, handle: BinaryIO, start: int) -> int | None:
    """Where the next task starts, or None at the end of the export. Conversations are
    written in groups, each in one transaction with the work that indexes its new
    messages, what was skipped and the count of conversations done: a worker killed
    anywhere leaves either all of a group or none of it."""
    items = iter_export(handle, start=start)
    stored_here = 0
    while True:
        new_ids: list[str] = []
        skipped: list[SkippedConversation] = []
        created = 0
        reached = None
        following = None
        with transaction.atomic():
            for item in items:
                if stored_here >= CONVERSATIONS_PER_TASK:
                    following = item.index
                    break
                reached = item.index + 1
                if isinstance(item, SkippedConversation):
                    skipped.append(item)
                else:
                    created += _store_one(chat_import, item, new_ids)
                    stored_here += 1
                if len(new_ids) >= INDEX_MESSAGES_PER_TASK or len(skipped) >= SKIPPED_PER_WRITE:
                    break
            else:
                following = -1  # the export ends here
            chat_import_skip(chat_import_id=str(chat_import.pk), skipped=skipped)
            if new_ids:
                chat_import_index_enqueue(chat_import_id=str(chat_import.pk), message_ids=new_ids)
            if reached is not None:
                ChatImport.objects.filter(pk=chat_import.pk).update(
                    conversations_done=Greatest("conversations_done", Value(reached)),
                    conversations_created=F("conversations_created") + created,
                )
        if following is not None:
            return None if following == -1 else following


def _store_one(chat_import: ChatImport, item: ParsedConversation, new_ids: list[str]) -> int:
    if not chat_import.source:
        chat_import.source = item.source
        ChatImport.objects.filter(pk=chat_import.pk).update(source=item.source)
    stored = conversation_store(
        chat_import=chat_import, source=item.source, exported=item.conversation
    )
    new_ids += stored.new_message_ids
    return int(stored.created)


@durable(max_attempts=5, on_finish=_settle)
def chat_import_index(chat_import_id: str, message_ids: list[str]) -> str:
    """Index new messages (of whole conversations) in one batch, then mark them searchable
    (what the import's counts and each conversation's ``import_status`` read)."""
    return f"{imported_messages_index(message_ids)} chunks"


@durable(max_attempts=5)
def imported_messages_index(message_ids: list[str]) -> int:
    """Index imported messages in one batch and mark them searchable (their conversation's
    ``import_status`` reads it)."""
    chunks = messages_index(message_ids=message_ids)
    Message.objects.filter(pk__in=message_ids).update(index_status="indexed")
    return chunks
