"""Okapi BM25 over a user's own rows, in PostgreSQL as it is (DESIGN §6).

The words are PostgreSQL's: the query's lexemes are those of ``to_tsvector('english')``,
as the rows' ``search_vector`` columns store them, with stop words dropped and stems
merged. A term's weight is its inverse document frequency among the rows of the
searcher's collection — the user's rows of the kinds searched, in the project when the
search is scoped to one — read from ``LexicalCollection`` / ``LexicalTerm``, which
triggers keep current (``lexical_triggers``); no other account's rows ever count.

Every row holding any of the query's terms is scored (OR semantics), from its postings
(``ChunkPosting``, ``ClaimPosting``: one row per lexeme of each row, kept by triggers):
the query's terms' postings of the user are read and summed per row, which is Okapi BM25
exactly. A chunk's postings are mostly read packed (``PostingPack``: a term's postings of a
user as one value, scored in NumPy by ``chunk_scores``), a claim's through one covering
index. Nothing is cut by plan order or by a cap: the rows are
ranked by score and only then checked against the rest of the search's scope. Rankings
equal those of a plain implementation (``tests/indexing/test_bm25.py``).
"""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import psycopg
from django.db import connection
from django.db.backends.utils import CursorWrapper

from ..lexical_triggers import ZERO_UUID

K1 = 1.2
B = 0.75
QUERY_MAX_CHARS = 1000


@dataclass(frozen=True)
class Collection:
    """Whose rows the statistics come from: one user's, of ``kinds`` (``claim``,
    ``document``, ``message``, ``window``), in ``project_id`` (and the user's claims)
    when given."""

    user_id: int
    kinds: tuple[str, ...]
    project_id: uuid.UUID | None = None


@dataclass(frozen=True)
class Terms:
    """The query's terms, rarest first, with their inverse document frequencies, and the
    collection's average row length in tokens."""

    terms: list[str]
    idfs: list[float]
    average_length: float


def idf(rows: int, frequency: int) -> float:
    """Lucene's BM25 inverse document frequency, never negative."""
    return math.log(1 + (rows - frequency + 0.5) / (frequency + 0.5))


def query_terms(query: str, collection: Collection) -> Terms:
    """The lexemes of ``query`` that occur in ``collection``, weighed by its statistics."""
    return each_query_terms(query, [collection])[0]


def each_query_terms(query: str, collections: Sequence[Collection]) -> list[Terms]:
    """``query_terms`` for each of ``collections`` (a hybrid search's turns and windows),
    in one statement: the query is parsed once and every collection's statistics read in
    the same round trip."""
    if not collections:
        return []
    parts: list[str] = []
    params: list[Any] = [query[:QUERY_MAX_CHARS]]
    for index, collection in enumerate(collections):
        keys, key_params = _project_filter(collection)
        parts.append(
            "SELECT %s, "  # noqa: S608 - fragments from this module, values as parameters
            "(SELECT coalesce(sum(rows), 0) FROM indexing_lexical_collection "
            f"  WHERE user_id = %s AND kind = ANY(%s) {keys}), "
            "(SELECT coalesce(sum(tokens), 0) FROM indexing_lexical_collection "
            f"  WHERE user_id = %s AND kind = ANY(%s) {keys}), "
            "(SELECT coalesce(json_agg(json_build_array(q.term, f.rows)), '[]') FROM q "
            "  JOIN LATERAL (SELECT sum(t.rows) AS rows FROM indexing_lexical_term AS t "
            "  WHERE t.user_id = %s AND t.term = q.term "
            f"  AND t.kind = ANY(%s) {keys.replace('project_key', 't.project_key')}) AS f "
            "  ON f.rows > 0)"
        )
        params += [index, *([collection.user_id, list(collection.kinds), *key_params] * 3)]
    with connection.cursor() as cursor:
        cursor.execute(
            "WITH q AS (SELECT DISTINCT lexeme AS term "
            "FROM unnest(to_tsvector('english', %s))) " + " UNION ALL ".join(parts),
            params,
        )
        found = {int(index): rest for index, *rest in cursor.fetchall()}
    return [_terms(*found[index]) for index in range(len(collections))]


def _terms(rows: int, tokens: int, frequencies: Any) -> Terms:
    if isinstance(frequencies, str):  # json arrives parsed or not, by driver setting
        frequencies = json.loads(frequencies)
    weighed = sorted(
        ((term, idf(int(rows), int(frequency))) for term, frequency in frequencies),
        key=lambda item: (-item[1], item[0]),
    )
    return Terms(
        [term for term, _ in weighed],
        [weight for _, weight in weighed],
        float(tokens) / float(rows) if rows else 1.0,
    )


def collection_rows_sql(collection: Collection) -> tuple[str, list[Any]]:
    """The statement counting ``collection``'s rows, to run alone or inside another."""
    keys, key_params = _project_filter(collection)
    return (
        "SELECT coalesce(sum(rows), 0) FROM indexing_lexical_collection "  # noqa: S608 - fragments from this module, values as parameters
        f"WHERE user_id = %s AND kind = ANY(%s) {keys}",
        [collection.user_id, list(collection.kinds), *key_params],
    )


def _project_filter(collection: Collection) -> tuple[str, list[Any]]:
    if collection.project_id is None:
        return "", []
    return "AND project_key = ANY(%s::uuid[])", [[str(collection.project_id), ZERO_UUID]]


POSTING_KINDS = {"document": 1, "message": 2, "window": 3}  # ChunkPosting.kind


def posting_kinds(kinds: Sequence[str], *, window: bool) -> list[int]:
    """The ``ChunkPosting`` kinds a ranking reads: of the chunks' own text, or windows."""
    if window:
        return [POSTING_KINDS["window"]]
    return [POSTING_KINDS[kind] for kind in kinds if kind in ("document", "message")]


def claim_postings_sql(
    collection: Collection,
    terms: Terms,
    depth: int,
    scope_sql: str,
    scope_params: Sequence[object],
) -> tuple[str, list[Any]]:
    """``(id, score)`` of the ``depth`` best-scoring claims by the postings that are also
    in the scope ``scope_sql`` (which selects ``id``), in no order, then ``(NULL, how many
    rows the postings gave)``. Every posting of every query term of the user's claims is
    read through the covering index and summed per row: Okapi BM25 in one aggregate (a
    user's claims are few enough that packing them, as ``chunk_scores`` reads chunks',
    would not pay)."""
    sql = (
        "WITH q AS (SELECT * FROM unnest(%s::text[], %s::float8[]) AS q(term, idf)), "  # noqa: S608 - fragments from this module, values as parameters
        "top AS (SELECT p.claim_id AS id, "
        # float8 throughout: untyped parameters would make the sum numeric, several
        # times slower over tens of thousands of postings.
        "  sum(q.idf * p.tf * %s::float8 "
        "  / (p.tf + %s::float8 * (%s::float8 + %s::float8 * p.length))) AS value "
        "  FROM q JOIN indexing_claim_posting AS p ON p.user_id = %s AND p.term = q.term "
        "  GROUP BY p.claim_id ORDER BY value DESC, p.claim_id LIMIT %s) "
        "SELECT top.id::text, top.value FROM top WHERE top.id = ANY(ARRAY("
        f"  SELECT s.id FROM ({scope_sql}) AS s WHERE s.id = ANY(ARRAY(SELECT id FROM top)))) "
        "UNION ALL SELECT NULL, count(*) FROM top"
    )
    params: list[Any] = [
        terms.terms,
        terms.idfs,
        K1 + 1,
        K1,
        1 - B,
        B / terms.average_length,
        collection.user_id,
        depth,
        *scope_params,
    ]
    return sql, params


@dataclass(frozen=True)
class Scores:
    """Every chunk holding any of the query's terms (``ids``) with its BM25 score."""

    ids: np.ndarray  # int64
    values: np.ndarray  # float64

    def best(self, depth: int) -> list[tuple[int, float]]:
        """The ``depth`` best ``(id, score)``, best first, ties by id (as the SQL ranking
        orders them)."""
        if depth <= 0 or not len(self.ids):
            return []
        if depth < len(self.values):
            cut = np.partition(self.values, len(self.values) - depth)[len(self.values) - depth]
            chosen = np.flatnonzero(self.values >= cut)
        else:
            chosen = np.arange(len(self.values))
        order = chosen[np.lexsort((self.ids[chosen], -self.values[chosen]))][:depth]
        return list(zip(self.ids[order].tolist(), self.values[order].tolist(), strict=True))


def chunk_scores(collection: Collection, kinds: Sequence[int], terms: Terms) -> Scores:
    """BM25 of every chunk of ``collection`` (postings of ``kinds``) holding any of the
    terms: each term's postings come packed (``PostingPack``) for the chunks the packs
    cover and are still current, and as posting rows for the rest (chunks written after
    the last packing, and those marked stale since), all in one statement, one snapshot;
    NumPy sums them per chunk: the scores summing the posting rows in SQL gives (up to
    the last bits of a float: the terms may be added in another order), several times
    faster on a common term's tens of thousands of postings."""
    return each_chunk_scores([Scoring(collection, tuple(kinds), terms)])[0]


@dataclass(frozen=True)
class Scoring:
    """One ``chunk_scores`` request: whose chunks, which of their postings, which terms."""

    collection: Collection
    kinds: tuple[int, ...]
    terms: Terms


def each_chunk_scores(requests: Sequence[Scoring]) -> list[Scores]:
    """``chunk_scores`` of each request (a hybrid search's turns and windows) in one
    statement, one snapshot: the pack state and the stale chunks are read once per
    user."""
    if not requests:
        return []
    users = list(dict.fromkeys(request.collection.user_id for request in requests))
    ctes: list[str] = []
    params: list[Any] = []
    for n, user in enumerate(users):
        ctes += [
            f"st{n} AS MATERIALIZED (SELECT coalesce((SELECT through FROM "  # noqa: S608 - fragments from this module, values as parameters
            "  indexing_posting_pack_state WHERE user_id = %s), 0) AS through)",
            # Every marked chunk is left out of the packs; only those not deleted have
            # postings to read (a document indexed again marks all its old chunks).
            f"stale{n} AS MATERIALIZED (SELECT "  # noqa: S608 - fragments from this module, values as parameters
            "  coalesce(array_agg(DISTINCT s.chunk_id), '{}') AS ids, "
            "  coalesce(array_agg(DISTINCT s.chunk_id) FILTER (WHERE NOT s.gone), '{}') AS live "
            "  FROM indexing_posting_stale AS s WHERE s.user_id = %s "
            f"  AND s.chunk_id <= (SELECT through FROM st{n}))",
        ]
        params += [user, user]
    parts: list[str] = []
    part_params: list[Any] = []
    for index, request in enumerate(requests):
        terms = "SELECT * FROM unnest(%s::text[], %s::float8[]) AS q(term, idf)"
        ctes.append(f"q{index} AS ({terms})")
        params += [request.terms.terms, request.terms.idfs]
        sql, sql_params = _scoring_parts(index, users.index(request.collection.user_id), request)
        parts.append(sql)
        part_params += sql_params
    with _binary_cursor() as cursor:
        cursor.execute(
            f"WITH {', '.join(ctes)} {' UNION ALL '.join(parts)}", [*params, *part_params]
        )
        rows = cursor.fetchall()
    return [
        _scores([row[1:] for row in rows if row[0] == index], request.terms)
        for index, request in enumerate(requests)
    ]


def _scoring_parts(index: int, user_index: int, request: Scoring) -> tuple[str, list[Any]]:
    """One request's rows, told apart by the second column: 0 a pack, 1 posting rows (as
    arrays), 2 the stale chunk ids (to drop from the packs). The range and list conditions
    on chunk_id keep each read of posting rows to its index range."""
    collection = request.collection
    project = ""
    project_params: list[Any] = []
    if collection.project_id is not None:
        project = "AND {t}.project_id = %s"
        project_params = [collection.project_id]
    user, kinds, q = collection.user_id, list(request.kinds), f"q{index}"
    through = f"(SELECT through FROM st{user_index})"  # noqa: S608 - fragments from this module, values as parameters
    stale = f"stale{user_index}"
    sql = (
        f"SELECT {index}, 0, q.idf, k.chunk_ids, k.tfs, k.lengths FROM {q} AS q "  # noqa: S608 - fragments from this module, values as parameters
        "  JOIN indexing_posting_pack AS k ON k.user_id = %s AND k.term = q.term "
        f"  AND k.kind = ANY(%s::smallint[]) {project.format(t='k')} "
        # Packs count only with their state (written together; never one without the
        # other, but a pack read with "through" 0 would be counted twice).
        f"  AND {through} > 0 "
        "UNION ALL "
        f"SELECT {index}, 1, q.idf, {_packed('p')} FROM {q} AS q "
        "  JOIN indexing_chunk_posting AS p "
        "  ON p.user_id = %s AND p.term = q.term AND p.kind = ANY(%s::smallint[]) "
        f"  {project.format(t='p')} AND p.chunk_id > {through} "
        "  GROUP BY q.term, q.idf "
        "UNION ALL "
        f"SELECT {index}, 1, q.idf, {_packed('p')} FROM {q} AS q "
        "  JOIN indexing_chunk_posting AS p "
        "  ON p.user_id = %s AND p.term = q.term AND p.kind = ANY(%s::smallint[]) "
        f"  {project.format(t='p')} AND p.chunk_id = ANY((SELECT live FROM {stale})::bigint[]) "
        "  GROUP BY q.term, q.idf "
        "UNION ALL "
        f"SELECT {index}, 2, NULL, array_send((SELECT ids FROM {stale})), NULL, NULL"
    )
    return sql, [*([user, kinds, *project_params] * 3)]


def _scores(rows: list[Any], terms: Terms) -> Scores:
    stale = next((_array(ids, ">i8") for part, _, ids, _, _ in rows if part == 2), _NONE)
    packed: list[tuple[np.ndarray, np.ndarray]] = []
    read_now: list[tuple[np.ndarray, np.ndarray]] = []
    for part, term_idf, chunk_ids, tfs, lengths in rows:
        if part == 2:
            continue
        read = _ints if part == 0 else _array
        chunk = read(chunk_ids, ">i8")
        tf = read(tfs, ">i2").astype(np.float64)
        length = read(lengths, ">i4").astype(np.float64)
        weight = term_idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / terms.average_length))
        (packed if part == 0 else read_now).append((chunk, weight))
    return _summed(packed, read_now, stale)


_NONE = np.empty(0, dtype=np.int64)


class _BinaryResults(psycopg.Cursor[Any]):
    """Results in PostgreSQL's binary format: a pack arrives as its bytes, where Django's
    cursors (text format) have the server write it as hex and the client read that back,
    twice the bytes (a query's postings are hundreds of kilobytes; measured on
    bench/bench_search.py's account: 0.3 instead of 0.7 ms of the client's time a search,
    and the server's share too). Never prepared on the server: each statement is planned
    for its own values, as Django's statements are."""

    def execute(self, query: Any, params: Any = None, **_: Any) -> _BinaryResults:  # type: ignore[override]
        super().execute(query, params, prepare=False, binary=True)
        return self


def _binary_cursor() -> CursorWrapper:
    """A ``_BinaryResults`` cursor wrapped as Django wraps its own (errors as Django's,
    statements logged where Django logs them)."""
    connection.ensure_connection()
    connection.validate_thread_sharing()
    cursor = _BinaryResults(connection.connection)
    if connection.queries_logged:
        return connection.make_debug_cursor(cursor)  # type: ignore[arg-type]
    return connection.make_cursor(cursor)  # type: ignore[arg-type]


def _packed(table: str) -> str:
    """Posting rows as three arrays in PostgreSQL's binary array format (``_array``): the
    aggregates of a group read its rows in the same order, so their entries line up.
    Faster to build and read than ``string_agg`` of ``int8send`` (measured: p95 19 against
    32 ms for a query's 75,000 postings)."""
    return (
        f"array_send(array_agg({table}.chunk_id)), "
        f"array_send(array_agg({table}.tf)), "
        f"array_send(array_agg({table}.length))"
    )


def _array(binary: bytes | memoryview | None, dtype: str) -> np.ndarray:
    """A one-dimensional array without NULLs as ``array_send`` writes it: a header (number
    of dimensions, a NULL flag, the element type, then each dimension's size and lower
    bound), then each element as its length and its big-endian value."""
    if not binary:
        return _NONE
    data = bytes(binary)
    dimensions = int.from_bytes(data[:4], "big")
    if dimensions == 0:
        return _NONE
    if int.from_bytes(data[4:8], "big"):  # posting columns are NOT NULL
        raise ValueError("a packed posting array holds NULLs")
    element = np.dtype([("length", ">i4"), ("value", dtype)])
    return np.frombuffer(data, dtype=element, offset=12 + 8 * dimensions)["value"].astype(np.int64)


def _ints(packed: bytes | memoryview | None, dtype: str) -> np.ndarray:
    """Big-endian integers as ``int8send`` and friends write them, as native int64."""
    if not packed:
        return _NONE
    return np.frombuffer(packed, dtype=dtype).astype(np.int64)


def _summed(
    packed: list[tuple[np.ndarray, np.ndarray]],
    read_now: list[tuple[np.ndarray, np.ndarray]],
    stale: np.ndarray,
) -> Scores:
    """Each chunk's weights summed: the packed ones of chunks not ``stale``, and those
    read from the posting rows. Chunk ids are dense in practice, so one ``bincount`` over
    their range does it and a stale chunk's packed sum is simply zeroed (comparing every
    pack with the stale list cost as much as the rest of the search); a range much wider
    than the postings falls back to sorting."""
    parts = [*packed, *read_now]
    chunk = np.concatenate([ids for ids, _ in parts]) if parts else _NONE
    if not len(chunk):
        return Scores(_NONE, np.empty(0))
    low = int(chunk.min())
    span = int(chunk.max()) - low + 1
    if span <= 8 * len(chunk) + 1_000_000:
        sums = _bincount(packed, low, span)
        if len(stale):
            inside = stale[(stale >= low) & (stale < low + span)]
            sums[inside - low] = 0.0
        sums += _bincount(read_now, low, span)
        # Every weight is positive (idf > 0, tf ≥ 1): a chunk is present where its sum is.
        present = np.flatnonzero(sums)
        return Scores(present + low, sums[present])
    current = [(ids[~np.isin(ids, stale)], w[~np.isin(ids, stale)]) for ids, w in packed]
    kept = [*current, *read_now]
    unique, inverse = np.unique(np.concatenate([ids for ids, _ in kept]), return_inverse=True)
    return Scores(unique, np.bincount(inverse, weights=np.concatenate([w for _, w in kept])))


def _bincount(parts: list[tuple[np.ndarray, np.ndarray]], low: int, span: int) -> np.ndarray:
    if not parts:
        return np.zeros(span)
    ids = np.concatenate([ids for ids, _ in parts])
    weights = np.concatenate([weights for _, weights in parts])
    return np.bincount(ids - low, weights=weights, minlength=span)
