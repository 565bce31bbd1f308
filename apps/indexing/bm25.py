"""Okapi BM25 over a user's own rows, in PostgreSQL as it is (DESIGN §6).

The words are PostgreSQL's: the query's lexemes are those of ``to_tsvector('english')``,
as the rows' ``search_vector`` columns store them, with stop words dropped and stems
merged. A term's weight is its inverse document frequency among the rows of the
searcher's collection — the user's rows of the kinds searched, in the project when the
search is scoped to one — read from ``LexicalCollection`` / ``LexicalTerm``, which
triggers keep current (``lexical_triggers``); no other account's rows ever count.

Every row holding any of the query's terms is scored (OR semantics), from its postings
(``ChunkPosting``, ``ClaimPosting``: one row per lexeme of each row, kept by triggers):
the query's terms' postings of the user are read through one covering index and summed per
row, which is Okapi BM25 exactly. Nothing is cut by plan order or by a cap: the rows are
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

from django.db import connection

from .lexical_triggers import ZERO_UUID

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
    keys, key_params = _project_filter(collection)
    with connection.cursor() as cursor:
        cursor.execute(
            "WITH q AS (SELECT DISTINCT lexeme AS term "
            "FROM unnest(to_tsvector('english', %s))) "
            "SELECT (SELECT coalesce(sum(rows), 0) FROM indexing_lexical_collection "
            f"  WHERE user_id = %s AND kind = ANY(%s) {keys}), "
            "(SELECT coalesce(sum(tokens), 0) FROM indexing_lexical_collection "
            f"  WHERE user_id = %s AND kind = ANY(%s) {keys}), "
            "(SELECT coalesce(json_agg(json_build_array(q.term, f.rows)), '[]') FROM q "
            "  JOIN LATERAL (SELECT sum(t.rows) AS rows FROM indexing_lexical_term AS t "
            "  WHERE t.user_id = %s AND t.term = q.term "
            f"  AND t.kind = ANY(%s) {keys.replace('project_key', 't.project_key')}) AS f "
            "  ON f.rows > 0)",
            [
                query[:QUERY_MAX_CHARS],
                *([collection.user_id, list(collection.kinds), *key_params] * 3),
            ],
        )
        rows, tokens, frequencies = cursor.fetchone()
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


def collection_rows(collection: Collection) -> int:
    """How many rows ``collection`` holds."""
    keys, key_params = _project_filter(collection)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(sum(rows), 0) FROM indexing_lexical_collection "
            f"WHERE user_id = %s AND kind = ANY(%s) {keys}",
            [collection.user_id, list(collection.kinds), *key_params],
        )
        return int(cursor.fetchone()[0])


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


def postings_sql(
    scope_kind: str,
    collection: Collection,
    kinds: Sequence[int],
    terms: Terms,
    depth: int,
    scope_sql: str,
    scope_params: Sequence[object],
) -> tuple[str, list[Any]]:
    """``(id, score)`` of the ``depth`` best-scoring rows by the postings that are also in
    the scope ``scope_sql`` (which selects ``id``), in no order, then ``(NULL, how many
    rows the postings gave)``. Every posting of every query term of the collection is
    read through the covering index and summed per row: Okapi BM25 in one aggregate."""
    if scope_kind == "chunk":
        table, key = "indexing_chunk_posting", "chunk_id"
        where = "AND p.kind = ANY(%s::smallint[])"
        where_params: list[object] = [list(kinds)]
        if collection.project_id is not None:
            where += " AND p.project_id = %s"
            where_params.append(collection.project_id)
    else:
        table, key, where, where_params = "indexing_claim_posting", "claim_id", "", []
    sql = (
        "WITH q AS (SELECT * FROM unnest(%s::text[], %s::float8[]) AS q(term, idf)), "
        f"top AS (SELECT p.{key} AS id, "
        # float8 throughout: untyped parameters would make the sum numeric, several
        # times slower over tens of thousands of postings.
        "  sum(q.idf * p.tf * %s::float8 "
        "  / (p.tf + %s::float8 * (%s::float8 + %s::float8 * p.length))) AS value "
        f"  FROM q JOIN {table} AS p ON p.user_id = %s AND p.term = q.term {where} "
        f"  GROUP BY p.{key} ORDER BY value DESC, p.{key} LIMIT %s) "
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
        *where_params,
        depth,
        *scope_params,
    ]
    return sql, params
