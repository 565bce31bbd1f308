"""What issue 31's 30 ms line would take on this machine: the hybrid search as shipped,
beside the same search without the lists added for the quality corpus's families — the
turns by their memory units and the second hop (``Fusion.units``, ``Fusion.hop`` at 0),
then without the passages about whom the question names as well (``entities``) — leaving
the vectors and BM25 of chunks, windows and claims, and a named period's turns.

Each query is searched by every variant in turn (which one first rotates), so that each is
timed under the same load. Nothing of the search is changed but ``FUSION`` and, for the
last variant, the names a question is read to ask about.

Measured at stop 41 on a 2-core Intel Xeon, bench_search.py's 100,000-chunk account, 200
plain questions, three runs (p50 / p95 ms):

    as shipped                            30.5 / 42.9   36.0 / 52.0   34.4 / 49.7
    without the units and the hop         26.4 / 37.2   31.6 / 45.1   29.7 / 44.1
    without the names' passages as well   24.3 / 31.9   29.3 / 38.7   27.8 / 37.8

On two cores even the search of vectors and words alone is over 30 ms at p95: the line is
out of reach here without doing less than that (bench/search_cpu.py says why: a search is
44-54 ms of CPU in all, this process's and PostgreSQL's).

Uses bench_search.py's data (run that first). Run:
.venv/bin/python bench/search_floor.py [--queries 200]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench import _django  # noqa: E402
from bench.search_data import USERS, query_texts  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    _django.setup()
    from apps.accounts.models import User
    from apps.indexing.mentions import AskedNames
    from apps.indexing.search import _engine, hybrid_search

    user = User.objects.get(email=USERS[0])
    queries = query_texts(random.Random(3), args.queries)
    shipped, names_asked = _engine.FUSION, _engine.names_asked
    lean = replace(shipped, units=0.0, hop=0.0)
    variants: dict[str, tuple[object, Callable[[str], AskedNames]]] = {
        "hybrid search as shipped": (shipped, names_asked),
        "without the units and the hop": (lean, names_asked),
        "without the names' passages as well": (lean, lambda _query: AskedNames()),
    }

    def search(variant: str, query: str) -> float:
        fusion, names = variants[variant]
        _engine.FUSION, _engine.names_asked = fusion, names  # type: ignore[assignment]
        try:
            start = time.perf_counter()
            hybrid_search(user=user, query=query, k=10)
            return (time.perf_counter() - start) * 1000
        finally:
            _engine.FUSION, _engine.names_asked = shipped, names_asked

    names = list(variants)
    for query in queries[:10]:  # warm: the model, the caches, the pool's connections
        for variant in names:
            search(variant, query)
    samples: dict[str, list[float]] = {variant: [] for variant in names}
    for n, query in enumerate(queries):
        for variant in names[n % len(names) :] + names[: n % len(names)]:
            samples[variant].append(search(variant, query))
    print(f"{len(queries)} questions on the 100,000-chunk account, each searched by every variant:")
    for variant, times in samples.items():
        p95 = _django.percentile(times, 95)
        print(
            f"{variant:<40} p50 {statistics.median(times):6.2f} ms  p95 {p95:6.2f} ms"
            f"  ratio to 30 ms {p95 / 30:4.2f}"
        )


if __name__ == "__main__":
    main()
