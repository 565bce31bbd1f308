"""Where a chat turn's preparation goes (issue 31's ``bench_chat`` turn overhead): each step
of ``prepare_turn`` timed where it runs, with p50 and p95 over the turns, as a turn runs
them: side by side (the search of files and chats beside the claims' and the rest), where
on two cores they compete, so a step takes longer here than alone.

The steps are timed by wrapping ``apps.chat.pipeline.prepare``'s functions for the run
(nothing of the turn is changed). On bench_chat.py's account (bench_search.py's first
user: 10,000 claims, 100,000 chunks); run bench_search.py first. Run:
.venv/bin/python bench/turn_phases.py [--turns 60]
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench import _django  # noqa: E402
from bench.bench_chat import QUESTIONS  # noqa: E402
from bench.search_cpu import postgres_cpu_seconds  # noqa: E402

STEPS = (
    "embed_query", "save_user_message", "persist_facts", "read_references", "auto_claims",
    "_standing_facts_history", "standing_memory", "relevant_facts", "history_turns",
    "relevant_chunks", "register_sources", "list_sections", "build_system_prompt",
    "record_notices", "prepare_saved",
)  # fmt: skip
WARM = 5  # turns left out: the first ones load the model and fill the caches


def _timed(times: dict[str, list[float]], name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            times[name].append((time.perf_counter() - start) * 1000)

    return timed


def _line(name: str, samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = _django.percentile(ordered, 95)
    return f"{name:<28} p50 {statistics.median(ordered):7.1f}  p95 {p95:7.1f}  n={len(samples)}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=60)
    turns = parser.parse_args().turns
    _django.setup(sync_jobs=False)
    from apps.accounts.models import User
    from apps.chat.pipeline import prepare
    from apps.chat.pipeline.types import TurnRequest
    from apps.chat.services import conversation_create
    from bench.search_data import USERS, data_ready

    if not data_ready():
        raise SystemExit("bench_search.py's data is not built: run bench/bench_search.py first")
    owner = User.objects.get(email=USERS[0])
    times: dict[str, list[float]] = defaultdict(list)
    for name in STEPS:
        setattr(prepare, name, _timed(times, name, getattr(prepare, name)))
    conversation = conversation_create(user=owner, title="turn phases")
    whole = []
    try:
        for turn in range(turns):
            if turn == WARM:
                database, mine = postgres_cpu_seconds(), os.times()
            start = time.perf_counter()
            request = TurnRequest(text=QUESTIONS[turn % len(QUESTIONS)])
            prepare.prepare_turn(user=owner, conversation=conversation, request=request)
            whole.append((time.perf_counter() - start) * 1000)
        after, server = os.times(), postgres_cpu_seconds() - database
    finally:
        # The account is bench_search.py's: its turns would be indexed by a later worker.
        conversation.delete()
    print(f"{turns} turns on bench_chat.py's account (ms; the first {WARM} left out)")
    print(_line("prepare_turn", whole[WARM:]))
    # On two cores a turn cannot take less than half the CPU it needs (bench/search_cpu.py).
    process = (after.user - mine.user) + (after.system - mine.system)
    each = 1000 / (turns - WARM)
    print(
        f"CPU a turn: this process {process * each:.1f} ms, PostgreSQL {server * each:.1f} ms, "
        f"in all {(process + server) * each:.1f} ms"
    )
    for name, samples in sorted(times.items(), key=lambda item: -statistics.median(item[1])):
        print(_line(name, samples[WARM:]))


if __name__ == "__main__":
    main()
