"""Re-embedding stored rows after a model change (``manage.py reindex``): chunk texts and
claim statements are embedded again in place; nothing is extracted or chunked again."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.db import connection
from django.db.models import Q, QuerySet
from pgvector.django import HnswIndex

from apps.claims.models import Claim

from ..embeddings import EmbeddingProvider
from ..mentions import as_read
from ..models import Chunk
from .claims import claims_embed

BATCH = 256


@dataclass(frozen=True)
class Stale:
    chunks: int
    claims: int


def stale_chunks(*, provider: EmbeddingProvider, model: str | None = None) -> QuerySet[Chunk]:
    chunks = Chunk.objects.exclude(embedding_model=provider.name)
    return chunks.filter(embedding_model=model) if model else chunks


def stale_claims(*, provider: EmbeddingProvider, model: str | None = None) -> QuerySet[Claim]:
    if model:
        return Claim.objects.filter(embedding_model=model)
    return Claim.objects.filter(~Q(embedding_model=provider.name) | Q(embedding=None))


def stale_count(*, provider: EmbeddingProvider, model: str | None = None) -> Stale:
    return Stale(
        stale_chunks(provider=provider, model=model).count(),
        stale_claims(provider=provider, model=model).count(),
    )


def embeddings_refresh(
    *,
    provider: EmbeddingProvider,
    model: str | None = None,
    batch_size: int = BATCH,
    on_batch: Callable[[int], None] | None = None,
) -> Stale:
    """Re-embed every chunk and claim not embedded by ``provider`` (only those embedded by
    ``model`` if given). ``on_batch`` is told how many rows each batch did."""
    chunks_done = 0
    last_id = 0
    while True:
        batch = list(
            stale_chunks(provider=provider, model=model)
            .filter(id__gt=last_id)
            .order_by("id")
            .values_list("id", "text", "message_id", "start")[:batch_size]
        )
        if not batch:
            break
        # As indexing embedded them: a transcript turn without its speaker heading.
        vectors = provider.embed_documents(
            [
                as_read(text, opens_turn=message is not None and start == 0)
                for _, text, message, start in batch
            ]
        )
        Chunk.objects.bulk_update(
            [
                Chunk(id=pk, embedding=vector, embedding_model=provider.name)
                for (pk, *_), vector in zip(batch, vectors, strict=True)
            ],
            ["embedding", "embedding_model"],
        )
        chunks_done += len(batch)
        last_id = batch[-1][0]
        if on_batch:
            on_batch(len(batch))
    claims_done = 0
    ids = list(stale_claims(provider=provider, model=model).values_list("id", flat=True))
    for first in range(0, len(ids), batch_size):
        claims_done += claims_embed(claim_ids=ids[first : first + batch_size], provider=provider)
        if on_batch:
            on_batch(len(ids[first : first + batch_size]))
    return Stale(chunks_done, claims_done)


# The HNSW indexes of the vectors re-embedded in place, as the models declare them.
VECTOR_INDEXES = tuple(
    index.name
    for model in (Chunk, Claim)
    for index in model._meta.indexes
    if isinstance(index, HnswIndex)
)


def vector_indexes_rebuild() -> None:
    """Build the HNSW indexes again after their rows were re-embedded in place. An index
    whose rows were all updated keeps a graph that search walks far further: on
    bench/bench_search.py's data, 20,000 of 200,000 rows updated after the build took
    some queries from p95 5 to 25 ms, and a rebuild (32 s) brought them back to 12 ms
    with better recall. CONCURRENTLY keeps search and indexing running meanwhile; it
    cannot run inside a transaction, where the plain form (which holds writes back) is
    used."""
    concurrently = "" if connection.in_atomic_block else " CONCURRENTLY"
    with connection.cursor() as cursor:
        for index in VECTOR_INDEXES:
            cursor.execute(f"REINDEX INDEX{concurrently} {index}")
