"""select_relevant_facts: which facts a question needs, and Facts-R without over-counting."""

from __future__ import annotations

import pytest

from apps.facts.extraction import select_relevant_facts

PROJECT = [
    ("user.favorites.crypto.1", "BTC"),
    ("user.favorites.crypto.2", "ETH"),
    ("user.favorites.crypto.3", "XMR"),
    ("user.favorites.color.1", "blue"),
    ("user.favorites.color.2", "green"),
    ("user.favorites.pie.1", "Pecan"),
    ("user.email", "jane@example.com"),
    ("user.email.work", "jane@acme.io"),
    ("user.dates.birthday", "1990-03-03"),
    ("user.location", "Berlin"),
    ("mentioned.person.john_smith", "John Smith"),
    ("mentioned.quantity.10_km", '{"amount":10,"unit":"km"}'),
]


def relevant(query: str, facts: list[tuple[str, str]] = PROJECT) -> tuple[list[str], int]:
    result = select_relevant_facts(query, facts)
    return [facts[i][0] for i in result.indices], result.topic_count


def test_a_ranked_list_counts_once_whatever_its_length() -> None:
    keys, count = relevant("What are my favorite cryptos?")
    assert keys == ["user.favorites.crypto.1", "user.favorites.crypto.2", "user.favorites.crypto.3"]
    assert count == 1


def test_favorite_alone_does_not_pull_in_every_list() -> None:
    """The word all ranked keys share is structural, not a topic."""
    assert relevant("what is my favorite crypto") == (
        ["user.favorites.crypto.1", "user.favorites.crypto.2", "user.favorites.crypto.3"],
        1,
    )
    assert relevant("what are my favorites?") == ([], 0)


def test_unrelated_facts_never_count_however_many_the_project_holds() -> None:
    many = PROJECT + [(f"user.favorites.topic{i}.1", f"value {i}") for i in range(2_000)]
    assert relevant("what is my #1 crypto?", many)[1] == 1
    assert relevant("tell me a joke", many) == ([], 0)


def test_a_value_named_in_the_question_brings_its_whole_list() -> None:
    keys, count = relevant("Where does BTC rank for me?")
    assert keys == ["user.favorites.crypto.1", "user.favorites.crypto.2", "user.favorites.crypto.3"]
    assert count == 1


def test_two_topics_count_two() -> None:
    keys, count = relevant("my favorite color and my favorite pie?")
    assert keys == ["user.favorites.color.1", "user.favorites.color.2", "user.favorites.pie.1"]
    assert count == 2


@pytest.mark.parametrize(
    ("query", "keys"),
    [
        ("what's my e-mail address?", ["user.email", "user.email.work"]),
        ("what's my work email", ["user.email", "user.email.work"]),
        ("when was I born?", ["user.dates.birthday"]),
        ("where do I live these days?", ["user.location"]),
        ("what do you know about John?", ["mentioned.person.john_smith"]),
        ("how many km did I run", ["mentioned.quantity.10_km"]),
        ("what colours do I like", ["user.favorites.color.1", "user.favorites.color.2"]),
    ],
)
def test_relevance_by_topic_words(query: str, keys: list[str]) -> None:
    assert relevant(query)[0] == keys


@pytest.mark.parametrize(
    "query", ["", "   ", "?", "what do you know?", "#1", "my top 3", "ok thanks"]
)
def test_questions_without_content_select_nothing(query: str) -> None:
    assert relevant(query) == ([], 0)


def test_rank_numbers_in_the_question_do_not_match_values() -> None:
    facts = [("user.favorites.number.1", "3"), ("user.favorites.crypto.3", "SOL")]
    assert relevant("what is my #3 crypto", facts) == (["user.favorites.crypto.3"], 1)


def test_short_or_common_values_do_not_match_by_accident() -> None:
    facts = [("user.favorites.movie.1", "Up"), ("user.favorites.crypto.1", "BTC")]
    assert relevant("what's up?", facts) == ([], 0)


def test_result_order_follows_the_input_and_topics_are_sorted() -> None:
    facts = [
        ("user.favorites.pie.1", "Pecan"),
        ("user.email", "a@b.io"),
        ("user.favorites.pie.2", "Apple"),
    ]
    result = select_relevant_facts("my pies and my email", facts)
    assert result.indices == (0, 1, 2)
    assert result.topics == ("user.email", "user.favorites.pie")
