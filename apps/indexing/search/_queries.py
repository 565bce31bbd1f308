"""The ranked candidate lists hybrid search fuses: nearest by cosine (HNSW, or exact for
a small account) and best by Okapi BM25 (``bm25``), for chunks and for claims, always
filtered to one user.

Each function returns ``Candidate`` rows best first. They must run inside the transaction
``search_session`` opens, which turns pgvector's iterative index scans on: without them an
HNSW scan returns ``ef_search`` neighbours *before* the per-user filter, and a user whose
rows are a small share of the table gets fewer results than asked for, or none.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import numpy as np
from django.db import connection, transaction
from django.db.models import QuerySet

from apps.claims.models import USABLE_STATUSES, Claim

from ..embeddings import Vector
from ..models import Chunk
from ._bm25 import (
    Collection,
    Scores,
    Scoring,
    Terms,
    claim_postings_sql,
    each_chunk_scores,
    each_query_terms,
    posting_kinds,
)
from ._plans import VectorPlan, ef_search_for

if TYPE_CHECKING:
    from apps.accounts.models import User
    from apps.projects.models import Project

CHUNK_KINDS = ("document", "message")

# Local to the transaction (set_config's third argument), so no other query of the
# connection is affected once it ends.
# enable_seqscan off: every search query has an index to use (HNSW, the postings' key, the
# user's btree), and the planner's guess of how many rows match is often far off; a
# sequential scan hoping to meet enough matches early can read the whole table instead.
# enable_bitmapscan off and no parallel workers: checking a ranking's best rows against a
# project's scope by id, the planner ANDed a bitmap of the project's every row (100,000 on
# bench_search's account) with the ids' and launched two workers for it: 14 ms where
# looking the ids up by key takes 2 (a chat turn's evidence search checks 344 ids, twice).
# The searches' own reads are index scans either way.
SEARCH_SETTINGS_SQL = (
    "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), "
    "set_config('hnsw.ef_search', %s, true), set_config('enable_seqscan', 'off', true), "
    "set_config('enable_bitmapscan', 'off', true), "
    "set_config('max_parallel_workers_per_gather', '0', true)"
)


@dataclass(frozen=True)
class Candidate:
    kind: str  # "claim" or "chunk"
    id: int | uuid.UUID
    value: float  # cosine similarity, or BM25 score


@contextmanager
def search_session(kinds: Sequence[str] = ("chunk",)) -> Iterator[None]:
    """A transaction with iterative HNSW scans (pgvector ≥ 0.8) and the ``ef_search`` the
    candidate ``kinds`` need (``ef_search_for``). Inside a caller's transaction the
    settings last until that one ends, or the next search session sets its own."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(SEARCH_SETTINGS_SQL, [str(ef_search_for(kinds))])
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
    ``SELECT id, embedding …``; each ranking wraps it (PostgreSQL pulls the plain
    subquery up, so the HNSW index still serves the outer query, and BM25 checks its best
    rows against it by id)."""

    kind: str  # "chunk" or "claim"
    sql: str
    params: tuple[Any, ...]


def compile_scopes(chunks: QuerySet[Chunk] | None, claims: QuerySet[Claim] | None) -> list[Scope]:
    scopes = []
    for kind, rows in (("chunk", chunks), ("claim", claims)):
        if rows is not None:
            columns = rows.exclude(embedding=None).order_by().values("id", "embedding")
            sql, params = columns.query.sql_with_params()
            scopes.append(Scope(kind, sql, tuple(params)))
    return scopes


def compile_window_scope(messages: QuerySet[Chunk]) -> Scope:
    """The message chunks whose windows BM25 ranks (their postings of kind window)."""
    columns = messages.exclude(embedding=None).order_by().values("id")
    sql, params = columns.query.sql_with_params()
    return Scope("chunk", sql, tuple(params))


def chunk_scope(
    *,
    user_id: int,
    project_id: uuid.UUID | None,
    kinds: Sequence[str],
    exclude_message_ids: Sequence[uuid.UUID | str] = (),
    said_between: tuple[datetime, datetime] | None = None,
    windows: bool = False,
) -> Scope:
    """The scope ``compile_scopes`` (``compile_window_scope`` for ``windows``) makes of
    ``user_chunks`` — said within ``said_between`` when given — without building and
    compiling the queryset again: each shape of search (with a project or not, the kinds,
    how many turns left out, a period or not) is compiled once, with stand-in values, and
    then bound to each search's own. Compiling cost a millisecond of every search, before
    anything could run beside it (bench/bench_search.py)."""
    excluded = _padded(tuple(dict.fromkeys(uuid.UUID(str(pk)) for pk in exclude_message_ids)))
    sql, template = _chunk_template(
        project_id is not None, tuple(kinds), len(excluded), said_between is not None, windows
    )
    values: dict[Any, Any] = {_USER: user_id, _PROJECT: project_id}
    values.update(zip(_stand_ins(len(excluded)), excluded, strict=True))
    if said_between is not None:
        values.update({_START: said_between[0], _END: said_between[1]})
    return Scope("chunk", sql, tuple(values.get(param, param) for param in template))


def claim_scope(*, user_id: int) -> Scope:
    """``compile_scopes`` of ``user_claims``, compiled once (as ``chunk_scope``)."""
    sql, template = _claim_template()
    return Scope("claim", sql, tuple(user_id if param == _USER else param for param in template))


# Stand-in values no row has, each a parameter of its own in a compiled scope: a user, a
# project, the turns left out, a period's ends.
_USER = -(2**62) - 31
_PROJECT = uuid.UUID(int=(0x31 << 120) + 1)
_START = datetime(1, 1, 2, tzinfo=UTC)
_END = datetime(1, 1, 3, tzinfo=UTC)


def _padded(excluded: tuple[uuid.UUID, ...]) -> tuple[uuid.UUID, ...]:
    """The turns left out, padded to the next power of two with ids no message has: a
    chat leaves out its recent turns and the account's forgotten ones, a count that
    differs by conversation and account, and each count compiled a shape of its own
    (about 3 ms of CPU, ``_chunk_template``'s cache holding 256); padded, a few serve them
    all. The pads are distinct (a list's repeats are dropped when it is compiled) and of
    no version, where messages' ids are random (version 4)."""
    if not excluded:
        return excluded
    size = 1 << (len(excluded) - 1).bit_length()
    return excluded + tuple(uuid.UUID(int=n) for n in range(1, size - len(excluded) + 1))


def _stand_ins(count: int) -> list[uuid.UUID]:
    return [uuid.UUID(int=(0x31 << 120) + 2 + n) for n in range(count)]


@functools.lru_cache(maxsize=256)
def _chunk_template(
    project: bool, kinds: tuple[str, ...], excluded: int, dated: bool, windows: bool
) -> tuple[str, tuple[Any, ...]]:
    from apps.accounts.models import User
    from apps.projects.models import Project

    chunks = user_chunks(
        user=User(pk=_USER),
        project=Project(pk=_PROJECT) if project else None,
        kinds=kinds,
        exclude_message_ids=_stand_ins(excluded),
    )
    if dated:
        chunks = chunks.filter(said_at__gte=_START, said_at__lt=_END)
    scope = compile_window_scope(chunks) if windows else compile_scopes(chunks, None)[0]
    return scope.sql, scope.params


@functools.lru_cache(maxsize=1)
def _claim_template() -> tuple[str, tuple[Any, ...]]:
    from apps.accounts.models import User

    [scope] = compile_scopes(None, user_claims(user=User(pk=_USER)))
    return scope.sql, scope.params


def nearest(
    scopes: list[Scope], vector: Vector, limit: int, plan: VectorPlan | None = None
) -> list[Candidate]:
    """The ``limit`` nearest rows of each scope, merged by cosine similarity, each kind
    searched as ``plan`` says (by default, the HNSW index with ``ef_search_for``).

    Scopes that need the same ``ef_search`` share one statement; claims and chunks
    together take two, each with its own (claims at 240 cost as much as chunks)."""
    return nearest_each([(scopes, plan or VectorPlan())], vector, limit)[0]


def nearest_each(
    searches: Sequence[tuple[list[Scope], VectorPlan]], vector: Vector, limit: int
) -> list[list[Candidate]]:
    """``nearest`` of each ``(scopes, plan)``, in as few statements as their HNSW
    candidate lists allow (a hybrid search's chunks and the turns of the period it names:
    one)."""
    literal = vector_literal(vector)
    by_ef: dict[int, list[tuple[int, str, str, list[Any]]]] = {}
    for index, (scopes, plan) in enumerate(searches):
        for scope in scopes:
            distances = f"SELECT s.id, s.embedding <=> %s::vector AS value FROM ({scope.sql}) AS s"  # noqa: S608 - scopes and tables from code, values as parameters
            if scope.kind in plan.exact:
                # Every row compared: OFFSET 0 keeps the planner from ordering by the HNSW
                # index, and each row's distance is computed once (ordering by
                # "(embedding <=> q) + 0" computed it twice: a year's 10,000 turns took 8 %
                # longer, bench/bench_search.py's data).
                sql = (
                    f"SELECT r.id, r.value FROM ({distances} OFFSET 0) AS r "  # noqa: S608 - scopes and tables from code, values as parameters
                    "ORDER BY r.value LIMIT %s"
                )
            else:
                sql = f"{distances} ORDER BY value LIMIT %s"
            by_ef.setdefault(plan.ef_for(scope.kind), []).append(
                (index, scope.kind, sql, [literal, *scope.params, limit])
            )
    kinds = [scope.kind for scopes, _ in searches for scope in scopes]
    found: list[list[Candidate]] = [[] for _ in searches]
    for ef_search, lists in by_ef.items():
        if len(by_ef) > 1 or ef_search != ef_search_for(kinds):
            with connection.cursor() as cursor:
                cursor.execute("SELECT set_config('hnsw.ef_search', %s, true)", [str(ef_search)])
        for index, candidate in _union(lists):
            found[index].append(Candidate(candidate.kind, candidate.id, 1.0 - candidate.value))
    # relaxed_order may return neighbours slightly out of order: sorted here.
    return [sorted(candidates, key=lambda candidate: -candidate.value) for candidates in found]


def vector_literal(vector: Vector) -> str:
    """The vector as pgvector reads it, passed as text (the same statement through the
    ORM's vector field took a millisecond more: bench/bench_search.py's hybrid lines).

    A hybrid search sends its query's vector in four or five statements, from three
    threads: written once (``_literal``), and with the nine significant digits that give
    back each float4 exactly, where ``str`` of the float wrote up to seventeen (0.46 ms a
    vector against 0.20, and a third less text for the driver to quote and the server to
    read)."""
    return _literal(np.asarray(vector, dtype=np.float32).tobytes())


@functools.lru_cache(maxsize=32)
def _literal(raw: bytes) -> str:
    return "[" + ",".join(map("{:.9g}".format, np.frombuffer(raw, dtype=np.float32).tolist())) + "]"


def _union(lists: list[tuple[int, str, str, list[Any]]]) -> list[tuple[int, Candidate]]:
    """All the ranked ``(list index, kind, statement selecting (id, value), params)``
    lists in one statement: one round trip instead of one each."""
    if not lists:
        return []
    statements, params = [], []
    for index, kind, sql, list_params in lists:
        statements.append(
            f"(SELECT {index}, %s, ranked.id::text, ranked.value FROM ({sql}) AS ranked)"  # noqa: S608 - scopes and tables from code, values as parameters
        )
        params += [kind, *list_params]
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(statements), params)
        rows = cursor.fetchall()
    return [
        (index, Candidate(kind, int(pk) if kind == "chunk" else uuid.UUID(pk), float(value)))
        for index, kind, pk, value in rows
    ]


@dataclass(frozen=True)
class Lexical:
    """What one BM25 ranking searches: the rows of ``scopes``, by their ``column``
    (``search_vector``: each row alone; ``window_vector``: a turn with its neighbours),
    weighed by ``collection``'s statistics."""

    scopes: list[Scope]
    collection: Collection
    column: str = "search_vector"


def bm25_ranking(lexical: Lexical, query: str, limit: int) -> list[Candidate]:
    """The ``limit`` rows of ``lexical`` with the best BM25 scores for ``query``, best
    first, ties by id: every row holding any of the query's terms is scored, from the
    postings (``bm25.chunk_scores``, ``bm25.claim_postings_sql``)."""
    return bm25_rankings([lexical], query, limit)[0]


def bm25_rankings(lexicals: Sequence[Lexical], query: str, limit: int) -> list[list[Candidate]]:
    """``bm25_ranking`` of each of ``lexicals`` (a hybrid search's turns and windows), the
    same rankings in fewer round trips: the query's terms for every collection in one
    statement, every chunk scope's postings in one, their checks against the scopes in
    one."""
    searched = [index for index, lexical in enumerate(lexicals) if lexical.scopes]
    each_terms = each_query_terms(query, [lexicals[index].collection for index in searched])
    found: list[list[Candidate]] = [[] for _ in lexicals]
    chunk_lists: list[tuple[int, Scope, Scoring]] = []
    for index, terms in zip(searched, each_terms, strict=True):
        if not terms.terms:
            continue
        lexical = lexicals[index]
        kinds = posting_kinds(lexical.collection.kinds, window=lexical.column == "window_vector")
        for scope in lexical.scopes:
            if scope.kind != "chunk":
                found[index] += _claims_ranked_in_scope(scope, lexical, terms, limit)
            elif kinds:
                chunk_lists.append((index, scope, Scoring(lexical.collection, tuple(kinds), terms)))
    scores = each_chunk_scores([scoring for _, _, scoring in chunk_lists])
    ranked = _chunks_ranked_in_scopes([scope for _, scope, _ in chunk_lists], scores, limit)
    for (index, _, _), chunks in zip(chunk_lists, ranked, strict=True):
        found[index] += chunks
    # Ties by kind, then id: chunks' ids as numbers, claims' as text.
    return [
        sorted(candidates, key=lambda c: (-c.value, c.kind, str(c.id).zfill(36)))[:limit]
        for candidates in found
    ]


def _claims_ranked_in_scope(
    scope: Scope, lexical: Lexical, terms: Terms, limit: int
) -> list[Candidate]:
    """The best ``limit`` of the scope's claims. The postings know each row's owner, not
    the rest of the scope (a retracted claim): the best ``depth`` claims by postings are
    checked against the scope, and when too few of them are in it, a deeper list is
    read."""
    depth = 2 * limit + 20
    while True:
        sql, params = claim_postings_sql(lexical.collection, terms, depth, scope.sql, scope.params)
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        read = next(int(value) for pk, value in rows if pk is None)
        ranked = [
            Candidate(scope.kind, uuid.UUID(pk), value) for pk, value in rows if pk is not None
        ]
        if len(ranked) >= limit or read < depth:
            return ranked
        depth *= 8


def _chunks_ranked_in_scopes(
    scopes: Sequence[Scope], scores: Sequence[Scores], limit: int
) -> list[list[Candidate]]:
    """The best ``limit`` chunks of each scope by its ``scores`` (``chunk_scores``: packed
    postings summed in NumPy). The postings know each chunk's owner, project and kind, not
    the rest of the scope (an archived conversation, the turns a chat excludes): the best
    ``depth`` chunks are checked against the scope, all scopes in one statement, and a
    scope that kept too few of them is read deeper (which costs only another check)."""
    depths = [2 * limit + 20] * len(scopes)
    ranked: list[list[Candidate]] = [[] for _ in scopes]
    pending = list(range(len(scopes)))
    while pending:
        best = {index: scores[index].best(depths[index]) for index in pending}
        checked = [index for index in pending if best[index]]
        kept = in_scopes([(scopes[index], [pk for pk, _ in best[index]]) for index in checked])
        pending = []
        for index, in_scope in zip(checked, kept, strict=True):
            ranked[index] = [
                Candidate("chunk", pk, value) for pk, value in best[index] if pk in in_scope
            ]
            if len(ranked[index]) < limit and len(best[index]) >= depths[index]:
                depths[index] *= 8
                pending.append(index)
    return ranked


def in_scopes(checks: Sequence[tuple[Scope, list[int]]]) -> list[set[int]]:
    """Which of each list of chunk ids lie in its scope, in one statement."""
    if not checks:
        return []
    statements, params = [], []
    for index, (scope, ids) in enumerate(checks):
        statements.append(
            f"SELECT {index}, s.id FROM ({scope.sql}) AS s WHERE s.id = ANY(%s::bigint[])"  # noqa: S608 - scopes and tables from code, values as parameters
        )
        params += [*scope.params, ids_array(ids)]
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(statements), params)
        rows = cursor.fetchall()
    found: list[set[int]] = [set() for _ in checks]
    for index, pk in rows:
        found[index].add(pk)
    return found


def ids_array(ids: Iterable[object]) -> str:
    """Ids as one PostgreSQL array literal: psycopg's adapter builds a list in Python
    element by element, which cost more than the statement reading it."""
    return "{" + ",".join(map(str, ids)) + "}"
