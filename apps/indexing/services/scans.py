"""A folder source's run: scan, then index what is new or changed."""

from __future__ import annotations

import uuid
from collections.abc import Callable

from django.db import transaction

from ..embeddings import EmbeddingProvider
from ..models import Source, SourceKind, SourceStatus
from .documents import DocumentDone, documents_index
from .folders import FolderUnavailable, ScanResult, folder_scan
from .progress import source_run_add, source_status_set
from .queue import enqueue_documents


def source_scan_run(
    *,
    source_id: uuid.UUID | str,
    inline: bool = False,
    provider: EmbeddingProvider | None = None,
    on_document_done: DocumentDone | None = None,
    on_scanned: Callable[[ScanResult], None] | None = None,
) -> ScanResult | None:
    """Scan the folder and index its new and changed files: in background tasks, or here
    and now when ``inline`` (the command line). None if the source is gone. A missing
    folder marks the source failed, deletes nothing and raises ``FolderUnavailable``."""
    source = Source.objects.select_related("project").filter(pk=source_id).first()
    if source is None or source.kind != SourceKind.FOLDER:
        return None
    source_status_set(source_id=source.pk, status=SourceStatus.SCANNING)
    try:
        result = folder_scan(source=source)
    except FolderUnavailable as error:
        source_status_set(source_id=source.pk, status=SourceStatus.FAILED, error=str(error))
        raise
    with transaction.atomic():
        Source.objects.filter(pk=source.pk).update(status=SourceStatus.IDLE)
        source_run_add(source_id=source.pk, count=len(result.to_index))
        if not inline:
            enqueue_documents(result.to_index)
    if on_scanned is not None:
        on_scanned(result)
    if inline and result.to_index:
        documents_index(
            document_ids=result.to_index, provider=provider, on_document_done=on_document_done
        )
    return result
