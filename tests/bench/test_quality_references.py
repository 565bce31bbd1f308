"""The quality benchmark's reference retrievers and its tuning / test split."""

from __future__ import annotations

import numpy as np

from bench.quality.model import corpus_load, split_halves
from bench.quality.references import Bm25, Dense, rrf, windows, words


def test_bm25_prefers_the_rare_word_and_shorter_rows() -> None:
    ids = ["common", "rare", "rare-long"]
    texts = [
        "the weather in the garden was nice",
        "the garden had a zanzibar lily",
        "the garden had a zanzibar lily and many other plants of every colour and kind",
    ]

    ranked = Bm25(ids, texts).rank("garden zanzibar", 3)

    assert ranked == ["rare", "rare-long", "common"]
    assert words("What did I say about THE garden?") == ["say", "garden"]


def test_dense_ranks_by_cosine_and_rrf_rewards_agreement() -> None:
    dense = Dense(["a", "b", "c"], np.array([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0]]))

    assert dense.rank(np.array([1.0, 0.1]), 2) == ["a", "b"]
    assert rrf((["a", "b"], 1.0), (["b", "c"], 1.0)) == ["b", "a", "c"]
    assert windows(["one", "two", "three"]) == ["one two", "one two three", "two three"]


def test_the_halves_split_every_category_and_share_no_question() -> None:
    corpus = corpus_load()

    tuning, test = split_halves(corpus.questions)

    assert {q.id for q in tuning}.isdisjoint({q.id for q in test})
    assert len(tuning) + len(test) == len(corpus.questions)
    for category in {q.category for q in corpus.questions}:
        counts = [sum(q.category == category for q in half) for half in (tuning, test)]
        assert abs(counts[0] - counts[1]) <= 1
