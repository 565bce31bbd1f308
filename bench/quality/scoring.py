"""Recall of evidence turns, per method and category, and the table that shows them.

Pure functions over message ids, so they are tested without a database.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

METHODS = ("text", "vector", "hybrid")
DEPTHS = (5, 10)


def recall(evidence: Iterable[str], ranked: Sequence[str], k: int) -> float:
    """Share of the evidence messages among the first ``k`` ranked message ids."""
    wanted = set(evidence)
    if not wanted:
        raise ValueError("a question needs at least one evidence message")
    return len(wanted & set(ranked[:k])) / len(wanted)


@dataclass
class Outcome:
    """One question's rankings (message ids, best first) by each method."""

    question_id: str
    category: str
    evidence: list[str]
    ranked: dict[str, list[str]] = field(default_factory=dict)
    # Each evidence message's neighbouring turns: their chunks carry its text as context.
    neighbours: dict[str, set[str]] = field(default_factory=dict)
    # Preference updates: the earlier statements the evidence overrides.
    superseded: list[str] = field(default_factory=list)

    def recall(self, method: str, k: int) -> float:
        return recall(self.evidence, self.ranked[method], k)

    def recall_near(self, method: str, k: int) -> float:
        """Recall when a neighbouring turn found in place of the evidence counts too."""
        top = set(self.ranked[method][:k])
        found = [e for e in self.evidence if top & ({e} | self.neighbours.get(e, set()))]
        return len(found) / len(self.evidence)

    def stale_first(self, method: str, k: int) -> bool:
        """An overridden statement is in the first ``k`` and above the current one."""
        top = self.ranked[method][:k]
        stale = [top.index(s) for s in self.superseded if s in top]
        current = [top.index(e) for e in self.evidence if e in top]
        return bool(stale) and (not current or min(stale) < min(current))

    def first_rank(self, method: str) -> int | None:
        """1-based rank of the first evidence message, or None if it is not in the list."""
        for rank, message_id in enumerate(self.ranked[method], start=1):
            if message_id in self.evidence:
                return rank
        return None


def mean_recall(outcomes: Sequence[Outcome], method: str, k: int, *, near: bool = False) -> float:
    if not outcomes:
        return 0.0
    return sum(o.recall_near(method, k) if near else o.recall(method, k) for o in outcomes) / len(
        outcomes
    )


def table(
    outcomes: Sequence[Outcome],
    methods: Sequence[str],
    categories: Sequence[str],
    labels: dict[str, str] | None = None,
) -> list[str]:
    """Rows: each method; columns: recall@5 and @10 over all questions, then @5 / @10 of
    each category."""
    labels = labels or {}
    width = max(len(labels.get(m, m)) for m in methods)
    groups = [("all", list(outcomes))] + [
        (c, [o for o in outcomes if o.category == c]) for c in categories
    ]
    head = "".join(f"  {name[:17] + f' ({len(members)})':>22}" for name, members in groups)
    lines = [f"{'':<{width}}{head}", f"{'':<{width}}" + f"  {'@5    @10':>22}" * len(groups)]
    for method in methods:
        cells = "".join(
            f"  {'':>8}" + " ".join(f"{mean_recall(members, method, k):6.3f}" for k in DEPTHS)
            for _, members in groups
        )
        lines.append(f"{labels.get(method, method):<{width}}{cells}")
    return lines


def winner(scores: dict[str, float]) -> str:
    best = max(scores.values())
    leaders = [m for m, s in scores.items() if abs(s - best) < 1e-9]
    return leaders[0] if len(leaders) == 1 else "tie"
