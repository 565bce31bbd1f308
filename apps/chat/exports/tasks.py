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
from typing import Any

from django.db import transaction
from django.db.models import F, Value
from django.db.models.functions import Greatest

from apps.chat.models import ChatImport, Message
from apps.core.storage import stored_file_open
from apps.core.work import WorkFailed, durable, work_add
from apps.indexing.services import messages_index

from .parse import ExportError, read_export
from .store import (
    RUN_TASK,
    chat_import_group,
    chat_import_index_enqueue,
    chat_import_settle,
    conversation_store,
)

logger = logging.getLogger(__name__)
CONVERSATIONS_PER_TASK = 400
# New messages are indexed in tasks of at least this many (whole conversations; the last
# task of a batch takes what is left). The embedding model batches texts of like length, so
# one conversation a task (40 messages in the bench) embedded 15 % slower than the same
# messages together; a few hundred is as fast as thousands (bench/bench_import.py).
INDEX_MESSAGES_PER_TASK = 256


def _settle(args: list[Any]) -> None:
    chat_import_settle(chat_import_id=args[0])


@durable(max_attempts=3, on_finish=_settle)
def chat_import_run(chat_import_id: str, start: int = 0) -> str:
    """Store conversations ``start`` … of the export, a batch, and owe the next batch."""
    chat_import = ChatImport.objects.filter(pk=chat_import_id).first()
    if chat_import is None:
        return "import gone"
    try:
        with stored_file_open(chat_import.file.name) as handle:
            parsed = read_export(handle.read())
    except (ExportError, OSError) as error:
        raise WorkFailed(str(error)) from error
    if start == 0:
        ChatImport.objects.filter(pk=chat_import.pk).update(
            status=ChatImport.Status.STORING,
            source=parsed.source,
            conversations_total=len(parsed.conversations),
        )
    end = start + CONVERSATIONS_PER_TASK
    batch = list(parsed.conversations[start:end])
    position = start
    while batch:
        with transaction.atomic():
            new_ids: list[str] = []
            created = 0
            # Conversations until enough new messages for one indexing task, stored with
            # that task and the count of conversations done: all or nothing.
            while batch and len(new_ids) < INDEX_MESSAGES_PER_TASK:
                stored = conversation_store(
                    chat_import=chat_import, source=parsed.source, exported=batch.pop(0)
                )
                new_ids += stored.new_message_ids
                created += int(stored.created)
                position += 1
            if new_ids:
                chat_import_index_enqueue(chat_import_id=chat_import_id, message_ids=new_ids)
            ChatImport.objects.filter(pk=chat_import.pk).update(
                conversations_done=Greatest("conversations_done", Value(position)),
                conversations_created=F("conversations_created") + created,
            )
    if end < len(parsed.conversations):
        work_add(
            task=RUN_TASK,
            args=[chat_import_id, end],
            key=f"{chat_import_id}:{end}",
            group=chat_import_group(chat_import_id),
            user_id=chat_import.user_id,
        )
        return f"conversations {start}–{end} stored; the rest queued"
    return f"conversations {start}–{position} stored"


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
