"""The background half of an import: store every conversation, then index them a
conversation per task, keeping the ``ChatImport`` row's counters current throughout."""

from __future__ import annotations

import logging

from django.utils import timezone

from apps.chat.models import ChatImport, Message
from apps.core.jobs import queue_task
from apps.indexing.services import messages_index

from .parse import ExportError, read_export
from .store import chat_import_finish_if_indexed, chat_import_progress, conversation_store

logger = logging.getLogger(__name__)


def chat_import_run(chat_import_id: str, *, index_inline: bool = False) -> None:
    chat_import = ChatImport.objects.filter(pk=chat_import_id).first()
    if chat_import is None or chat_import.status not in (
        ChatImport.Status.QUEUED,
        ChatImport.Status.STORING,  # a worker died half-way: stored conversations are skipped
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
    ChatImport.objects.filter(pk=chat_import.pk).update(
        status=ChatImport.Status.STORING,
        source=parsed.source,
        conversations_total=len(parsed.conversations),
        conversations_done=0,
    )
    to_index: list[tuple[str, list[str]]] = []
    for exported in parsed.conversations:
        stored = conversation_store(
            chat_import=chat_import, source=parsed.source, exported=exported
        )
        chat_import_progress(
            chat_import_id=chat_import_id,
            conversations_done=1,
            conversations_created=int(stored.created),
            messages_stored=len(stored.new_message_ids),
        )
        if stored.new_message_ids:
            to_index.append((str(stored.conversation.pk), stored.new_message_ids))
    ChatImport.objects.filter(pk=chat_import.pk).update(status=ChatImport.Status.INDEXING)
    for conversation_id, message_ids in to_index:
        if index_inline:
            chat_import_index(chat_import_id, message_ids)
            continue
        queue_task(
            "apps.chat.exports.tasks.chat_import_index",
            chat_import_id,
            message_ids,
            task_name=f"import-index-{conversation_id}",
            group=f"import.{chat_import_id}",
        )
    chat_import_finish_if_indexed(chat_import_id=chat_import_id)


def chat_import_index(chat_import_id: str, message_ids: list[str]) -> None:
    """Index one conversation's new messages in one batch, then count them as searchable."""
    messages_index(message_ids=message_ids)
    Message.objects.filter(pk__in=message_ids).update(index_status="indexed")
    chat_import_progress(chat_import_id=chat_import_id, messages_indexed=len(message_ids))
    chat_import_finish_if_indexed(chat_import_id=chat_import_id)
