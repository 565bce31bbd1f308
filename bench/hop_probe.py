"""Issue 31: a second hop for questions whose answer is told in two turns ("where is the
person who borrowed my stand mixer travelling to?": one turn names Lorcan, another says
where Lorcan is going), measured on the quality corpus, beside the hop search makes.

Each question is searched as ``hybrid_search`` searches it (its rankings fused by
``FUSION``). The first hit's words that the question does not hold (its content words:
"Lorcan", "weekend", …) are put before the question, and that text is searched again: by
all the hybrid's rankings, by its full-text rankings alone, by its vectors alone, or by
the passages about the names it holds (the entity list). A cheaper hop embeds nothing
again: the passages about whom the first hit names and the question does not, nearest to
the question, the search's own hop (``hops.with_hop``). The second list is
fused with the first (``fuse_scores``, the first weighing 1) at each weight; the weight
is read off the tuning half and every figure printed for both halves, overall and on the
multi-hop family. It also prints what a hop costs: the time of one hybrid search of the
hop's text, and of the cheap hop's list, beside the first search's.

Run: .venv/bin/python bench/hop_probe.py — after ``bench/bench_quality.py --keep`` (or
``--reuse``) has built the corpus's database.
"""

from __future__ import annotations

import re
import statistics
import sys
import time
from dataclasses import replace
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

WEIGHTS = (0.25, 0.5, 0.75, 1.0)
FIRST_NAMES = "first hit's names"
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+")


def hop_text(question: str, first_hit: str) -> str:
    """The question with the first hit's own content words before it."""
    from apps.indexing.search._evidence import content_words

    asked = content_words(question)
    extra = [
        word
        for word in _WORD.findall(first_hit)
        if content_words(word) and not content_words(word) & asked
    ]
    return " ".join(dict.fromkeys(extra)) + " " + question


def main() -> None:
    _django.setup(database=DATABASE)
    from apps.indexing.embeddings import get_embedding_provider
    from apps.indexing.models import Chunk
    from apps.indexing.search import hybrid_search
    from apps.indexing.search._engine import FUSION, KINDS, hybrid_rankings
    from apps.indexing.search._entities import embed_question
    from apps.indexing.search._fusion import fuse_scores
    from apps.indexing.search._hops import with_hop
    from apps.indexing.search._queries import Candidate

    corpus = corpus_load()
    provider = get_embedding_provider()
    user, message_ids = kept_import(corpus)
    chunks = Chunk.objects.filter(user=user, message__isnull=False)
    texts = dict(chunks.values_list("id", "text"))
    messages = {pk: str(message) for pk, message in chunks.values_list("id", "message_id")}
    depth = FUSION.min_depth
    seconds = {
        "hybrid": FUSION,
        "words": replace(FUSION, vector=0.0, units=0.0, about=0.0, period=0.0),
        "vectors": replace(FUSION, turns=0.0, windows=0.0, units=0.0, about=0.0, period=0.0),
        "names": replace(FUSION, vector=0.0, turns=0.0, windows=0.0, units=0.0, period=0.0),
    }
    firsts: dict[str, list[Candidate]] = {}
    hops: dict[str, dict[str, list[Candidate]]] = {name: {} for name in [*seconds, FIRST_NAMES]}
    outcomes: list[Outcome] = []
    cheap_ms: list[float] = []
    for question in corpus.questions:
        outcomes.append(outcome_for(question, message_ids))
        query = question.question
        asked = embed_question(query)
        ranked = hybrid_rankings(
            user=user,
            query=query,
            project=None,
            kinds=KINDS,
            depth=depth,
            vector=asked.vector,
            name_free=asked.name_free,
        )
        first = ranked.fused(FUSION)
        firsts[question.id] = [Candidate(c.kind, c.id, score) for c, score in first]
        # The cheap hop, as the search makes it (``with_hop``): the passages about whom
        # the first hit names and the question does not, nearest to the question, nothing
        # embedded again.
        started = time.perf_counter()
        hops[FIRST_NAMES][question.id] = with_hop(
            ranked,
            replace(FUSION, hop=1.0),
            first[0][0] if first else None,
            query=query,
            user=user,
            project=None,
            kinds=KINDS,
            exclude_message_ids=(),
            depth=depth,
        ).hop
        if hops[FIRST_NAMES][question.id]:
            cheap_ms.append((time.perf_counter() - started) * 1000)
        hop = hop_text(query, texts.get(first[0][0].id, "") if first else "")
        second = hybrid_rankings(
            user=user,
            query=hop,
            project=None,
            kinds=KINDS,
            depth=depth,
            vector=provider.embed_query(hop),
        )
        for name, fusion in seconds.items():
            fused = second.fused(fusion)
            hops[name][question.id] = [Candidate(c.kind, c.id, score) for c, score in fused]

    def recall(outcome: Outcome, name: str, weight: float) -> tuple[float, float]:
        first = firsts[outcome.question_id]
        fused = (
            fuse_scores((first, 1.0), (hops[name][outcome.question_id], weight), head=depth)
            if weight
            else [(c, c.value) for c in first]
        )
        turns = [messages[c.id] for c, _ in fused if c.kind == "chunk" and c.id in messages]
        ranked = list(dict.fromkeys(turns))
        return recall_of(outcome, ranked, 5), recall_of(outcome, ranked, 10)

    tuning_ids = {q.id for q in split_halves(corpus.questions)[0]}
    halves = {
        "tuning": [o for o in outcomes if o.question_id in tuning_ids],
        "test": [o for o in outcomes if o.question_id not in tuning_ids],
    }

    def figures(name: str, weight: float, half: str, family: str | None = None) -> str:
        chosen = [o for o in halves[half] if family is None or o.category == family]
        pairs = [recall(o, name, weight) for o in chosen]
        return (
            f"{statistics.mean(p[0] for p in pairs):.3f}/{statistics.mean(p[1] for p in pairs):.3f}"
        )

    print(f"{len(outcomes)} questions; recall@5/@10, the second list fused at each weight:")
    print(f"{'':<36} {'tuning':>12} {'test':>12} {'multi-hop tuning':>18} {'multi-hop test':>16}")
    rows = [("none", 0.0)] + [(name, w) for name in [*seconds, FIRST_NAMES] for w in WEIGHTS]
    for name, weight in rows:
        label = "first hop only" if not weight else f"{name} hop, weight {weight:g}"
        print(
            f"{label:<36} {figures(name, weight, 'tuning'):>12} {figures(name, weight, 'test'):>12}"
            f" {figures(name, weight, 'tuning', 'multi-hop'):>18}"
            f" {figures(name, weight, 'test', 'multi-hop'):>16}"
        )

    first_ms, hop_ms = [], []
    for question in corpus.questions:
        query = question.question
        start = time.perf_counter()
        hits = hybrid_search(user=user, query=query, k=10)
        first_ms.append((time.perf_counter() - start) * 1000)
        hop = hop_text(query, hits[0].text if hits else "")
        start = time.perf_counter()
        hybrid_search(user=user, query=hop, k=10)
        hop_ms.append((time.perf_counter() - start) * 1000)
    print(
        f"hybrid search of the question p50 {statistics.median(first_ms):.1f} ms; "
        f"of the hop's text p50 {statistics.median(hop_ms):.1f} ms (the hop adds it); "
        f"the cheap hop's list p50 {statistics.median(cheap_ms):.1f} ms, for the "
        f"{len(cheap_ms)} of {len(outcomes)} questions it gave a list for"
    )


if __name__ == "__main__":
    main()
