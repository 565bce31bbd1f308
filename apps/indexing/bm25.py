"""Okapi BM25 over a user's own rows, in PostgreSQL as it is (DESIGN §6).

The words are PostgreSQL's: the query's lexemes are those of ``to_tsvector('english')``,
as the rows' ``search_vector`` columns store them, with stop words dropped and stems
merged. A term's weight is its inverse document frequency among the rows of the
searcher's collection — the user's rows of the kinds searched, in the project when the
search is scoped to one — read from ``LexicalCollection`` / ``LexicalTerm``, which
triggers keep current (``lexical_triggers``); no other account's rows ever count.

Every row matching any of the query's terms is eligible (OR semantics). To avoid
scoring every row that holds a common word, rankings are pruned by score, exactly
(MaxScore): terms are taken rarest first, and only rows holding one of the rarer
*essential* terms are scored (on all terms); a row holding none of them scores at most
the sum of the other terms' bounds, ``idf · (k1 + 1)``, so once the ``limit``-th score
reaches that sum no unscored row can enter the ranking. Rankings equal those of a plain
implementation (``tests/indexing/test_bm25.py``).
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

    def bounds_after(self, count: int) -> float:
        """The highest score a row holding none of the first ``count`` terms can reach."""
        return sum(idf * (K1 + 1) for idf in self.idfs[count:])


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


def tsquery_any(terms: Sequence[str]) -> str:
    """A ``tsquery`` matching rows holding any of ``terms`` (lexemes, taken as they are)."""
    return " | ".join("'" + term.replace("\\", "\\\\").replace("'", "''") + "'" for term in terms)


def scored_sql(scope_sql: str, column: str, length: str) -> str:
    """``(id, BM25 score)`` of the rows of ``scope_sql`` (which selects ``id`` and
    ``column``) holding one of the essential terms, best first; ``length`` is the SQL of
    a row's length in tokens. Parameters: the scope's, then terms, idfs, average length,
    the essential terms' tsquery, limit. A row's term frequencies are read from its vector
    cut to the query's terms (``setweight`` marks them, ``ts_filter`` keeps them: both in
    C, far cheaper than unnesting every lexeme)."""
    return (
        "SELECT s.id, sum(q.idf * u.tf * %s / (u.tf + %s * l.norm)) AS value "
        f"FROM ({scope_sql}) AS s "
        f"CROSS JOIN LATERAL (SELECT 1 - %s + %s * {length} / %s AS norm) AS l "
        "CROSS JOIN LATERAL (SELECT lexeme, greatest(cardinality(positions), 1) AS tf "
        f"  FROM unnest(ts_filter(setweight(s.{column}, 'A', %s::text[]), '{{a}}'))) AS u "
        "JOIN unnest(%s::text[], %s::float8[]) AS q(term, idf) ON q.term = u.lexeme "
        f"WHERE s.{column} @@ %s::tsquery "
        "GROUP BY s.id ORDER BY value DESC, s.id LIMIT %s"
    )


def scored_params(
    scope_params: Sequence[object], terms: Terms, essential: int, limit: int
) -> list[object]:
    return [
        K1 + 1,
        K1,
        *scope_params,
        B,
        B,
        terms.average_length,
        terms.terms,
        terms.terms,
        terms.idfs,
        tsquery_any(terms.terms[:essential]),
        limit,
    ]
