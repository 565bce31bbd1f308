"""How hybrid search combines its rankings (vector similarity, BM25 of the turn and of its
window, the turns of a named period) into one list: ``Rankings`` holds them, ``Fusion``
says how they weigh, ``fuse_scores`` (normalised scores, the default) and ``fuse``
(reciprocal rank fusion) combine them. ``FUSION`` is what the quality benchmark's tuning
half chose (bench/bench_quality.py)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from ..embeddings import Vector
from ._queries import Candidate

RRF_K = 60


@dataclass(frozen=True)
class Rankings:
    """The lists a hybrid search fuses, each best first and ``depth`` deep. ``period`` is
    the chat turns said in the stretch of time the query names (``periods``), nearest
    first; empty when it names none. ``about`` is the passages about the people and things
    it names (``entities``), nearest first; empty when it names none the user wrote of.
    ``units`` is the chat turns by their statements (``units``): each turn as near as its
    nearest memory unit; empty when they are not searched (``Fusion.units`` 0). ``hop`` is
    the passages about whom the first hit names and the query does not (``hops``): empty
    until the first hit is known, and when it names no one new. ``name_free`` is the query
    without the names it asks about and its embedding, when it names someone;
    ``passages``, how many passages the account has of the kinds searched."""

    vector: list[Candidate]
    turns: list[Candidate]
    windows: list[Candidate]
    query_vector: Vector | None = None
    period: list[Candidate] = field(default_factory=list)
    about: list[Candidate] = field(default_factory=list)
    units: list[Candidate] = field(default_factory=list)
    hop: list[Candidate] = field(default_factory=list)
    name_free: tuple[str, Vector] | None = None
    passages: int = 0

    def fused(self, fusion: Fusion, depth: int | None = None) -> list[tuple[Candidate, float]]:
        """Fused by ``fusion``, each list cut to ``depth`` when given."""
        weighted = (
            (self.vector[:depth], fusion.vector),
            (self.turns[:depth], fusion.turns),
            (self.windows[:depth], fusion.windows),
            (self.period[:depth], fusion.period),
            (self.about[:depth], fusion.about),
            (self.units[:depth], fusion.units),
            (self.hop[:depth], fusion.hop),
        )
        if fusion.method == "scores":
            return fuse_scores(*weighted, head=fusion.min_depth, k=fusion.rrf_k)
        return fuse(*weighted, k=fusion.rrf_k)

    def text(self) -> list[Candidate]:
        """BM25's scores, for each hit's ``text_rank``: of the turn, else its window."""
        ranked = {candidate.id for candidate in self.turns}
        return self.turns + [c for c in self.windows if c.id not in ranked]


@dataclass(frozen=True)
class Fusion:
    """Each ranking's weight, how they are combined (``method``: ``rrf``, reciprocal rank
    fusion with its ``k``; ``scores``, their normalised scores, ``fuse_scores``, with
    ``k`` for ties) and the least depth of each ranking (``_depth``), which is also the
    head ``fuse_scores`` scales each list to. ``several_depth`` replaces ``min_depth`` for a
    question that asks for several things (``aggregation``; 0: the same for every question);
    ``diversity`` is how much a hit's likeness to the hits above it lowers it (``diversity``;
    0: not at all); ``units``, the weight of the turns by their memory units (0: that list
    is not searched); ``hop``, of the passages about whom the first hit names (0: no second
    hop is made)."""

    vector: float
    turns: float
    windows: float
    rrf_k: int = 60
    min_depth: int = 30
    period: float = 0.0
    method: Literal["rrf", "scores"] = "rrf"
    several_depth: int = 0
    diversity: float = 0.0
    about: float = 0.0
    units: float = 0.0
    hop: float = 0.0

    def __post_init__(self) -> None:
        if self.method not in ("rrf", "scores"):
            raise ValueError(f"unknown fusion method {self.method!r}: rrf or scores")
        if not 0.0 <= self.diversity < 1.0:
            raise ValueError(f"diversity {self.diversity} is outside [0, 1)")


def fuse(
    *rankings: tuple[Sequence[Candidate], float], k: int = RRF_K
) -> list[tuple[Candidate, float]]:
    """Weighted reciprocal rank fusion: each ``(ranking, weight)`` adds
    ``weight / (k + rank)`` to the score of every item in it."""
    first_seen: dict[tuple[str, object], Candidate] = {}
    for ranking, _ in rankings:
        for candidate in ranking:
            first_seen.setdefault((candidate.kind, candidate.id), candidate)
    ordered = sorted(_rank_scores(*rankings, k=k).items(), key=lambda item: -item[1])
    return [(first_seen[key], score) for key, score in ordered]


def fuse_scores(
    *rankings: tuple[Sequence[Candidate], float], head: int, k: int = RRF_K
) -> list[tuple[Candidate, float]]:
    """A convex combination of the rankings' own scores (Bruch et al., "An Analysis of
    Fusion Functions for Hybrid Retrieval", 2023): each ``(ranking, weight)`` adds
    ``weight`` times the item's score scaled to 0–1 between the ranking's best and a
    floor (lower ones count 0). An item counts for how close it comes to its list's best:
    when one turn's words match far better than any other's, that turn alone scores high
    by words, while of many alike vectors many do; rank fusion gives every list's second
    the same.

    The floor is the ``head``-th score, so that the first hits are the same however deep
    the lists go (a caller asking for 100 hits gets lists 300 deep); a list shorter than
    that is scaled from 0 instead (BM25's score of a row without the words, and a cosine
    similarity of no likeness), so that its last item, still a match, is not counted as
    none. Items scoring alike (past every list's head, say) keep their order by rank
    fusion (``fuse`` with ``k``)."""
    scores: dict[tuple[str, object], float] = {}
    first_seen: dict[tuple[str, object], Candidate] = {}
    for ranking, weight in rankings:
        values = [c.value for c in ranking[:head] if math.isfinite(c.value)]
        if not values:
            continue
        best = max(values)
        floor = min(values) if len(ranking) >= head else min(0.0, min(values))
        span = best - floor
        for candidate in ranking:
            key = (candidate.kind, candidate.id)
            value = candidate.value if math.isfinite(candidate.value) else floor
            scaled = (value - floor) / span if span > 0 else 1.0
            scores[key] = scores.get(key, 0.0) + weight * min(1.0, max(0.0, scaled))
            first_seen.setdefault(key, candidate)
    # Ties: within the heads by rank fusion of the heads, then by which list and rank
    # found the item first (neither depends on how deep the lists go); past every head,
    # by rank fusion of the whole lists.
    heads = [(ranking[:head], weight) for ranking, weight in rankings]
    in_heads = _rank_scores(*heads, k=k)
    found_at: dict[tuple[str, object], int] = {}
    for ranking, _ in heads:
        for candidate in ranking:
            found_at.setdefault((candidate.kind, candidate.id), len(found_at))
    # Only items past every head are ordered by the whole lists (none when the lists are
    # no deeper than the head, as a search for ten hits reads them).
    overall = _rank_scores(*rankings, k=k) if len(found_at) < len(scores) else {}

    def order(item: tuple[tuple[str, object], float]) -> tuple[float, float, float, int]:
        key, score = item
        if key in found_at:
            return (-score, -in_heads[key], 0.0, found_at[key])
        return (-score, 0.0, -overall[key], 0)

    return [(first_seen[key], score) for key, score in sorted(scores.items(), key=order)]


def _rank_scores(
    *rankings: tuple[Sequence[Candidate], float], k: int
) -> dict[tuple[str, object], float]:
    """Each item's reciprocal rank fusion score, in the order the items first appear."""
    scores: dict[tuple[str, object], float] = {}
    for ranking, weight in rankings:
        for rank, candidate in enumerate(ranking, start=1):
            key = (candidate.kind, candidate.id)
            scores[key] = scores.get(key, 0.0) + weight / (k + rank)
    return scores


# How the rankings are fused, chosen on the tuning half of the quality corpus (mean of
# recall@5 and @10: 0.750 for these weights, 0.758 the best of all, which the tuning leaves
# for the weights nearer equal within a point; 0.548 for equal weights and rank fusion with
# k = 60) and reported on its test half (bench/bench_quality.py, which says why lists stay
# 30 deep). Vectors lead on chat memory there; BM25 of the turn alone and, as much as
# vectors, of its window add what the words carry that MiniLM misses (a detail told in
# reply to a question about the topic: the corpus's in-thread questions); the turns said in
# a period the question names weigh most of all for the questions that name one, and the
# passages about whom a question names (``entities``) for those: among them the nearest to
# the question is most often the answer. The turns by their memory units (``units``:
# their statements, told of their speaker) weigh half as much as vectors, and vectors
# half of what they did without them (tuning 0.766 against 0.750; on the test half the
# vectors at 0.5 without the units lose a point at R@5, bench/bench_units.py: the gain is
# the units'). Scores rather than ranks: a question whose words
# match one turn far better than the rest is answered by that turn even when the vectors,
# close to many, rank it low.
#
# Then two steps may re-order what the weights fused, tuned on these weights: the first
# 30 hits so that a hit much like one above it gives way (``diversity``), and a question
# asking for several things reading its lists deeper (``several_depth``). Before the units
# the diversity gained a little (0.1: 0.750 against 0.749); with them neither step gains
# half a question on the tuning half (0.7676 at best against 0.7671 without either; on the
# test half .707/.823 with depth 100 and diversity 0.1, .714/.819 with neither), so the
# cheaper is kept: both off.
#
# The second hop's list (``hops``: the passages about whom the first hit names), tried on
# the weights above before the re-orderings: 0.75, the least weight within half the
# tolerance of the best (0.792 on the tuning half, 0.795 at 1.0, against 0.767 without it).
FUSION = Fusion(
    vector=0.5,
    turns=0.25,
    windows=1.0,
    min_depth=30,
    period=2.0,
    method="scores",
    several_depth=0,
    diversity=0.0,
    about=3.0,
    units=0.5,
    hop=0.75,
)
