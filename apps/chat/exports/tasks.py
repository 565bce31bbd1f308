"""The background half of an import: store the conversations a batch per task, index them a
conversation per task, and keep the ``ChatImport`` row's counters current throughout.

A task stores at most ``CONVERSATIONS_PER_TASK`` conversations and queues the next batch,
so no task of a large export runs near the worker's timeout (a timed-out task would leave
the import half done), and a re-delivered task skips what its first run stored.
"""

from __future__ import annotations

import logging

from django.utils import timezone

from apps.chat.models import ChatImport, Message
from apps.core.jobs import queue_task
from apps.indexing.services import messages_index

from .parse import ExportError, read_export
from .store import chat_import_finish_if_indexed, chat_import_progress, conversation_store

logger = logging.getLogger(__name__)
CONVERSATIONS_PER_TASK = 400


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
            parsed = read_export(handle.read())
    except (ExportError, OSError) as error:
        ChatImport.objects.filter(pk=chat_import.pk).update(
            status=ChatImport.Status.FAILED, error=str(error), finished_at=timezone.now()
        )
        return
    if start == 0:
        ChatImport.objects.filter(pk=chat_import.pk).update(
            status=ChatImport.Status.STORING,
            source=parsed.source,
            conversations_total=len(parsed.conversations),
        )
    end = len(parsed.conversations) if inline else start + CONVERSATIONS_PER_TASK
    for exported in parsed.conversations[start:end]:
        stored = conversation_store(
            chat_import=chat_import, source=parsed.source, exported=exported
        )
        chat_import_progress(
            chat_import_id=chat_import_id,
            conversations_done=1,
            conversations_created=int(stored.created),
            messages_stored=len(stored.new_message_ids),
        )
        if not stored.new_message_ids:
            continue
        if inline:
            chat_import_index(chat_import_id, stored.new_message_ids)
        else:
            queue_task(
                "apps.chat.exports.tasks.chat_import_index",
                chat_import_id,
                stored.new_message_ids,
                task_name=f"import-index-{stored.conversation.pk}",
                group=f"import.{chat_import_id}",
            )
    if end < len(parsed.conversations):
        queue_task(
            "apps.chat.exports.tasks.chat_import_run",
            chat_import_id,
            end,
            task_name=f"import-{chat_import_id}-{end}",
        )
        return
    ChatImport.objects.filter(pk=chat_import.pk).update(status=ChatImport.Status.INDEXING)
    chat_import_finish_if_indexed(chat_import_id=chat_import_id)


def imported_messages_index(message_ids: list[str]) -> None:
    """Index imported messages in one batch and mark them searchable (their conversation's
    ``import_status`` reads it)."""
    messages_index(message_ids=message_ids)
    Message.objects.filter(pk__in=message_ids).update(index_status="indexed")


def chat_import_index(chat_import_id: str, message_ids: list[str]) -> None:
    """Index one conversation's new messages in one batch, then count them as searchable."""
    imported_messages_index(message_ids)
    chat_import_progress(chat_import_id=chat_import_id, messages_indexed=len(message_ids))
    chat_import_finish_if_indexed(chat_import_id=chat_import_id)
