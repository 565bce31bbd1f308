"""resolve_topic: the strict order of seeds/001 §1.2.2, and topic names."""

from __future__ import annotations

import pytest

from apps.facts.extraction import TopicResolution, normalize_topic, resolve_topic


@pytest.mark.parametrize(
    ("raw", "topic"),
    [
        ("cryptos", "crypto"),
        ("cryptocurrencies", "crypto"),
        ("colours", "color"),
        ("candies", "candy"),
        ("pies", "pie"),
        ("movies", "movie"),
        ("boxes", "box"),
        ("TV shows", "tv"),
        ("ice cream flavors", "ice_cream_flavor"),
        ("kind of music", "music"),
        ("crypto right now", "crypto"),
        ("city in Europe", "city"),
        ("thing about Paris", None),
        ("", None),
        ("is", None),
    ],
)
def test_normalize_topic(raw: str, topic: str | None) -> None:
    assert normalize_topic(raw) == topic


def test_step_1_explicit_topic_wins_over_everything() -> None:
    resolution = resolve_topic(
        "make SOL my #3 in colors",
        explicit_topic="Cryptos",
        existing_topics=("crypto", "color"),
        recent_topic="color",
    )
    assert resolution == TopicResolution("crypto", (), "explicit")


def test_step_1_a_named_topic_phrase_in_the_message() -> None:
    resolution = resolve_topic("for my favorite pies: make pecan #1", existing_topics=("crypto",))
    assert resolution == TopicResolution("pie", (), "explicit")


def test_step_1_two_named_topics_are_ambiguous() -> None:
    resolution = resolve_topic("my favorite pies and my favorite candies", existing_topics=())
    assert resolution.ambiguous
    assert resolution.candidates == ("candy", "pie")


def test_step_2_anchors_to_the_one_existing_list_the_message_mentions() -> None:
    resolution = resolve_topic(
        "Crypto update: make SOL my #3", existing_topics=("crypto", "color"), recent_topic="color"
    )
    assert resolution == TopicResolution("crypto", (), "anchored")


def test_step_2_anchoring_understands_plurals_and_multiword_topics() -> None:
    resolution = resolve_topic("new tv shows order", existing_topics=("tv_show", "color"))
    assert resolution.topic == "tv_show"
    assert resolve_topic("about candies", existing_topics=("candy", "pie")).topic == "candy"


def test_step_3_recent_topic_when_nothing_is_named() -> None:
    resolution = resolve_topic(
        "make SOL my #3", existing_topics=("crypto", "color"), recent_topic="crypto"
    )
    assert resolution == TopicResolution("crypto", (), "recent")


def test_step_3_a_single_list_is_the_recent_one() -> None:
    assert resolve_topic("make SOL my #3", existing_topics=("crypto",)).topic == "crypto"


def test_step_4_keyword_map_only_when_recency_says_nothing() -> None:
    resolution = resolve_topic("Candy time: make Twix my #1", existing_topics=())
    assert resolution == TopicResolution("candy", (), "keyword")


def test_no_clue_with_several_lists_is_ambiguous_between_them() -> None:
    resolution = resolve_topic("make SOL my #3", existing_topics=("crypto", "color", "pie"))
    assert resolution.topic is None
    assert resolution.candidates == ("color", "crypto", "pie")
    assert resolution.ambiguous


def test_no_clue_and_no_lists_is_unresolvable() -> None:
    resolution = resolve_topic("make SOL my #3", existing_topics=())
    assert resolution == TopicResolution(None)
    assert not resolution.ambiguous


def test_values_never_name_a_topic() -> None:
    """ "pecan pie" as a value must not anchor the list ``pie``; never infer from values."""
    text = "make pecan pie my #1"
    value = (text.index("pecan"), text.index(" my"))
    resolution = resolve_topic(text, existing_topics=("pie", "dessert"), ignore_spans=[value])
    assert resolution.ambiguous
    assert resolution.candidates == ("dessert", "pie")


def test_stored_names_are_returned_exactly_as_stored() -> None:
    assert resolve_topic("my colours", existing_topics=("Colors",)).topic == "Colors"
    assert (
        resolve_topic("x", explicit_topic="colour", existing_topics=("colors",)).topic == "colors"
    )
