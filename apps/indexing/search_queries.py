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
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import QuerySet

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
def search_session(kinds: Sequence[str] = ("chunk",)) -> Iterator[None]:
    """A transaction with iterative HNSW scans (pgvector ≥ 0.8) and the ``ef_search`` the
    candidate ``kinds`` need (``ef_search_for``). Inside a caller's transaction the
    settings last until that one ends, or the next search session sets its own."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(SEARCH_SETTINGS_SQL, [str(ef_search_for(kinds))])
        yield


def ef_search_for(kinds: Sequence[str]) -> int:
    """HNSW candidate list size: ``CAIRN_SEARCH_EF_SEARCH`` (240) whenever chunks are
    searched; ``CAIRN_SEARCH_EF_SEARCH_CLAIMS`` (120) for claims alone. Measured with
    bench/bench_search.py's data (10,000 claims of 120,000; 100,000 chunks of 200,000):
    recall@10 of claims 0.975 at 120 and 0.993 at 240, in half the time (5 vs 9 ms a
    query, the chat turn's claim search); chunks need 240 for 0.95."""
    if set(kinds) <= {"claim"}:
        return int(settings.CAIRN_SEARCH_EF_SEARCH_CLAIMS)
    return int(settings.CAIRN_SEARCH_EF_SEARCH)


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
        chunks = chunks.filter(archived=False)
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
    """The ``limit`` nearest rows of each scope, merged by cosine similarity.

    Scopes that need the same ``ef_search`` share one statement; claims and chunks
    together take two, each with its own (claims at 240 cost as much as chunks)."""
    literal = "[" + ",".join(map(str, vector.tolist())) + "]"
    by_ef: dict[int, list[tuple[str, str, list[Any]]]] = {}
    for scope in scopes:
        by_ef.setdefault(ef_search_for([scope.kind]), []).append(
            (
                scope.kind,
                f"SELECT s.id, s.embedding <=> %s::vector AS value FROM ({scope.sql}) AS s "
                "ORDER BY value LIMIT %s",
                [literal, *scope.params, limit],
            )
        )
    found = []
    for ef_search, lists in by_ef.items():
        if len(by_ef) > 1:
            with connection.cursor() as cursor:
                cursor.execute("SELECT set_config('hnsw.ef_search', %s, true)", [str(ef_search)])
        found += [Candidate(c.kind, c.id, 1.0 - c.value) for c in _union(lists)]
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


def text_rankings_in_session(scopes: list[Scope], query: str, limit: int) -> TextRankings:
    """``text_rankings`` in a search session of its own (for ``run_beside``)."""
    with search_session([scope.kind for scope in scopes]):
        return text_rankings(scopes, query, limit)
