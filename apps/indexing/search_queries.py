"""The ranked candidate lists hybrid search fuses: nearest by cosine (HNSW) and best by
full-text rank, for chunks and for claims, always filtered to one user.

Each function returns ``Candidate`` rows best first. They must run inside the transaction
``search_session`` opens, which turns pgvector's iterative index scans on: without them an
HNSW scan returns ``ef_search`` neighbours *before* the per-user filter, and a user whose
rows are a small share of the table gets fewer results than asked for, or none.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.postgres.search import SearchQuery, SearchRank
from django.db import connection, transaction
from django.db.models import F, Q, QuerySet
from pgvector.django import CosineDistance

from apps.claims.models import USABLE_STATUSES, Claim

from .embeddings import Vector
from .models import Chunk

if TYPE_CHECKING:
    from apps.accounts.models import User
    from apps.projects.models import Project

CHUNK_KINDS = ("document", "message")
QUERY_MAX_CHARS = 1000
ANY_TERMS_MAX = 8
_WORD = re.compile(r"\w+")

# Local to the transaction (set_config's third argument), so no other query of the
# connection is affected once it ends.
SEARCH_SETTINGS_SQL = (
    "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), "
    "set_config('hnsw.ef_search', %s, true)"
)


@dataclass(frozen=True)
class Candidate:
    kind: str  # "claim" or "chunk"
    id: int | uuid.UUID
    value: float  # cosine similarity, or full-text rank


@contextmanager
def search_session() -> Iterator[None]:
    """A transaction with iterative HNSW scans (pgvector ≥ 0.8) and ``ef_search`` from
    ``CAIRN_SEARCH_EF_SEARCH``. Inside a caller's transaction the settings last until that
    one ends, which only ever makes its later vector queries more complete."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(SEARCH_SETTINGS_SQL, [str(settings.CAIRN_SEARCH_EF_SEARCH)])
        yield


def user_chunks(
    *,
    user: User,
    project: Project | None,
    kinds: Sequence[str],
    exclude_message_ids: Sequence[uuid.UUID | str] = (),
) -> QuerySet[Chunk]:
    """The user's searchable chunks: of the wanted kinds, in the project if given, and of
    chat messages only while their conversation is not archived."""
    chunks = Chunk.objects.filter(user=user)
    if project is not None:
        chunks = chunks.filter(project=project)
    if "document" not in kinds:
        chunks = chunks.filter(document__isnull=True)
    if "message" not in kinds:
        chunks = chunks.filter(message__isnull=True)
    else:
        chunks = chunks.filter(Q(message__isnull=True) | Q(message__conversation__archived=False))
        if exclude_message_ids:
            chunks = chunks.exclude(message_id__in=list(exclude_message_ids))
    return chunks


def user_claims(*, user: User) -> QuerySet[Claim]:
    """Only active and contested claims are used in answers (DESIGN §4)."""
    return Claim.objects.filter(user=user, status__in=USABLE_STATUSES)


def nearest(
    chunks: QuerySet[Chunk] | None, claims: QuerySet[Claim] | None, vector: Vector, limit: int
) -> list[Candidate]:
    """The ``limit`` nearest chunks and claims each, merged by cosine similarity."""
    found: list[Candidate] = []
    for kind, rows in (("chunk", chunks), ("claim", claims)):
        if rows is None:
            continue
        ranked = (
            rows.exclude(embedding=None)
            .annotate(distance=CosineDistance("embedding", vector))
            .order_by("distance")
            .values_list("id", "distance")[:limit]
        )
        # relaxed_order may return neighbours slightly out of order; sorted below.
        found.extend(Candidate(kind, pk, 1.0 - float(distance)) for pk, distance in ranked)
    return sorted(found, key=lambda candidate: -candidate.value)


def best_text(
    chunks: QuerySet[Chunk] | None, claims: QuerySet[Claim] | None, query: str, limit: int
) -> list[Candidate]:
    """Best full-text matches by ``ts_rank``. ``websearch_to_tsquery`` first, so quotes,
    ``or`` and ``-word`` work as in a search box and every word must match; when that finds
    fewer than ``limit``, the rest is filled by rows matching any of the query's first
    few words, ranked after the full matches."""
    query = query[:QUERY_MAX_CHARS]
    found = _ranked_text(
        chunks, claims, SearchQuery(query, search_type="websearch", config="english"), limit
    )
    words = list(dict.fromkeys(word.lower() for word in _WORD.findall(query)))[:ANY_TERMS_MAX]
    if len(found) < limit and len(words) > 1:
        seen = {(candidate.kind, candidate.id) for candidate in found}
        any_word = SearchQuery(" or ".join(words), search_type="websearch", config="english")
        floor = min((candidate.value for candidate in found), default=1.0)
        extra = [
            c for c in _ranked_text(chunks, claims, any_word, limit) if (c.kind, c.id) not in seen
        ]
        # Scaled below the weakest full match, so partial matches never outrank one.
        top = max((c.value for c in extra), default=1.0) or 1.0
        found += [Candidate(c.kind, c.id, floor * 0.5 * c.value / top) for c in extra]
    return found


def _ranked_text(
    chunks: QuerySet[Chunk] | None,
    claims: QuerySet[Claim] | None,
    query: SearchQuery,
    limit: int,
) -> list[Candidate]:
    found: list[Candidate] = []
    for kind, rows in (("chunk", chunks), ("claim", claims)):
        if rows is None:
            continue
        ranked = (
            rows.filter(search_vector=query)
            .annotate(rank=SearchRank(F("search_vector"), query))
            .order_by("-rank")
            .values_list("id", "rank")[:limit]
        )
        found.extend(Candidate(kind, pk, float(rank)) for pk, rank in ranked)
    return sorted(found, key=lambda candidate: -candidate.value)
