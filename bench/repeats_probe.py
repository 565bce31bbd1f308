"""Issue 31: what placing repeated hits last (``diversity.repeats_last``) does to the search
every door into an answer makes: ``evidence_search`` (``/api/v1/search``, the chat turn,
MCP), where ``bench_quality`` measures ``hybrid_search``. Each question of the quality
corpus is searched with the rule switched off (a hit repeating one above it keeps its
place) and on, and recall@5/@10 of the evidence turns printed for both halves.

Measured at stop 41: test half .738/.841 without, .747/.843 with; tuning half .757/.825
without, .761/.829 with.

Run: .venv/bin/python bench/repeats_probe.py — after ``bench/bench_quality.py --keep`` (or
``--reuse``) has built the corpus's database.
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench import _django  # noqa: E402
from bench.bench_quality import (  # noqa: E402
    DATABASE,
    kept_import,
    outcome_for,
    recall_of,
)
from bench.quality.model import corpus_load, split_halves  # noqa: E402


def kept_in_place(items: Sequence[Any], *, key: Callable[[Any], Hashable]) -> list[Any]:
    """The rule switched off: every hit keeps its place."""
    return list(items)


def main() -> None:
    _django.setup(database=DATABASE)
    from apps.indexing.search import _engine, evidence_search

    corpus = corpus_load()
    user, message_ids = kept_import(corpus)
    tuning = {q.id for q in split_halves(corpus.questions)[0]}
    shipped = _engine.repeats_last
    for label, rule in (("repeats keep their place", kept_in_place), ("repeats last", shipped)):
        _engine.repeats_last = rule  # type: ignore[assignment]
        try:
            recalls: dict[str, list[tuple[float, float]]] = {"tuning": [], "test": []}
            for question in corpus.questions:
                outcome = outcome_for(question, message_ids)
                hits = evidence_search(user=user, query=question.question, k=10)
                ranked = [str(hit.message_id) for hit in hits]
                half = "tuning" if question.id in tuning else "test"
                at = (recall_of(outcome, ranked, 5), recall_of(outcome, ranked, 10))
                recalls[half].append(at)
        finally:
            _engine.repeats_last = shipped
        figures = "; ".join(
            f"{half} half {statistics.mean(r[0] for r in pairs):.3f}/"
            f"{statistics.mean(r[1] for r in pairs):.3f}"
            for half, pairs in recalls.items()
        )
        print(f"evidence_search, {label:<26} recall@5/@10: {figures}")


if __name__ == "__main__":
    main()
