"""How hybrid search combines its rankings (issue 19): by their normalised scores, as the
quality benchmark's tuning half chose, or by reciprocal rank."""

from __future__ import annotations

import pytest

from apps.indexing.search._fusion import Fusion, Rankings, fuse, fuse_scores
from apps.indexing.search._queries import Candidate


def ranking(*values: float, kind: str = "chunk", first_id: int = 1) -> list[Candidate]:
    return [Candidate(kind, first_id + n, value) for n, value in enumerate(values)]


def order(fused: list[tuple[Candidate, float]]) -> list[int | object]:
    return [candidate.id for candidate, _ in fused]


def test_each_list_adds_its_weight_times_the_score_scaled_between_its_best_and_its_head() -> None:
    vector = ranking(0.9, 0.7, 0.5, 0.1)  # ids 1–4; the head of 3 ends at 0.5
    words = ranking(12.0, 6.0, 3.0, first_id=3)  # ids 3, 4, 5

    fused = dict((c.id, score) for c, score in fuse_scores((vector, 1.0), (words, 0.5), head=3))

    assert fused[1] == pytest.approx(1.0)
    assert fused[2] == pytest.approx(0.5)
    assert fused[3] == pytest.approx(0.0 + 0.5 * 1.0)
    assert fused[4] == pytest.approx(0.0 + 0.5 * 1 / 3)  # below the head counts 0, never less
    assert fused[5] == pytest.approx(0.0)


def test_a_list_shorter_than_the_head_is_scaled_from_nothing() -> None:
    """Two near-equal BM25 matches both count nearly fully: the second is a match, not
    the floor (scaled between the best and the head's score it would count 0)."""
    words = ranking(11.8, 11.7)

    fused = dict((c.id, score) for c, score in fuse_scores((words, 1.0), head=30))

    assert fused[1] == pytest.approx(1.0)
    assert fused[2] == pytest.approx(11.7 / 11.8)


def test_hits_past_every_head_keep_their_order_by_rank() -> None:
    """Deep lists (an API caller asking for 100 hits) score 0 past each one's head: there
    rank fusion orders them, so the 31st by words is not put after the 300th by vector."""
    vector = ranking(*[1.0 - n / 1000 for n in range(300)])  # ids 1–300
    words = ranking(*[100.0 - n / 10 for n in range(300)], first_id=1001)  # ids 1001–1300

    fused = fuse_scores((vector, 1.0), (words, 1.0), head=30)
    position = {c.id: n for n, (c, _) in enumerate(fused)}

    assert position[1031] < position[300]  # 31st by words before 300th by vector
    assert position[31] < position[1300]


def test_a_score_that_is_not_a_number_counts_nothing() -> None:
    vector = ranking(0.9, float("nan"), 0.5)

    fused = dict((c.id, score) for c, score in fuse_scores((vector, 1.0), head=30))

    assert fused[1] == pytest.approx(1.0)
    assert fused[2] == pytest.approx(0.0)


def test_an_unknown_fusion_method_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown fusion method"):
        Fusion(1.0, 1.0, 1.0, method="score")  # type: ignore[arg-type]


def test_a_clear_match_by_words_outranks_a_crowd_of_close_vectors() -> None:
    """Rank fusion gives each list's second the same, however far behind its first it
    is; score fusion does not. Turn 7's words match far better than any other's (BM25
    18 against 2) and its vector is third of six alike: it comes first by scores, while
    by ranks turn 1, first of the alike vectors and a distant second by words, wins."""
    vector = [
        Candidate("chunk", pk, value)
        for pk, value in ((1, 0.52), (2, 0.515), (7, 0.51), (4, 0.505), (5, 0.50), (6, 0.49))
    ]
    words = [Candidate("chunk", pk, value) for pk, value in ((7, 18.0), (1, 2.0), (8, 1.9))]

    assert order(fuse_scores((vector, 1.0), (words, 1.0), head=30))[0] == 7
    assert order(fuse((vector, 1.0), (words, 1.0), k=10))[0] == 1


def test_the_first_hits_do_not_depend_on_how_deep_the_lists_go() -> None:
    """An API caller asking for 100 hits gets lists 300 deep: scaled to the head, their
    first hits are those of a search for 10."""
    deep_vector = ranking(*[1.0 - n / 400 for n in range(300)])
    deep_words = ranking(*[40.0 - n / 10 for n in range(300)], first_id=151)

    shallow = fuse_scores((deep_vector[:30], 1.0), (deep_words[:30], 1.0), head=30)
    deep = fuse_scores((deep_vector, 1.0), (deep_words, 1.0), head=30)

    assert order(deep)[:10] == order(shallow)[:10]


def test_rankings_fuse_as_their_fusion_says() -> None:
    rankings = Rankings(vector=ranking(0.9, 0.8), turns=ranking(5.0, first_id=2), windows=[])

    by_scores = rankings.fused(Fusion(1.0, 1.0, 1.0, method="scores"))
    by_ranks = rankings.fused(Fusion(1.0, 1.0, 1.0, rrf_k=60))

    # Lists shorter than the head are scaled from 0: 0.8 of the best 0.9, and 5 of 5.
    assert [score for _, score in by_scores] == pytest.approx([0.8 / 0.9 + 1.0, 1.0])
    assert [score for _, score in by_ranks] == pytest.approx([1 / 62 + 1 / 61, 1 / 61])


def test_empty_and_single_rankings() -> None:
    assert fuse_scores(([], 1.0), head=30) == []
    [(only, score)] = fuse_scores((ranking(0.3), 2.0), head=30)
    assert (only.id, score) == (1, pytest.approx(2.0))
    alike = fuse_scores((ranking(0.4, 0.4, 0.4), 1.0), head=2)
    assert [score for _, score in alike] == pytest.approx([1.0, 1.0, 1.0])
