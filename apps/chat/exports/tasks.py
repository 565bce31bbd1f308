"""The background half of an import: store the conversations a batch per task, index their
messages a few hundred per task, and keep the ``ChatImport`` row's counters current.

A task stores at most ``CONVERSATIONS_PER_TASK`` conversations and queues the next batch,
so no task of a large export runs near the worker's timeout (a timed-out task would leave
the import half done), and a re-delivered task skips what its first run stored.
"""

from __future__ import annotations

import logging

from django.core.files import File
from django.utils import timezone

from apps.chat.models import ChatImport, Message
from apps.core.jobs import queue_task
from apps.indexing.services import messages_index

from .parse import ExportError, SkippedConversation, count_conversations, iter_export
from .store import (
    chat_import_finish_if_indexed,
    chat_import_progress,
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


def chat_import_run(chat_import_id: str, start: int = 0, *, inline: bool = False) -> None:
    """Store conversations ``start`` … of the export (all of them when ``inline``: the
    management command runs the whole import in its own process)."""
    chat_import = ChatImport.objects.filter(pk=chat_import_id).first()
    if chat_import is None or chat_import.status not in (
        ChatImport.Status.QUEUED,
        ChatImport.Status.STORING,
    ):
        return
    try:
        with chat_import.file.open("rb") as handle:
            if start == 0:
                total = count_conversations(handle)
                ChatImport.objects.filter(pk=chat_import.pk).update(
                    status=ChatImport.Status.STORING, conversations_total=total
                )
            following = _store(chat_import, handle, start, inline=inline)
    except (ExportError, OSError) as error:
        ChatImport.objects.filter(pk=chat_import.pk).update(
            status=ChatImport.Status.FAILED, error=str(error), finished_at=timezone.now()
        )
        return
    if following is not None:
        queue_task(
            "apps.chat.exports.tasks.chat_import_run",
            chat_import_id,
            following,
            task_name=f"import-{chat_import_id}-{following}",
        )
        return
    ChatImport.objects.filter(pk=chat_import.pk).update(status=ChatImport.Status.INDEXING)
    chat_import_finish_if_indexed(chat_import_id=chat_import_id)


def _store(chat_import: ChatImport, handle: File, start: int, *, inline: bool) -> int | None:
    """Store conversations ``start`` … of the export, read one at a time, until this task
    has stored ``CONVERSATIONS_PER_TASK`` (all of them when ``inline``; skipped ones cost
    no writes, so three million ``{}`` are one task): where the next task starts, or None."""
    chat_import_id = str(chat_import.pk)
    waiting: list[str] = []
    skipped: list[SkippedConversation] = []
    stored_here = 0
    for item in iter_export(handle, start=start):
        if not inline and stored_here >= CONVERSATIONS_PER_TASK:
            chat_import_skip(chat_import_id=chat_import_id, skipped=skipped)
            _index_queue(chat_import_id, waiting, inline=inline)
            return item.index
        if isinstance(item, SkippedConversation):
            skipped.append(item)
            if len(skipped) >= SKIPPED_PER_WRITE:
                chat_import_skip(chat_import_id=chat_import_id, skipped=skipped)
                skipped = []
            continue
        if not chat_import.source:
            chat_import.source = item.source
            ChatImport.objects.filter(pk=chat_import.pk).update(source=item.source)
        stored = conversation_store(
            chat_import=chat_import, source=item.source, exported=item.conversation
        )
        stored_here += 1
        chat_import_progress(
            chat_import_id=chat_import_id,
            conversations_done=1,
            conversations_created=int(stored.created),
            messages_stored=len(stored.new_message_ids),
        )
        waiting += [str(pk) for pk in stored.new_message_ids]
        if len(waiting) >= INDEX_MESSAGES_PER_TASK:
            _index_queue(chat_import_id, waiting, inline=inline)
            waiting = []
    chat_import_skip(chat_import_id=chat_import_id, skipped=skipped)
    _index_queue(chat_import_id, waiting, inline=inline)
    return None


def _index_queue(chat_import_id: str, message_ids: list[str], *, inline: bool) -> None:
    if not message_ids:
        return
    if inline:
        chat_import_index(chat_import_id, message_ids)
        return
    queue_task(
        "apps.chat.exports.tasks.chat_import_index",
        chat_import_id,
        message_ids,
        task_name=f"import-index-{chat_import_id}-{message_ids[0]}",
        group=f"import.{chat_import_id}",
    )


def imported_messages_index(message_ids: list[str]) -> None:
    """Index imported messages in one batch and mark them searchable (their conversation's
    ``import_status`` reads it)."""
    messages_index(message_ids=message_ids)
    Message.objects.filter(pk__in=message_ids).update(index_status="indexed")


def chat_import_index(chat_import_id: str, message_ids: list[str]) -> None:
    """Index new messages (of whole conversations) in one batch, then count them as
    searchable."""
    imported_messages_index(message_ids)
    chat_import_progress(chat_import_id=chat_import_id, messages_indexed=len(message_ids))
    chat_import_finish_if_indexed(chat_import_id=chat_import_id)
