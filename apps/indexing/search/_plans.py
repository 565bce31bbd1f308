"""How a search's vector lists are searched (``VectorPlan``): every row compared for an
account, a stretch of time or a set of passages small enough, else the HNSW index with the
candidate list the kinds need; the sizes that decide it are read in one round trip
(``search_plans``) once the query's embedding is there."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import connection

from apps.claims.models import Claim

from ..models import Chunk
from ._bm25 import Collection, collection_rows_sql

if TYPE_CHECKING:
    from ._queries import Scope


def ef_search_for(kinds: Sequence[str]) -> int:
    """HNSW candidate list size: ``CAIRN_SEARCH_EF_SEARCH`` (320) whenever chunks are
    searched; ``CAIRN_SEARCH_EF_SEARCH_CLAIMS`` (120) for claims alone. Measured with
    bench/bench_search.py's data (10,000 claims of 120,000; 100,000 chunks of 200,000):
    recall@10 of claims 0.975 at 120 and 0.993 at 240, in half the time (5 vs 9 ms a
    query, the chat turn's claim search); chunks need 320 for 0.95 with a margin (0.939
    at 240 on one build of the index, 0.962 at 320)."""
    if set(kinds) <= {"claim"}:
        return int(settings.CAIRN_SEARCH_EF_SEARCH_CLAIMS)
    return int(settings.CAIRN_SEARCH_EF_SEARCH)


@dataclass(frozen=True)
class VectorPlan:
    """How each kind of candidate is searched (``vector_plan``): ``exact`` kinds compare
    every row; ``ef_search`` overrides the HNSW candidate list size of a kind."""

    exact: tuple[str, ...] = ()
    ef_search: tuple[tuple[str, int], ...] = ()

    def ef_for(self, kind: str) -> int:
        return dict(self.ef_search).get(kind) or ef_search_for([kind])


def vector_plan(chunks: Collection | None, claims: Collection | None) -> VectorPlan:
    """Exact search for an account's kinds of at most ``CAIRN_SEARCH_EXACT_ROWS`` rows, a
    longer HNSW candidate list for those under ``CAIRN_SEARCH_SMALL_SHARE`` of their
    table; row counts from the BM25 statistics, table sizes from the planner's (-1 before
    a table was first analysed), all read in one round trip."""
    return search_plans(chunks, claims).vectors


@dataclass(frozen=True)
class DatedScope:
    """The rows of ``scope`` said ``said_between`` (the user's chunks of a named period)."""

    scope: Scope
    user_id: int
    said_between: tuple[datetime, datetime]


@dataclass(frozen=True)
class Plans:
    """How a search's vector lists are searched (``search_plans``): its chunks and claims
    (``vector_plan``), and the rows of the period it names (``period_plan``), if any;
    ``chunks``, how many passages the account has of the kinds searched (which decided
    their plan)."""

    vectors: VectorPlan
    period: VectorPlan | None = None
    chunks: int = 0


def search_plans(
    chunks: Collection | None, claims: Collection | None, period: DatedScope | None = None
) -> Plans:
    """``vector_plan`` and ``period_plan`` in one round trip (a hybrid search asks for
    both once it has the query's embedding; each was a round trip of its own, on its own
    thread)."""
    wanted = [
        (kind, collection, table)
        for kind, collection, table in (
            ("chunk", chunks, str(Chunk._meta.db_table)),
            ("claim", claims, str(Claim._meta.db_table)),
        )
        if collection is not None
    ]
    if not wanted and period is None:
        return Plans(VectorPlan())
    parts: list[str] = []
    params: list[Any] = []
    for _, collection, table in wanted:
        count_sql, count_params = collection_rows_sql(collection)
        parts += [f"({count_sql})", "(SELECT reltuples FROM pg_class WHERE oid = %s::regclass)"]
        params += [*count_params, table]
    cap = int(settings.CAIRN_SEARCH_EXACT_ROWS_SMALL)
    if period is not None:
        # said_at alone is selected so that the index answers without reading the rows.
        parts.append(
            f"(SELECT count(*) FROM (SELECT said_at FROM {Chunk._meta.db_table} "  # noqa: S608 - tables from code, values as parameters
            "WHERE user_id = %s AND said_at >= %s AND said_at < %s LIMIT %s) AS rows)"
        )
        params += [period.user_id, *period.said_between, cap + 1]
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join(parts)}", params)
        sizes = cursor.fetchone()
        bound = int(sizes[-1]) if period is not None else 0
        if period is not None and bound > cap:
            cursor.execute(
                f"SELECT count(*) FROM ({period.scope.sql} LIMIT %s) AS rows",  # noqa: S608 - scopes and tables from code, values as parameters
                [*period.scope.params, cap + 1],
            )
            (bound,) = cursor.fetchone()
    exact, ef_search = [], []
    for index, (kind, _, _) in enumerate(wanted):
        rows, table_rows = int(sizes[2 * index]), float(sizes[2 * index + 1] or 0)
        small_share = rows < float(settings.CAIRN_SEARCH_SMALL_SHARE) * table_rows
        if rows <= int(settings.CAIRN_SEARCH_EXACT_ROWS) or (
            small_share and rows <= int(settings.CAIRN_SEARCH_EXACT_ROWS_SMALL)
        ):
            exact.append(kind)
        elif small_share:
            ef_search.append((kind, int(settings.CAIRN_SEARCH_EF_SEARCH_SMALL)))
    period_rows = subset_plan(period.scope.kind, bound) if period is not None else None
    passages = int(sizes[0]) if chunks is not None else 0  # the chunks' count comes first
    return Plans(VectorPlan(tuple(exact), tuple(ef_search)), period_rows, passages)


def period_plan(
    scope: Scope, *, user_id: int, said_between: tuple[datetime, datetime]
) -> VectorPlan:
    """How the rows of a stretch of time (``scope``) are searched (``subset_plan``).

    The user's chunks said ``said_between`` are counted first from the (user, said_at)
    index alone, without reading a row (a year of a long history: a millisecond instead of
    six, bench/bench_search.py): they bound the scope's rows from above, and at most the
    threshold settles it. Only a larger period has the scope itself counted (a project's,
    and without archived or excluded turns)."""
    plan = search_plans(None, None, DatedScope(scope, user_id, said_between)).period
    assert plan is not None
    return plan


def subset_plan(kind: str, rows: int) -> VectorPlan:
    """How a few of an account's rows (a stretch of time, the passages about a person),
    at most ``rows`` of them, are searched, as a small account's are (``vector_plan``):
    every one compared when there are at most ``CAIRN_SEARCH_EXACT_ROWS_SMALL`` (an HNSW
    scan filtered to a week of a long history would pass over thousands of other rows to
    find them), else the HNSW index with the longer candidate list."""
    if rows <= int(settings.CAIRN_SEARCH_EXACT_ROWS_SMALL):
        return VectorPlan(exact=(kind,))
    return VectorPlan(ef_search=((kind, int(settings.CAIRN_SEARCH_EF_SEARCH_SMALL)),))
