"""Issue 31: memory units from conversations, measured on the quality corpus before (or
instead of) being built into search.

Each indexed chat turn said by a person is cut into the statements it makes
(``indexing.units``), rewritten to its speaker ("Ingrid took Ingrid's two to …"); the
units are embedded, and for each question they are ranked by cosine to it, each unit
counted for the turn it came from (its best unit). That list is fused with the hybrid's
own rankings as ``hybrid_search`` fuses them (``Rankings.units``, ``Fusion.units``), its
weight chosen on the tuning half (with the entity list's weight, which it overlaps) and
reported on the test half, beside the hybrid without it.

Forms compared (``--forms``): ``third`` (speakers' turns rewritten to their name, the
user's own turns as they are), ``plain`` (every sentence as it is said), ``speakers``
(``third``, of the transcripts' speakers only).

``--latency``: instead, each question searched by ``hybrid_search`` with the units' list
and without it, alternately, on this small account (p50 / p95 of each).

Run: .venv/bin/python bench/bench_units.py [--forms third plain speakers] [--latency] — after
``bench/bench_quality.py --keep`` (or ``--reuse``) has built the corpus's database.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench import _django  # noqa: E402
from bench.bench_quality import (  # noqa: E402
    DATABASE,
    K,
    Tuned,
    fused_messages,
    kept_import,
    outcome_for,
    recall_of,
    turn_vectors,
)
from bench.quality.friends import SPEAKERS  # noqa: E402
from bench.quality.model import CATEGORIES, corpus_load, split_halves  # noqa: E402
from bench.quality.scoring import DEPTHS, table  # noqa: E402

UNITS_GRID = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0)
ABOUT_GRID = (2.0, 3.0, 4.0)
VECTOR_GRID = (0.5, 1.0)
TOLERANCE = 0.005


def unit_rows(user: object, form: str) -> tuple[list[int], list[str]]:
    """(chunk id, unit text) of every message chunk of ``user`` in ``form``."""
    from apps.chat.models import Message
    from apps.indexing.mentions import speaker_of
    from apps.indexing.models import Chunk
    from apps.indexing.units import units_of

    messages = {
        pk: (role, content)
        for pk, role, content in Message.objects.filter(conversation__user=user).values_list(
            "id", "role", "content"
        )
    }
    chunk_ids, texts = [], []
    rows = Chunk.objects.filter(user=user, message__isnull=False).values_list(
        "id", "message_id", "text"
    )
    for chunk_id, message_id, text in rows:
        role, content = messages[message_id]
        speaker = speaker_of(content)
        if role != "user" and speaker is None:
            continue  # an assistant's answer, not a person's
        if form == "speakers" and speaker is None:
            continue
        for unit in units_of(text, speaker=None if form == "plain" else speaker):
            chunk_ids.append(chunk_id)
            texts.append(unit)
    return chunk_ids, texts


def unit_vectors(texts: list[str], provider: object) -> np.ndarray:
    """Embedded once per corpus of units and model, kept in artifacts/."""
    digest = hashlib.sha256(("\n".join(texts) + provider.name).encode()).hexdigest()[:12]  # type: ignore[attr-defined]
    path = ROOT / "artifacts" / f"bench_units_{digest}.npy"
    if path.exists():
        return np.load(path)
    start = time.perf_counter()
    vectors = np.asarray(provider.embed_documents(texts), dtype=np.float32)  # type: ignore[attr-defined]
    print(f"  embedded {len(texts)} units in {time.perf_counter() - start:.1f} s", flush=True)
    path.parent.mkdir(exist_ok=True)
    np.save(path, vectors)
    return vectors


def units_ranking(
    chunk_ids: np.ndarray, vectors: np.ndarray, query: np.ndarray, depth: int
) -> list[object]:
    """The turns of the units nearest to ``query``, each by its best unit."""
    from apps.indexing.search._queries import Candidate

    similarity = vectors @ query
    best: dict[int, float] = {}
    for index in np.argsort(-similarity):
        chunk = int(chunk_ids[index])
        if chunk not in best:
            best[chunk] = float(similarity[index])
            if len(best) == depth:
                break
    return [Candidate("chunk", chunk, value) for chunk, value in best.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--forms", nargs="+", default=["third", "plain", "speakers"])
    parser.add_argument("--latency", action="store_true")
    args = parser.parse_args()
    _django.setup(database=DATABASE)
    if args.latency:
        latency()
        return
    from apps.indexing.embeddings import get_embedding_provider
    from apps.indexing.models import Chunk
    from apps.indexing.search._engine import FUSION, KINDS, _depth, hybrid_rankings

    corpus = corpus_load()
    provider = get_embedding_provider()
    user, message_ids = kept_import(corpus)
    messages = {
        pk: str(message_id)
        for pk, message_id in Chunk.objects.filter(user=user, message__isnull=False).values_list(
            "id", "message_id"
        )
    }
    tuning_questions, _ = split_halves(corpus.questions)
    tuning_ids = {q.id for q in tuning_questions}
    tuned = Tuned({q.id: q.question for q in corpus.questions}, turn_vectors(messages))
    depth = _depth(K, FUSION)

    start = time.perf_counter()
    base, query_vectors = {}, {}
    for question in corpus.questions:
        vector = provider.embed_query(question.question)
        query_vectors[question.id] = np.asarray(vector, dtype=np.float32)
        base[question.id] = hybrid_rankings(
            user=user, query=question.question, project=None, kinds=KINDS, depth=depth,
            vector=vector,
        )  # fmt: skip
    print(f"Ranked {len(base)} questions in {time.perf_counter() - start:.1f} s")

    outcomes = {q.id: outcome_for(q, message_ids) for q in corpus.questions}
    speakers_ids = {q.id for q in corpus.questions if q.variant == SPEAKERS}

    def scored(rankings: dict[str, object], fusion: object, ids: list[str]) -> float:
        total = 0.0
        for qid in ids:
            ranked = fused_messages(rankings[qid], fusion, messages, tuned.questions[qid], tuned)
            total += sum(recall_of(outcomes[qid], ranked, k) for k in DEPTHS) / len(DEPTHS)
        return total / len(ids)

    tuning = [q.id for q in corpus.questions if q.id in tuning_ids]
    test = [q.id for q in corpus.questions if q.id not in tuning_ids]
    print(f"Hybrid as fused here, FUSION: tuning {scored(base, FUSION, tuning):.3f}")
    results = {"base": FUSION}
    all_rankings = {"base": base}
    for form in args.forms:
        chunk_ids, texts = unit_rows(user, "third" if form in ("filter", "mixed") else form)
        if form == "mixed":
            # The transcripts' speakers' units; the user's own turns by their own vectors,
            # those that state something (no sentence of theirs embedded again).
            speakers = set(unit_rows(user, "speakers")[0])
            stored = dict(Chunk.objects.filter(id__in=chunk_ids).values_list("id", "embedding"))
            spoken = [(c, t) for c, t in zip(chunk_ids, texts, strict=True) if c in speakers]
            own = list(dict.fromkeys(c for c in chunk_ids if c not in speakers))
            chunk_ids = [c for c, _ in spoken] + own
            vectors = np.concatenate(
                [
                    unit_vectors([t for _, t in spoken], provider),
                    np.asarray([stored[c] for c in own], dtype=np.float32),
                ]
            )
        elif form == "filter":
            # A control: the turns' own vectors, of the turns that state something.
            chunk_ids = list(dict.fromkeys(chunk_ids))
            stored = dict(Chunk.objects.filter(id__in=chunk_ids).values_list("id", "embedding"))
            vectors = np.asarray([stored[pk] for pk in chunk_ids], dtype=np.float32)
        else:
            vectors = unit_vectors(texts, provider)
        ids = np.asarray(chunk_ids)
        print(f"\nForm {form}: {len(texts)} units of {len(set(chunk_ids))} turns, e.g.")
        for text in texts[100:103]:
            print(f"    {text}")
        with_units = {
            qid: replace(rankings, units=units_ranking(ids, vectors, query_vectors[qid], depth))
            for qid, rankings in base.items()
        }
        tried = []
        for units, about, vector in itertools.product(UNITS_GRID, ABOUT_GRID, VECTOR_GRID):
            fusion = replace(FUSION, units=units, about=about, vector=vector)
            tried.append((scored(with_units, fusion, tuning), fusion))
        best = max(score for score, _ in tried)
        score, chosen = min(
            (pair for pair in tried if pair[0] >= best - TOLERANCE),
            key=lambda pair: (
                pair[1].units,
                abs(pair[1].about - FUSION.about) + abs(pair[1].vector - FUSION.vector),
            ),
        )
        tried.sort(key=lambda pair: -pair[0])
        print("  tuning half, best five:")
        for s, f in tried[:5]:
            print(f"    {s:.3f} units={f.units} about={f.about} vector={f.vector}")
        print(f"  chosen (within {TOLERANCE}, least units weight): {score:.3f} {chosen}")
        results[form] = chosen
        all_rankings[form] = with_units
        # The best with units on, whatever the tolerance, for the test half to judge.
        on = max((pair for pair in tried if pair[1].units > 0), key=lambda pair: pair[0])
        results[f"{form}-on"] = on[1]
        all_rankings[f"{form}-on"] = with_units
        # The chosen weights without the units: what the other weights alone do.
        results[f"{form}-off"] = replace(chosen, units=0.0)
        all_rankings[f"{form}-off"] = with_units
        print(f"  best with units on: {on[0]:.3f} {on[1]}")

    labels = {}
    test_outcomes = []
    for qid in test:
        outcome = outcomes[qid]
        for name, fusion in results.items():
            outcome.ranked[name] = fused_messages(
                all_rankings[name][qid], fusion, messages, tuned.questions[qid], tuned
            )
        test_outcomes.append(outcome)
    for name, fusion in results.items():
        labels[name] = f"{name} (u {fusion.units} a {fusion.about} v {fusion.vector})"
    print(f"\nTest half ({len(test_outcomes)} questions):")
    for line in table(test_outcomes, list(results), CATEGORIES, labels):
        print(line)
    print("\nTest half, speakers variant:")
    variant = [o for o in test_outcomes if o.question_id in speakers_ids]
    for line in table(variant, list(results), ("multi-session", "inferential"), labels):
        print(line)


def latency(rounds: int = 2) -> None:
    """``hybrid_search`` with the units' list and without, question by question."""
    from apps.indexing.search import _engine
    from apps.indexing.search._engine import hybrid_search

    corpus = corpus_load()
    user = kept_import(corpus)[0]
    chosen = _engine.FUSION
    fusions = {"with units": chosen, "without": replace(chosen, units=0.0)}
    samples: dict[str, list[float]] = {name: [] for name in fusions}
    for round_ in range(rounds):
        for index, question in enumerate(corpus.questions):
            order = list(fusions) if (index + round_) % 2 else list(fusions)[::-1]
            for name in order:
                _engine.FUSION = fusions[name]
                start = time.perf_counter()
                hybrid_search(user=user, query=question.question, k=K)
                samples[name].append((time.perf_counter() - start) * 1000)
    _engine.FUSION = chosen
    for name, values in samples.items():
        _django.report(f"hybrid_search {name} (small account)", values)


if __name__ == "__main__":
    main()
