"""Writing new chunks: the documents of one embedding batch have their chunks replaced in a
single transaction, a handful of statements for the whole batch."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from ..chunking import TextChunk
from ..embeddings import Matrix
from ..models import Chunk, Document, DocumentStatus
from .mentions import chunk_mentions_write
from .postings import postings_pack_if_due

WRITE_BATCH = 500


@dataclass
class Prepared:
    """A document read and chunked, waiting for its embeddings."""

    document: Document
    chunks: list[TextChunk]
    sha256: str
    size: int
    mtime: datetime
    doc_type: str
    note: str = ""
    dated_at: datetime | None = None


def chunks_replace(
    prepared: Sequence[Prepared], vectors: Matrix, model_name: str
) -> set[uuid.UUID]:
    """Swap each document's chunks for its new ones (``vectors`` row by row, in order),
    all in one transaction: a reader sees the old sets or the new ones, and a worker
    killed half-way leaves the old sets. Returns the ids of the documents written; one
    deleted while it was being read is left out."""
    offsets, offset = [], 0
    for item in prepared:
        offsets.append(offset)
        offset += len(item.chunks)
    ids = [item.document.pk for item in prepared]
    with transaction.atomic():
        # Locked in id order, so two workers never wait on each other in a cycle.
        alive = set(
            Document.objects.select_for_update()
            .filter(pk__in=ids)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        written = [(item, start) for item, start in zip(prepared, offsets, strict=True)
                   if item.document.pk in alive]  # fmt: skip
        Chunk.objects.filter(document_id__in=alive).delete()
        created = Chunk.objects.bulk_create(
            [
                _chunk(item, chunk, vectors[start + n], model_name)
                for item, start in written
                for n, chunk in enumerate(item.chunks)
            ],
            batch_size=WRITE_BATCH,
        )
        # A file's passages have no speaker: only chat turns open with one.
        chunk_mentions_write((chunk, None) for chunk in created)
        _mark_indexed([item for item, _ in written])
        for user_id in {item.document.source.project.owner_id for item, _ in written}:
            postings_pack_if_due(user_id=user_id)  # queued once this commits
    return alive


def _chunk(item: Prepared, chunk: TextChunk, vector: object, model_name: str) -> Chunk:
    project = item.document.source.project
    return Chunk(
        document_id=item.document.pk,
        user_id=project.owner_id,
        project_id=project.pk,
        chunk_index=chunk.index,
        text=chunk.text,
        start=chunk.start,
        end=chunk.end,
        embedding=vector,
        embedding_model=model_name,
        said_at=item.dated_at,
    )


def _mark_indexed(items: Sequence[Prepared]) -> None:
    """One ``UPDATE … FROM (VALUES …)`` for all the documents: Django's ``bulk_update``
    builds a CASE per field and row, which costs more than the indexing it records."""
    if not items:
        return
    now = timezone.now()
    rows = ", ".join(
        ["(%s::uuid, %s::bigint, %s::timestamptz, %s, %s, %s, %s::integer, %s::timestamptz)"]
        * len(items)
    )
    params: list[Any] = [DocumentStatus.INDEXED, now, now]
    for item in items:
        params += [item.document.pk, item.size, item.mtime, item.sha256, item.doc_type,
                   item.note, len(item.chunks), item.dated_at]  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {Document._meta.db_table} AS d SET status = %s, size = v.size, "  # noqa: S608 - table from the model, values as parameters
            "mtime = v.mtime, sha256 = v.sha256, doc_type = v.doc_type, error = v.error, "
            "chunk_count = v.chunk_count, dated_at = v.dated_at, indexed_at = %s, attempts = 0, "
            "updated_at = %s "
            f"FROM (VALUES {rows}) "
            "AS v(id, size, mtime, sha256, doc_type, error, chunk_count, dated_at) "
            "WHERE d.id = v.id",
            params,
        )
