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


def table(outcomes: Sequence[Outcome], categories: Sequence[str]) -> list[str]:
    """Rows: each category, then all; columns: recall@5 and @10 for each method, and which
    method wins each depth (ties shown as "tie")."""
    header = (
        f"{'category':<18} {'n':>4}   "
        + "  ".join(f"{m:>6}" for m in METHODS)
        + "   "
        + "  ".join(f"{m:>6}" for m in METHODS)
        + "   best@5   best@10"
    )
    lines = [f"{'':<18} {'':>4}   {'recall@5':^22}   {'recall@10':^22}", header]
    groups = [(c, [o for o in outcomes if o.category == c]) for c in categories]
    groups.append(("all", list(outcomes)))
    for name, members in groups:
        cells = []
        winners = []
        for k in DEPTHS:
            scores = {m: mean_recall(members, m, k) for m in METHODS}
            cells.append("  ".join(f"{scores[m]:6.3f}" for m in METHODS))
            winners.append(winner(scores))
        lines.append(
            f"{name:<18} {len(members):>4}   {cells[0]}   {cells[1]}   {winners[0]:<8} {winners[1]}"
        )
    return lines


def winner(scores: dict[str, float]) -> str:
    best = max(scores.values())
    leaders = [m for m, s in scores.items() if abs(s - best) < 1e-9]
    return leaders[0] if len(leaders) == 1 else "tie"
