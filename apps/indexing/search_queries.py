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
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q, QuerySet

from apps.claims.models import USABLE_STATUSES, Claim

from .embeddings import Vector
from .models import Chunk

if TYPE_CHECKING:
    from apps.accounts.models import User
    from apps.projects.models import Project

CHUNK_KINDS = ("document", "message")
QUERY_MAX_CHARS = 1000
ANY_TERMS_MAX = 8
RANKED_ROWS_MAX = 2000
ANY_RANKED_ROWS_MAX = 200  # partial matches only fill up, and are many
_WORD = re.compile(r"\w+")

# Local to the transaction (set_config's third argument), so no other query of the
# connection is affected once it ends.
# enable_seqscan off: every search query has an index to use (HNSW, GIN, the user's
# btree), and the planner's guess of how many rows a tsquery matches is often far off; a
# sequential scan hoping to meet enough matches early can read the whole table instead.
SEARCH_SETTINGS_SQL = (
    "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), "
    "set_config('hnsw.ef_search', %s, true), set_config('enable_seqscan', 'off', true)"
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


@dataclass(frozen=True)
class Scope:
    """The rows one kind of candidate comes from, compiled once per search to
    ``SELECT id, embedding, search_vector …``; each ranking wraps it (PostgreSQL pulls
    the plain subquery up, so the HNSW and GIN indexes still serve the outer query)."""

    kind: str  # "chunk" or "claim"
    sql: str
    params: tuple[Any, ...]


def compile_scopes(chunks: QuerySet[Chunk] | None, claims: QuerySet[Claim] | None) -> list[Scope]:
    scopes = []
    for kind, rows in (("chunk", chunks), ("claim", claims)):
        if rows is not None:
            columns = rows.exclude(embedding=None).order_by()
            sql, params = columns.values("id", "embedding", "search_vector").query.sql_with_params()
            scopes.append(Scope(kind, sql, tuple(params)))
    return scopes


def nearest(scopes: list[Scope], vector: Vector, limit: int) -> list[Candidate]:
    """The ``limit`` nearest rows of each scope, merged by cosine similarity."""
    literal = "[" + ",".join(map(str, vector.tolist())) + "]"
    lists = [
        (
            scope.kind,
            f"SELECT s.id, s.embedding <=> %s::vector AS value FROM ({scope.sql}) AS s "
            "ORDER BY value LIMIT %s",
            [literal, *scope.params, limit],
        )
        for scope in scopes
    ]
    found = [Candidate(c.kind, c.id, 1.0 - c.value) for c in _union(lists)]
    # relaxed_order may return neighbours slightly out of order: sorted here.
    return sorted(found, key=lambda candidate: -candidate.value)


def _union(lists: list[tuple[str, str, list[Any]]]) -> list[Candidate]:
    """All the ranked ``(kind, statement selecting (id, value), params)`` lists in one
    statement: one round trip instead of one each."""
    if not lists:
        return []
    statements, params = [], []
    for kind, sql, list_params in lists:
        statements.append(f"(SELECT %s, ranked.id::text, ranked.value FROM ({sql}) AS ranked)")
        params += [kind, *list_params]
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(statements), params)
        rows = cursor.fetchall()
    return [
        Candidate(kind, int(pk) if kind == "chunk" else uuid.UUID(pk), float(value))
        for kind, pk, value in rows
    ]


@dataclass(frozen=True)
class TextRankings:
    """``all_words``: rows matching the whole query as ``websearch_to_tsquery`` reads it
    (every word, quotes and ``-word`` honoured), best ``ts_rank`` first. ``any_words``:
    when those are fewer than asked for, other rows matching any of the query's first few
    words — a chat message rarely has all of a question's words, but a weaker signal."""

    all_words: list[Candidate]
    any_words: list[Candidate]

    def merged(self) -> list[Candidate]:
        """One list, partial matches after every full match."""
        return self.all_words + self.any_words


def text_rankings(scopes: list[Scope], query: str, limit: int) -> TextRankings:
    query = query[:QUERY_MAX_CHARS]
    all_words = _ranked_text(scopes, query, limit)
    words = list(dict.fromkeys(word.lower() for word in _WORD.findall(query)))[:ANY_TERMS_MAX]
    any_words: list[Candidate] = []
    if len(all_words) < limit and len(words) > 1:
        seen = {(candidate.kind, candidate.id) for candidate in all_words}
        found = _ranked_text(scopes, " or ".join(words), limit, ANY_RANKED_ROWS_MAX)
        any_words = [c for c in found if (c.kind, c.id) not in seen]
    return TextRankings(all_words, any_words)


def _ranked_text(
    scopes: list[Scope], query: str, limit: int, ranked_max: int = RANKED_ROWS_MAX
) -> list[Candidate]:
    """Rows matching ``websearch_to_tsquery(query)``, best ``ts_rank`` first.

    At most ``ranked_max`` matching rows of each kind are ranked: ranking reads every
    match's ``tsvector``, and words common enough to match more rows than that say little
    about which rows are best, while ranking them all would cost one full-text search a
    hundred milliseconds and more on a large account. (No ORDER BY inside: any
    ``ranked_max`` matches, found through the GIN index.)"""
    tsquery = "websearch_to_tsquery('english', %s)"
    lists = [
        (
            scope.kind,
            f"SELECT m.id, ts_rank(m.search_vector, {tsquery}) AS value FROM (SELECT s.id, "
            f"s.search_vector FROM ({scope.sql}) AS s WHERE s.search_vector @@ {tsquery} "
            "LIMIT %s) AS m ORDER BY value DESC LIMIT %s",
            [query, *scope.params, query, ranked_max, limit],
        )
        for scope in scopes
    ]
    return sorted(_union(lists), key=lambda candidate: -candidate.value)


_pool: ThreadPoolExecutor | None = None


def text_rankings_beside(scopes: list[Scope], query: str, limit: int) -> Callable[[], TextRankings]:
    """Start ``text_rankings`` on another thread and database connection, so that it runs
    while this one embeds the query and searches by vector; returns the function that
    waits for the result. Full-text search needs neither the embedding nor the vector
    results, and running them side by side takes the shorter one off a search's time.

    Inside a transaction the rankings run here, later, on this connection: another
    connection could not see rows the transaction has not committed.
    """
    threads = int(settings.CAIRN_SEARCH_THREADS)
    if threads <= 0 or connection.in_atomic_block:
        return lambda: _text_rankings_in_session(scopes, query, limit)
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="cairn-search")
    return _pool.submit(_text_rankings_on_own_connection, scopes, query, limit).result


def _text_rankings_in_session(scopes: list[Scope], query: str, limit: int) -> TextRankings:
    with search_session():
        return text_rankings(scopes, query, limit)


def _text_rankings_on_own_connection(scopes: list[Scope], query: str, limit: int) -> TextRankings:
    # Connected for this search only and closed after it, like a request's connection:
    # an idle one would outlive a database restart, or block dropping a test database.
    try:
        return _text_rankings_in_session(scopes, query, limit)
    finally:
        connection.close()
