"""Where a hybrid search's time goes (issue 31's speed targets): each phase of every
search timed on the thread it runs on — the query's embedding, each ranking, the waits on
the threads beside, fusion, the diversity read, the hits' read — with p50 and p95 of
each, and which phases the slowest searches (the p95 tail) spent their extra time in.

The phases are timed by wrapping the search modules' functions for the run (nothing of
the search is changed); ``cpu`` is the thread's own CPU time in a phase, so ``wall − cpu``
is time spent waiting: on PostgreSQL, for the GIL, or for a core.

Uses bench_search.py's data (run that first). Run:
.venv/bin/python bench/search_phases.py [--queries 200] [--kind plain|month|year|name]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import random
import statistics
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench import _django  # noqa: E402
from bench.search_data import USERS, named_keys, query_texts  # noqa: E402


class Timeline:
    """The spans of one search: (thread role, phase, start, end, cpu seconds)."""

    def __init__(self) -> None:
        self.spans: list[tuple[str, str, float, float, float]] = []
        self.lock = threading.Lock()
        self.local = threading.local()

    def role(self) -> str:
        return getattr(self.local, "role", None) or (
            "main" if threading.current_thread() is threading.main_thread() else "beside"
        )

    @contextlib.contextmanager
    def span(self, phase: str) -> Iterator[None]:
        start, cpu = time.perf_counter(), time.thread_time()
        try:
            yield
        finally:
            end, cpu_end = time.perf_counter(), time.thread_time()
            with self.lock:
                self.spans.append((self.role(), phase, start, end, cpu_end - cpu))


TIMELINE = Timeline()


def wrap(module: Any, name: str, phase: str | None = None) -> None:
    original = getattr(module, name, None)
    if original is None:  # not in this version of the search
        return

    @functools.wraps(original)
    def timed(*args: Any, **kwargs: Any) -> Any:
        with TIMELINE.span(phase or name):
            return original(*args, **kwargs)

    setattr(module, name, timed)


def wrap_session(module: Any) -> None:
    """``search_session``: the BEGIN and settings on entering, the COMMIT on leaving."""
    original = module.search_session

    @contextlib.contextmanager
    def timed(kinds: Any = ("chunk",)) -> Iterator[None]:
        manager = original(kinds)
        with TIMELINE.span("session begin"):
            manager.__enter__()
        try:
            yield
        except BaseException:
            if not manager.__exit__(*sys.exc_info()):
                raise
        else:
            with TIMELINE.span("session commit"):
                manager.__exit__(None, None, None)

    module.search_session = timed


def wrap_beside(module: Any) -> None:
    """``run_beside``: how long a task waits for its thread, and the caller for it."""
    original = module.run_beside

    def beside(fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Callable[[], Any]:
        role = {
            "_by_words_then_claims": "words+claims",
            "about_ranking": "about",
            "_said_in": "period",
        }.get(getattr(fn, "__name__", ""), "beside")
        submitted = time.perf_counter()

        def task(*a: Any, **k: Any) -> Any:
            TIMELINE.local.role = role
            with TIMELINE.lock:
                TIMELINE.spans.append((role, "thread start", submitted, time.perf_counter(), 0))
            try:
                with TIMELINE.span("task"):
                    return fn(*a, **k)
            finally:
                TIMELINE.local.role = None

        with TIMELINE.span("submit"):
            wait = original(task, *args, **kwargs)

        def waited() -> Any:
            with TIMELINE.span(f"wait {role}"):
                return wait()

        return waited

    module.run_beside = beside


def instrument() -> None:
    from apps.indexing import embeddings
    from apps.indexing.search import (
        _bm25,
        _diversity,
        _engine,
        _entities,
        _fusion,
        _hits,
        _queries,
    )

    for name in ("_scopes", "_lexical", "names_asked", "period_named", "_plan", "nearest"):
        wrap(_engine, name)
    for name in ("vectors_of", "read_rows", "diversified", "cosines", "_hits", "hits_of"):
        wrap(_engine, name)
    # (main's functions of the same names, for comparing with an older search: ``wrap``
    # skips what this version does not have)
    wrap(_engine, "vector_plan", "vector_plan (claims)")
    wrap(_engine, "period_plan")
    wrap(_engine, "search_plans")
    wrap(_engine, "nearest_each")
    wrap(_engine, "bm25_rankings")
    wrap(_queries, "each_query_terms", "bm25 terms")
    wrap(_queries, "each_chunk_scores", "bm25 chunk postings")
    wrap(_queries, "_in_scopes", "bm25 scope check")
    wrap(_queries, "_claims_ranked_in_scope", "bm25 claims")
    wrap(_queries, "_union", "vector statement")
    wrap(_bm25, "_scores", "bm25 numpy")
    wrap(_entities, "nearest")
    wrap(_entities, "_known", "about names")
    wrap(_hits, "_rows", "hits rows")
    wrap(_fusion.Rankings, "fused", "fusion")
    provider = embeddings.get_embedding_provider()
    wrap(provider, "embed_query", "embed")
    for module in (_engine, _entities):
        wrap_session(module)
    wrap_beside(_engine)
    gc.callbacks.append(_gc_timed)
    _engine.hybrid_rankings = _wrapped(_engine.hybrid_rankings, "rankings")
    _ = _diversity


_gc_started = threading.local()


def _gc_timed(phase: str, info: dict[str, int]) -> None:
    """Each collection's pause, as a phase of the thread it ran on (``gc N``: generation)."""
    if phase == "start":
        _gc_started.at = (time.perf_counter(), time.thread_time())
        return
    begun, cpu = getattr(_gc_started, "at", (time.perf_counter(), time.thread_time()))
    with TIMELINE.lock:
        TIMELINE.spans.append(
            (TIMELINE.role(), f"gc {info['generation']}", begun, time.perf_counter(),
             time.thread_time() - cpu)
        )  # fmt: skip


def _wrapped(fn: Callable[..., Any], phase: str) -> Callable[..., Any]:
    @functools.wraps(fn)
    def timed(*args: Any, **kwargs: Any) -> Any:
        with TIMELINE.span(phase):
            return fn(*args, **kwargs)

    return timed


def measure(queries: list[str], user: Any) -> list[dict[str, tuple[float, float]]]:
    """Each search's phases: ``{"role: phase": (wall ms, cpu ms)}``, summed per phase, and
    ``"total"``."""
    from apps.indexing.search import hybrid_search

    searches = []
    for query in queries:
        TIMELINE.spans = []
        start = time.perf_counter()
        hybrid_search(user=user, query=query, k=10)
        total = (time.perf_counter() - start) * 1000
        phases: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
        for role, phase, begun, ended, cpu in TIMELINE.spans:
            phases[f"{role}: {phase}"][0] += (ended - begun) * 1000
            phases[f"{role}: {phase}"][1] += cpu * 1000
        phases["total"] = [total, 0.0]
        searches.append({key: (wall, cpu) for key, (wall, cpu) in phases.items()})
    return searches


def report(searches: list[dict[str, tuple[float, float]]]) -> None:
    totals = [search["total"][0] for search in searches]
    cut = _django.percentile(totals, 90)
    slow = [search for search in searches if search["total"][0] >= cut]
    keys = sorted({key for search in searches for key in search}, key=_order)
    print(
        f"{'phase':<44} {'p50':>7} {'p95':>7} {'cpu p50':>8} {'in':>5} "
        f"{'slow 10% mean':>14} {'excess':>7}"
    )
    for key in keys:
        walls = [search.get(key, (0.0, 0.0))[0] for search in searches]
        cpus = [search.get(key, (0.0, 0.0))[1] for search in searches]
        present = sum(1 for search in searches if key in search)
        slow_mean = statistics.fmean(search.get(key, (0.0, 0.0))[0] for search in slow)
        print(
            f"{key:<44} {statistics.median(walls):7.2f} {_django.percentile(walls, 95):7.2f} "
            f"{statistics.median(cpus):8.2f} {present:5d} {slow_mean:14.2f} "
            f"{slow_mean - statistics.fmean(walls):7.2f}"
        )


def _order(key: str) -> tuple[int, str]:
    roles = ["total", "main", "words+claims", "period", "about"]
    role = key.split(":")[0]
    return (roles.index(role) if role in roles else len(roles), key)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--kind", choices=["plain", "month", "year", "name"], default="plain")
    parser.add_argument("--rounds", type=int, default=1)
    options = parser.parse_args()
    _django.setup()
    from apps.accounts.models import User

    big = User.objects.get(email=USERS[0])
    queries = query_texts(random.Random(7), options.queries)
    months = ["January", "March", "May", "August", "October", "December"]
    if options.kind == "month":
        queries = [f"{q} in {months[n % 6]} {2024 + n % 2}" for n, q in enumerate(queries)]
    elif options.kind == "year":
        queries = [f"{q} in {2024 + n % 2}" for n, q in enumerate(queries)]
    elif options.kind == "name":
        names = named_keys(USERS[0], 50, random.Random(11))
        queries = [f"{q} {names[n % len(names)]}" for n, q in enumerate(queries)]
    from apps.indexing.search import hybrid_search

    for query in queries:  # warm the buffers and the connections, untimed
        hybrid_search(user=big, query=query, k=10)
    instrument()
    searches = []
    for _ in range(options.rounds):
        searches += measure(queries, big)
    report(searches)


if __name__ == "__main__":
    main()
