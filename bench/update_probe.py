"""Issue 31: what a person said *since* — measured on the quality corpus, and not shipped.

The preference-update questions ("What do I use for budgeting?") are the quality corpus's
weakest family: the statement a later turn overrides ("I track the budget in a
spreadsheet") is usually the first hit, and the current one ("Budget tracking has moved to
YNAB") often lies below the first ten or outside every list. Two ways to bring it up, each
seeded by the fused list of ``hybrid_search`` (its rankings and its second hop, as
``bench_quality`` reads them):

- ``later``: the chat turns said after the first hit (a chat turn), nearest to *it*
  rather than to the question, as one more list fused with the others at a weight; only
  those at least ``floor`` alike (cosine), and, for ``same``, only the first hit's
  speaker's (the role of its message);
- ``cue rule``: for each of the first ``pool`` hits that is a chat turn, the later turns of
  the same speaker at least ``tau`` alike that tell of a change ("now", "any more",
  "changed my mind", "switched" …) are put directly above it.

Every variant is scored on both halves of ``bench_quality``'s split (recall@5 and @10 of
the evidence turns); the tuning half would choose (mean of the two). Both are compared with
the fused list itself, as the search made it before repeated hits were placed last
(``diversity.repeats_last``, which came after). Measured at stop 41 (tuning half 0.791
without either): the best ``later`` list (same speaker, no floor,
weight 0.5) scored 0.802 on the tuning half and lost on the test half (.731/.823 against
.725/.832, in-thread −11 points at @10); the cue rule at best 0.800 (tau 0.5, pool 3–5),
test .718/.830–.834, the preference updates of the test half .50/.75 → at best .55/.80.
Neither was shipped: a question's worth on one half, none on the other. The override is
found: in 31 of the corpus's 48 pairs of an old statement and the one overriding it, the
latter is the later turn nearest to the former. But the list is seeded by whatever the
first hit is, and on the questions whose first hit is no overridden statement it brings up
later turns that only resemble it (in-thread questions lost most).

Run: .venv/bin/python bench/update_probe.py — after ``bench/bench_quality.py --keep`` (or
``--reuse``) has built the corpus's database.
"""

from __future__ import annotations

import re
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

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
from bench.quality.scoring import Outcome  # noqa: E402

FAMILIES = ("preference-update", "single-fact", "multi-hop", "in-thread", "inferential")
CHANGE = re.compile(
    r"\b(now|any ?more|no longer|changed my mind|change of plan|from now on|switched|"
    r"moved to|instead|these days)\b",
    re.IGNORECASE,
)
LATER_SQL = (
    "SELECT c.id, 1 - (c.embedding <=> s.embedding) FROM indexing_chunk AS c, "
    "indexing_chunk AS s JOIN chat_message AS sm ON sm.id = s.message_id "
    "WHERE s.id = %s AND c.user_id = s.user_id AND c.message_id IS NOT NULL "
    "AND c.said_at > s.said_at AND NOT c.archived {speaker} "
    "ORDER BY c.embedding <=> s.embedding LIMIT %s"
)
SAME_SPEAKER = (
    "AND EXISTS (SELECT 1 FROM chat_message AS m WHERE m.id = c.message_id AND m.role = sm.role)"
)


def main() -> None:
    _django.setup(database=DATABASE)
    from django.db import connection

    from apps.indexing.models import Chunk
    from apps.indexing.search._engine import FUSION, KINDS, hybrid_rankings
    from apps.indexing.search._entities import embed_question
    from apps.indexing.search._fusion import fuse_scores
    from apps.indexing.search._hops import with_hop
    from apps.indexing.search._queries import Candidate

    corpus = corpus_load()
    user, message_ids = kept_import(corpus)
    turns = Chunk.objects.filter(user=user, message__isnull=False)
    messages = {pk: str(message) for pk, message in turns.values_list("id", "message_id")}
    texts = dict(turns.values_list("id", "text"))
    depth = FUSION.min_depth

    def later(seed: int, same: bool, limit: int = depth) -> list[Candidate]:
        with connection.cursor() as cursor:
            cursor.execute(LATER_SQL.format(speaker=SAME_SPEAKER if same else ""), [seed, limit])
            return [Candidate("chunk", pk, float(value)) for pk, value in cursor.fetchall()]

    lists: dict[str, list[tuple[list[Candidate], float]]] = {}
    seeds: dict[str, list[Candidate]] = {}
    outcomes: list[Outcome] = []
    for question in corpus.questions:
        outcomes.append(outcome_for(question, message_ids))
        asked = embed_question(question.question)
        ranked = hybrid_rankings(
            user=user,
            query=question.question,
            project=None,
            kinds=KINDS,
            depth=depth,
            vector=asked.vector,
            name_free=asked.name_free,
        )
        first = ranked.fused(FUSION)
        hopped = with_hop(
            ranked,
            FUSION,
            first[0][0] if first else None,
            query=question.question,
            user=user,
            project=None,
            kinds=KINDS,
            exclude_message_ids=(),
            depth=depth,
        )
        f = FUSION
        lists[question.id] = [
            (hopped.vector, f.vector), (hopped.turns, f.turns), (hopped.windows, f.windows),
            (hopped.period, f.period), (hopped.about, f.about), (hopped.units, f.units),
            (hopped.hop, f.hop),
        ]  # fmt: skip
        seeds[question.id] = [c for c, _ in fuse_scores(*lists[question.id], head=depth)]

    cache: dict[tuple[int, bool, int], list[Candidate]] = {}

    def later_of(seed: int, same: bool, limit: int) -> list[Candidate]:
        if (seed, same, limit) not in cache:
            cache[seed, same, limit] = later(seed, same, limit)
        return cache[seed, same, limit]

    def ranked_turns(ordered: list[Candidate]) -> list[str]:
        return list(
            dict.fromkeys(messages[c.id] for c in ordered if c.kind == "chunk" and c.id in messages)
        )

    def with_later(same: bool, floor: float, weight: float) -> Callable[[Outcome], list[str]]:
        def ranking(outcome: Outcome) -> list[str]:
            first = seeds[outcome.question_id]
            if not weight or not first or first[0].id not in messages:
                return ranked_turns(first)
            extra = [c for c in later_of(first[0].id, same, depth) if c.value >= floor]
            fused = fuse_scores(*lists[outcome.question_id], (extra, weight), head=depth)
            return ranked_turns([c for c, _ in fused])

        return ranking

    def cue_rule(tau: float, pool: int) -> Callable[[Outcome], list[str]]:
        def ranking(outcome: Outcome) -> list[str]:
            ordered: list[Candidate] = []
            seen: set[object] = set()
            for index, candidate in enumerate(seeds[outcome.question_id]):
                if index < pool and candidate.id in messages and candidate.kind == "chunk":
                    for change in later_of(candidate.id, True, 5):
                        told = CHANGE.search(texts.get(change.id, ""))
                        if change.value >= tau and told and change.id not in seen:
                            ordered.append(change)
                            seen.add(change.id)
                if candidate.id not in seen:
                    ordered.append(candidate)
                    seen.add(candidate.id)
            return ranked_turns(ordered)

        return ranking

    tuning_ids = {q.id for q in split_halves(corpus.questions)[0]}

    def figures(ranking: Callable[[Outcome], list[str]]) -> str:
        def recall(half: str, family: str | None = None) -> tuple[float, float]:
            chosen = [
                o
                for o in outcomes
                if (o.question_id in tuning_ids) == (half == "tuning")
                and (family is None or o.category == family)
            ]
            pairs = [(recall_of(o, ranking(o), 5), recall_of(o, ranking(o), 10)) for o in chosen]
            return statistics.mean(p[0] for p in pairs), statistics.mean(p[1] for p in pairs)

        tuning, test = recall("tuning"), recall("test")
        by_family = " ".join("{:.2f}/{:.2f}".format(*recall("test", family)) for family in FAMILIES)
        return f"{sum(tuning) / 2:.4f}  {test[0]:.3f}/{test[1]:.3f}  {by_family}"

    print(f"{len(outcomes)} questions; the tuning half's mean of recall@5 and @10, the test")
    print(f"half's recall@5/@10, and the test half's by family ({', '.join(FAMILIES)}):")
    print(f"{'the fused list, repeats in place':<40} {figures(with_later(False, 0.0, 0.0))}")
    for same in (False, True):
        for floor in (0.0, 0.5, 0.6):
            for weight in (0.25, 0.5, 0.75, 1.0):
                label = f"later, {'same speaker' if same else 'any'}, floor {floor}, w {weight}"
                print(f"{label:<40} {figures(with_later(same, floor, weight))}")
    for tau in (0.5, 0.6, 0.7):
        for pool in (1, 3, 5):
            print(f"{f'cue rule, tau {tau}, pool {pool}':<40} {figures(cue_rule(tau, pool))}")


if __name__ == "__main__":
    main()
