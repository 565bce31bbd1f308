"""What a hybrid search costs in CPU, and where the database's share goes (issue 31's speed
targets): on two cores a search cannot take less wall time than half the CPU it needs,
whatever runs beside what, so this is the floor the search_phases.py timeline sits on.

Part 1, searches as they run (threads beside): per search, the wall time, this process's
CPU (Python and the embedding model) and PostgreSQL's (every backend of the embedded
server, read from /proc), for the embedding alone, the hybrid search, and vector and BM25
alone; then a chat turn's two searches (files and chats, and claims), as it makes them.
Part 2, the same hybrid searches one part after another (no threads beside, so a
statement's time is the server's work and a round trip, not a wait for a core): each kind
of statement's time per search, most first.

Uses bench_search.py's data (run that first; Linux only, for /proc). Run:
.venv/bin/python bench/search_cpu.py [--queries 100]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench import _django  # noqa: E402
from bench.search_data import USERS, data_ready, query_texts  # noqa: E402

WARM = 5
# What tells one kind of statement from another beyond its first words: the tables it reads.
TABLES = ("indexing_chunk", "claims_claim", "indexing_unit", "indexing_posting", "chat_message")


def postgres_cpu_seconds() -> float:
    """User and system CPU of every process named postgres (the embedded server's)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # the process ended meanwhile
            continue
        name = text[text.index("(") + 1 : text.rindex(")")]
        if name.startswith("postgres"):
            fields = text[text.rindex(")") + 2 :].split()
            total += int(fields[11]) + int(fields[12])
    return total / ticks


def cpu_line(label: str, run: Callable[[str], object], queries: list[str]) -> None:
    for query in queries[:WARM]:
        run(query)
    database, mine, start = postgres_cpu_seconds(), os.times(), time.perf_counter()
    for query in queries:
        run(query)
    wall = time.perf_counter() - start
    after = os.times()
    process = (after.user - mine.user) + (after.system - mine.system)
    server = postgres_cpu_seconds() - database
    each = 1000 / len(queries)
    print(
        f"{label:<34} wall {wall * each:6.1f}   this process {process * each:6.1f}   "
        f"PostgreSQL {server * each:6.1f}   CPU in all {(process + server) * each:6.1f} ms"
    )


def statement_kind(sql: str) -> str:
    tables = ",".join(table for table in TABLES if table in sql)
    return f"{' '.join(sql.split())[:64]} [{tables}]"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=100)
    count = parser.parse_args().queries
    _django.setup()
    from django.db import connection
    from django.test import override_settings

    from apps.accounts.models import User
    from apps.chat.pipeline.memory import auto_claims
    from apps.chat.pipeline.prepare import CHUNK_LIMIT
    from apps.indexing.embeddings import get_embedding_provider
    from apps.indexing.search import (
        embed_question,
        evidence_search,
        hybrid_search,
        text_search,
        vector_search,
    )

    if not data_ready():
        raise SystemExit("bench_search.py's data is not built: run bench/bench_search.py first")
    user = User.objects.get(email=USERS[0])
    queries = query_texts(random.Random(11), count)
    model = get_embedding_provider()

    print(f"{count} searches of the 100,000-chunk account, per search:")
    cpu_line("query embedding alone", model.embed_query, queries)
    cpu_line("hybrid search", lambda q: hybrid_search(user=user, query=q, k=10), queries)
    cpu_line("vector search alone", lambda q: vector_search(user=user, query=q, k=10), queries)
    cpu_line("BM25 alone", lambda q: text_search(user=user, query=q, k=10), queries)

    # A chat turn's two searches, as ``prepare_turn`` makes them, given the question's
    # embeddings (made once a turn, beside the save): the turn's CPU is mostly these.
    questions = {query: embed_question(query) for query in queries}
    print("\na chat turn's searches, the question's embeddings given:")
    cpu_line(
        "files and chats (evidence)",
        lambda q: evidence_search(
            user=user,
            query=q,
            kinds=("document", "message"),
            k=CHUNK_LIMIT * 3,
            vector=questions[q].vector,
            relevant_only=True,
            name_free=questions[q].name_free,
        ),
        queries,
    )
    cpu_line("claims", lambda q: auto_claims(user, q, questions[q].vector), queries)

    times: dict[str, list[float]] = defaultdict(list)

    def timed(execute: Callable[..., Any], sql: str, *rest: Any) -> Any:
        start = time.perf_counter()
        try:
            return execute(sql, *rest)
        finally:
            times[statement_kind(sql)].append((time.perf_counter() - start) * 1000)

    with override_settings(CAIRN_BESIDE_THREADS=0):
        for query in queries[:WARM]:
            hybrid_search(user=user, query=query, k=10)
        start = time.perf_counter()
        with connection.execute_wrapper(timed):
            for query in queries:
                hybrid_search(user=user, query=query, k=10)
        wall = (time.perf_counter() - start) * 1000 / count
    statements = sum(sum(samples) for samples in times.values()) / count
    print(
        f"\nthe same hybrid searches one part after another: {wall:.1f} ms a search, "
        f"{statements:.1f} of it in {sum(map(len, times.values())) / count:.1f} statements"
    )
    for kind, samples in sorted(times.items(), key=lambda item: -sum(item[1]))[:15]:
        print(f"{sum(samples) / count:7.2f} ms a search   {len(samples) / count:4.1f}×   {kind}")


if __name__ == "__main__":
    main()
