"""The memory actions' input schemas: one set of bounds and words for every door."""

from __future__ import annotations

import pytest

from apps.claims.models import ClaimType
from apps.memory.errors import MemoryRefusal
from apps.memory.schemas import (
    CLAIM_TYPES,
    ClaimRef,
    ListInput,
    RememberInput,
    SearchInput,
    parse,
)


def test_claim_types_are_the_claims_model_choices() -> None:
    assert tuple(ClaimType.values) == CLAIM_TYPES


def test_values_are_read_as_people_write_them() -> None:
    assert parse(ClaimRef, {"number": "#42"}).number == 42
    assert parse(ListInput, {"claim_type": "shopping list"}).claim_type == "shopping_item"
    assert parse(ListInput, {"claim_type": "Goals"}).claim_type == "goal"
    remembered = parse(RememberInput, {"statement": " I like tea ", "claim_types": "preference"})
    assert (remembered.statement, remembered.claim_types) == ("I like tea", ("preference",))


@pytest.mark.parametrize(
    ("schema", "data", "field", "words"),
    [
        (ClaimRef, {"number": True}, "number", "Must be a number, not true or false."),
        (ClaimRef, {"number": 0}, "number", "Input should be greater than or equal to 1."),
        (ClaimRef, {}, "number", "This field is required."),
        (
            RememberInput,
            {"statement": "x", "claim_types": ["fact", "gossip"]},
            "claim_types[1]",
            "Unknown claim type 'gossip'; choose from " + ", ".join(CLAIM_TYPES) + ".",
        ),
        (RememberInput, {"statement": "x", "mood": "sunny"}, "mood", "Unknown field."),
        (
            SearchInput,
            {"query": "tea", "limit": 51},
            "limit",
            "Input should be less than or equal to 50.",
        ),
        (
            SearchInput,
            {"query": "tea", "kinds": ["web"]},
            "kinds[0]",
            "Input should be 'claim', 'document' or 'message'.",
        ),
    ],
)
def test_a_bad_value_is_one_refusal_naming_its_field(
    schema: type, data: dict[str, object], field: str, words: str
) -> None:
    with pytest.raises(MemoryRefusal) as refused:
        parse(schema, data)

    assert (refused.value.field, refused.value.text) == (field, words)
    assert refused.value.message_dict == {field: [words]}  # as the REST API answers it
