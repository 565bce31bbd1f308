"""Indexing documents: extract → chunk → embed → replace the chunks in one transaction.

Documents are processed a few at a time and the chunks of several documents are embedded
in one call, so the model always sees full batches; while it embeds one batch, the last
one is written and the next read. Each document's outcome is recorded on
its row (indexed, skipped with the reason, failed with a readable error) and one bad file
never stops the others. Only an error that is not about a file (the database, the model)
escapes, for the task to retry.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial

from django.conf import settings
from django.db import DatabaseError, transaction

from apps.core.storage import StoredFileMissing

from ..chunking import chunk_document_text, document_window_tokens
from ..embeddings import EmbeddingProvider, Matrix, get_embedding_provider
from ..extract import ExtractionError, extract_text
from ..models import Chunk, Document, DocumentStatus, SourceKind
from .chunk_writes import Prepared, chunks_replace
from .files import UnsafePath, document_file_local, file_sha256
from .progress import ProgressBatch, source_document_finished

logger = logging.getLogger(__name__)

FLUSH_CHUNKS = 128
"""Embed once this many chunks are waiting. Since the model batches by word pieces
(``MiniLMOnnxProvider.batch_tokens``), calls of 128 passages embed as fast per passage as
one call for a thousand (bench/bench_embeddings.py); smaller flushes let the next batch be
read and the last one written sooner, and move the progress bar in smaller steps."""


@dataclass
class IndexRun:
    """What one call did, by document id; ``remaining`` were not reached before the
    deadline and must be queued again."""

    indexed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    remaining: list[str] = field(default_factory=list)
    chunks_written: int = 0

    @property
    def finished(self) -> set[str]:
        return {*self.indexed, *self.unchanged, *self.skipped, *self.failed}


DocumentDone = Callable[[Document], None]


def documents_index(
    *,
    document_ids: Sequence[uuid.UUID | str],
    force: bool = False,
    provider: EmbeddingProvider | None = None,
    deadline: float | None = None,
    on_document_done: DocumentDone | None = None,
    run: IndexRun | None = None,
) -> IndexRun:
    """Index these documents. ``force`` re-embeds even if the content hash is unchanged.
    ``deadline`` (a ``time.monotonic()`` value) stops taking new documents once passed.
    ``run`` collects the outcomes as they happen, so a caller still knows which documents
    were finished when an exception (the model, the database) cuts the call short."""
    provider = provider or get_embedding_provider()
    run = run if run is not None else IndexRun()
    documents = list(
        Document.objects.filter(pk__in=list(document_ids))
        .select_related("source__project")
        .order_by("path")
    )
    Document.objects.filter(pk__in=[d.pk for d in documents]).update(status=DocumentStatus.INDEXING)
    progress = ProgressBatch()
    batches = _read_in_batches(
        documents,
        provider=provider,
        force=force,
        deadline=deadline,
        run=run,
        progress=progress,
        done=on_document_done,
    )
    write = partial(
        _write, model_name=provider.name, run=run, progress=progress, done=on_document_done
    )
    # The model embeds each batch on a thread of its own (onnxruntime releases the GIL)
    # while this thread writes the batch before it and reads the next: one after another,
    # the model was idle while PostgreSQL inserted into the HNSW graph, a tenth of the
    # time with 200,000 chunks in the table. Reads and writes stay on this thread, with
    # its connection and its transaction.
    embedding: tuple[list[Prepared], Future[Matrix]] | None = None
    try:
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="cairn-embed") as model:
            for batch in batches:
                texts = [chunk.text for item in batch for chunk in item.chunks]
                queued = (batch, model.submit(provider.embed_documents, texts))
                if embedding is not None:
                    write(embedding[0], embedding[1].result())
                embedding = queued
            if embedding is not None:
                write(embedding[0], embedding[1].result())
    finally:
        progress.flush()
    return run


def _read_in_batches(
    documents: list[Document],
    *,
    provider: EmbeddingProvider,
    force: bool,
    deadline: float | None,
    run: IndexRun,
    progress: ProgressBatch,
    done: DocumentDone | None,
) -> Iterator[list[Prepared]]:
    """The documents read and chunked, in batches of about ``FLUSH_CHUNKS`` chunks. Those
    needing no embedding get their outcome here; past the deadline the rest go back to
    pending, listed in ``run.remaining``."""
    pending: list[Prepared] = []
    for position, document in enumerate(documents):
        # At least one document per call, so a continuation always makes progress.
        if position and deadline is not None and time.monotonic() > deadline:
            run.remaining = [str(later.pk) for later in documents[position:]]
            Document.objects.filter(pk__in=run.remaining).update(status=DocumentStatus.PENDING)
            break
        progress.started(source_id=document.source_id, path=document.path)
        prepared = _prepare(document, provider=provider, force=force, run=run)
        if prepared is None:
            _finished(document, progress, done)
            continue
        pending.append(prepared)
        if sum(len(item.chunks) for item in pending) >= FLUSH_CHUNKS:
            yield pending
            pending = []
    if pending:
        yield pending


def _prepare(
    document: Document, *, provider: EmbeddingProvider, force: bool, run: IndexRun
) -> Prepared | None:
    """Read and chunk one document; None when it needs no embedding (its outcome is then
    recorded already)."""
    doc_id = str(document.pk)
    try:
        with document_file_local(document) as local:
            sha256 = file_sha256(local.path)
            if not force and _is_current(document, sha256, provider.name):
                _record(
                    document,
                    DocumentStatus.INDEXED,
                    size=local.size,
                    mtime=local.mtime,
                    error=document.error,
                )
                run.unchanged.append(doc_id)
                return None
            extracted = extract_text(local.path)
    except ExtractionError as error:
        status = DocumentStatus.SKIPPED if error.skipped else DocumentStatus.FAILED
        _record_without_chunks(document, status, error.reason)
        (run.skipped if error.skipped else run.failed).append(doc_id)
        return None
    except (OSError, UnsafePath) as error:
        _record_without_chunks(document, DocumentStatus.FAILED, _file_error(error))
        run.failed.append(doc_id)
        return None
    except DatabaseError:
        raise
    except Exception as error:  # a bug in a parser must cost one file, not the source
        logger.exception("unexpected error reading document %s", doc_id)
        _record_without_chunks(document, DocumentStatus.FAILED, f"unexpected error: {error}")
        run.failed.append(doc_id)
        return None
    chunks = chunk_document_text(
        extracted.text, provider.token_offsets, max_tokens=document_window_tokens(provider)
    )
    if not chunks:
        _record_without_chunks(document, DocumentStatus.SKIPPED, "no text to index (empty)")
        run.skipped.append(doc_id)
        return None
    limit: int = settings.CAIRN_INDEX_MAX_CHUNKS
    note = ""
    if len(chunks) > limit:
        note = (
            f"only the first {limit:,} of {len(chunks):,} passages were indexed "
            f"(up to character {chunks[limit - 1].end:,})"
        )
        chunks = chunks[:limit]
    dated_at = extracted.written_at or (
        local.mtime if document.source.kind == SourceKind.FOLDER else None
    )
    return Prepared(
        document, chunks, sha256, local.size, local.mtime, extracted.kind.value, note, dated_at
    )


def _is_current(document: Document, sha256: str, model_name: str) -> bool:
    """Its chunks were made from exactly this content by this model. ``indexed_at`` is
    cleared whenever the stored content changes without being indexed (a replaced upload),
    a skip or a failure."""
    return (
        document.indexed_at is not None
        and document.sha256 == sha256
        and document.chunk_count > 0
        and not document.chunks.exclude(embedding_model=model_name).exists()
        and document.chunks.count() == document.chunk_count
    )


def _write(
    batch: list[Prepared],
    vectors: Matrix,
    *,
    model_name: str,
    run: IndexRun,
    progress: ProgressBatch,
    done: DocumentDone | None,
) -> None:
    written = chunks_replace(batch, vectors, model_name)
    for item in batch:
        if item.document.pk in written:
            run.indexed.append(str(item.document.pk))
            run.chunks_written += len(item.chunks)
        _finished(item.document, progress, done)


def _record(document: Document, status: str, **fields: object) -> None:
    Document.objects.filter(pk=document.pk).update(status=status, **fields)


def _record_without_chunks(document: Document, status: str, error: str) -> None:
    """Skipped or failed: whatever was indexed before no longer describes the file."""
    with transaction.atomic():
        Chunk.objects.filter(document=document).delete()
        _record(document, status, error=error, chunk_count=0, indexed_at=None)


def _finished(document: Document, progress: ProgressBatch, done: DocumentDone | None) -> None:
    progress.finished(source_id=document.source_id)
    if done is not None:
        done(document)


def _file_error(error: Exception) -> str:
    if isinstance(error, StoredFileMissing):
        return str(error)  # logged where it was found missing, with the storage's place
    if isinstance(error, FileNotFoundError):
        return "the file no longer exists"
    if isinstance(error, PermissionError):
        return "the file cannot be read (permission denied)"
    if isinstance(error, UnsafePath):
        return f"refused: {error}"
    return f"the file cannot be read ({error.__class__.__name__}: {error})"


UNFINISHED = (DocumentStatus.PENDING, DocumentStatus.INDEXING)


def documents_mark_failed(*, document_ids: Sequence[uuid.UUID | str], error: str) -> None:
    """Out of attempts: those of these documents not yet finished failed, and count as
    done in their source's run (those finished before the failure keep their outcome)."""
    documents = list(Document.objects.filter(pk__in=list(document_ids), status__in=UNFINISHED))
    for document in documents:
        _record_without_chunks(document, DocumentStatus.FAILED, error)
        source_document_finished(source_id=document.source_id)


def documents_mark_retrying(
    *, document_ids: Sequence[uuid.UUID | str], error: str, attempt: int
) -> None:
    Document.objects.filter(pk__in=list(document_ids), status__in=UNFINISHED).update(
        status=DocumentStatus.PENDING,
        attempts=attempt,
        error=f"attempt {attempt} failed ({error}); it will be retried",
    )
