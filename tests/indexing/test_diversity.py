"""The parts of a search that serve questions asking for several things (issue 31): telling
such a question apart, and re-ordering hits so that near-copies give way."""

from __future__ import annotations

import numpy as np
import pytest

from apps.indexing.search._aggregation import asks_for_several, fusion_for
from apps.indexing.search._diversity import cosines, diversified
from apps.indexing.search._fusion import Fusion
from apps.indexing.search._queries import Candidate


@pytest.mark.parametrize(
    "question",
    [
        "Which places has Ilse travelled to?",
        "What activities does she do with her kids?",
        "Which cities has he visited?",
        "Where has Tomás worked?",
        "What are the names of my sister's cats?",
        "How many times did we go to the dentist last year?",
        "List the books I read in 2023",
        "remind me of all the restaurants we liked",
        "Who were the guests at the wedding?",
    ],
)
def test_questions_asking_for_several_things(question: str) -> None:
    assert asks_for_several(question)


@pytest.mark.parametrize(
    "question",
    [
        "What is my rent?",
        "Which football club does Paloma support?",
        "Where does Clemens live?",
        "Who teaches the pottery class I went to?",
        "When did I visit Lisbon?",
        "Would Ilse enjoy a hill walking holiday?",
        "What does Marcus think about it?",  # a name ending in s is no plural
        "Is a bookshop voucher a good gift for my parents?",  # asks yes or no
    ],
)
def test_questions_asking_for_one_thing(question: str) -> None:
    assert not asks_for_several(question)


def test_only_a_question_asking_for_several_things_reads_deeper() -> None:
    fusion = Fusion(1.0, 0.5, 0.5, min_depth=30, several_depth=100)

    assert fusion_for("Which cities has he visited?", fusion).min_depth == 100
    assert fusion_for("What is my rent?", fusion) == fusion
    assert fusion_for("Which cities has he visited?", Fusion(1.0, 0.5, 0.5)).min_depth == 30


def unit(*values: float) -> np.ndarray:
    vector = np.array(values, dtype=np.float64)
    return vector / np.linalg.norm(vector)


# A trip told twice and two other trips, by (kind, id); scores best first.
VECTORS = {
    ("chunk", 1): unit(1, 0, 0),
    ("chunk", 2): unit(0.99, 0.1, 0),  # the first trip again
    ("chunk", 3): unit(0.5, 0.8, 0.2),
    ("chunk", 4): unit(0.3, 0.0, 0.95),
}
SCORED = [(1, 1.0), (2, 0.97), (3, 0.9), (4, 0.85)]


def order(
    weight: float,
    vectors: dict[tuple[str, object], np.ndarray] = VECTORS,
    limit: int | None = None,
) -> list[int]:
    return [
        pk
        for pk, _ in diversified(
            SCORED,
            key=lambda item: ("chunk", item[0]),
            score=lambda item: item[1],
            vectors=vectors,
            weight=weight,
            limit=limit,
        )
    ]


def test_a_near_copy_gives_way_to_hits_that_say_something_else() -> None:
    assert order(0.0) == [1, 2, 3, 4]
    assert order(0.2)[0] == 1
    assert order(0.2)[-1] == 2


def test_only_the_first_are_chosen_for_what_they_add_when_a_limit_is_given() -> None:
    assert order(0.2, limit=1) == [1, 2, 3, 4]
    assert order(0.2, limit=2)[:2] == order(0.2)[:2]


def test_the_best_hit_stays_first_and_a_hit_without_a_vector_is_like_none() -> None:
    without_copy = {key: vector for key, vector in VECTORS.items() if key != ("chunk", 2)}

    assert order(0.2, without_copy)[0] == 1
    assert order(0.2, without_copy)[1] == 2  # unlike any: its score alone places it


def test_cosines_are_read_from_the_vectors() -> None:
    [one, three] = cosines(
        [Candidate("chunk", 1, 0.0), Candidate("chunk", 3, 0.0), Candidate("claim", "x", 0.0)],
        VECTORS,
        np.array([2.0, 0.0, 0.0], dtype=np.float32),
    )

    assert (one.id, three.id) == (1, 3)
    assert one.value == pytest.approx(1.0)
    assert three.value == pytest.approx(VECTORS[("chunk", 3)][0])


def test_diversity_outside_its_range_is_refused() -> None:
    with pytest.raises(ValueError, match="diversity"):
        Fusion(1.0, 1.0, 1.0, diversity=1.0)
