from __future__ import annotations

import re

import pytest

from apps.claims.friendly_ids import (
    STOP_WORDS,
    generate_friendly_id,
    meaningful_words,
    validate_friendly_id,
)
from apps.contexts.reference_parser import parse_references


def test_the_stop_word_list_is_broad() -> None:
    assert len(STOP_WORDS) >= 80


@pytest.mark.parametrize(
    ("text", "stem"),
    [
        ("I prefer morning workouts", "prefer_morning_workouts"),
        ("My favorite color is blue", "favorite_color_blue"),
        ("Health Goals", "health_goals"),
        ("I'm allergic to peanuts and shellfish", "allergic_peanuts_shellfish"),
        ("Café au lait every day", "cafe_au_lait"),
    ],
)
def test_one_to_three_meaningful_words_and_four_hex_only_for_a_collision(
    text: str, stem: str
) -> None:
    assert generate_friendly_id(text) == stem
    assert re.fullmatch(rf"{stem}_[0-9a-f]{{4}}", generate_friendly_id(text, suffix="a3f2"))


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("context", "project_alpha"),
        ("entity", "project_alpha_entity"),
        ("tag", "project_alpha_tag"),
    ],
)
def test_entities_and_tags_get_their_suffix_contexts_none(kind: str, expected: str) -> None:
    assert generate_friendly_id("Project Alpha", kind=kind) == expected


@pytest.mark.parametrize(
    "text",
    ["", "the and of", "!!!", "42 is the answer", "x" * 500, "日本語のテキスト", "a " * 1000],
)
def test_every_text_gives_a_valid_parseable_id_of_at_most_60_chars(text: str) -> None:
    friendly_id = generate_friendly_id(text)

    assert len(friendly_id) <= 60
    assert validate_friendly_id(friendly_id) is None
    parsed = parse_references(f"see @{friendly_id} please")
    assert [ref.identifier for ref in parsed.references] == [friendly_id]


def test_meaningful_words_drop_stop_words() -> None:
    assert meaningful_words("I really do prefer the mornings") == ["prefer", "mornings"]


@pytest.mark.parametrize(
    "value",
    [
        "ab",
        "1abc",
        "Has_Upper",
        "with space",
        "trailing_",
        "memory",
        "claim_12",
        "x" * 61,
        "mine_context",
        "me@x",
    ],
)
def test_invalid_chosen_ids_are_refused_with_a_reason(value: str) -> None:
    assert validate_friendly_id(value, kind="claim")


def test_a_context_may_choose_a_short_id() -> None:
    assert validate_friendly_id("ssdva", kind="context") is None


@pytest.mark.parametrize("suffix", ["1234", "0000", "9a9a"])
def test_a_generated_id_never_reads_as_a_claim_number(suffix: str) -> None:
    friendly_id = generate_friendly_id("Claim", suffix=suffix)

    assert validate_friendly_id(friendly_id) is None
    assert not re.fullmatch(r"claim_\d+", friendly_id)
