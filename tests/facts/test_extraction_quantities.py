"""Quantities with units and the entity phrase rules."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from apps.facts.extraction import extract_facts

NOW = datetime(2025, 6, 11, 10, 0, tzinfo=UTC)


def quantities(text: str) -> list[tuple[str, dict[str, object]]]:
    facts = extract_facts(text, now=NOW).facts
    return [(f.key, json.loads(f.value)) for f in facts if f.kind == "quantity"]


@pytest.mark.parametrize(
    ("text", "amount", "unit"),
    [
        ("it weighs 5 kg", 5, "kg"),
        ("it weighs 5kg", 5, "kg"),
        ("a 10 km run", 10, "km"),
        ("costs $300", 300, "USD"),
        ("costs $1,200.50", 1200.5, "USD"),
        ("costs €40", 40, "EUR"),
        ("costs £20", 20, "GBP"),
        ("costs 50 euros", 50, "EUR"),
        ("costs $2.5k", 2500, "USD"),
        ("took 3.5 hours", 3.5, "h"),
        ("took 45 min", 45, "min"),
        ("ran 3 miles", 3, "mi"),
        ("lost 10 pounds", 10, "lb"),
        ("drank 2 litres", 2, "L"),
        ("a 20% discount", 20, "%"),
        ("it is 21 °C", 21, "°C"),
        ("a 512 GB disk", 512, "GB"),
        ("slept 3 days straight", 3, "day"),
    ],
)
def test_quantity_forms(text: str, amount: float, unit: str) -> None:
    ((_, value),) = quantities(text)
    assert value == {"amount": amount, "unit": unit}


@pytest.mark.parametrize(
    "text", ["I have 2 cats", "5 M people", "version 2.5", "room 101", "#5 kg"]
)
def test_not_quantities(text: str) -> None:
    assert quantities(text) == []


def test_value_is_canonical_json() -> None:
    (fact,) = extract_facts("My budget is $300", now=NOW).facts
    assert (fact.key, fact.value, fact.value_type) == (
        "user.quantities.budget",
        '{"amount":300,"unit":"USD"}',
        "json",
    )


def test_quantity_keys() -> None:
    assert [key for key, _ in quantities("I weigh 80 kg and ran 10 km; the trip is 300 km")] == [
        "user.quantities.weight",
        "mentioned.quantity.10_km",
        "quantities.trip",
    ]


def test_in_n_days_is_a_date_not_a_quantity() -> None:
    facts = extract_facts("my exam is in 3 days", now=NOW).facts
    assert [(f.kind, f.value) for f in facts] == [("date", "2025-06-14")]


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("My name is Peter Parker", "user.name", "Peter Parker"),
        ("call me Ishmael", "user.name", "Ishmael"),
        ("I live in New York City", "user.location", "New York City"),
        ("I just moved to Berlin", "user.location", "Berlin"),
        ("I'm based in the Netherlands", "user.location", "Netherlands"),
        ("I'm from Lisbon", "user.origin", "Lisbon"),
        ("I work for Acme Corp", "user.employer", "Acme Corp"),
        ("my mom Linda called", "user.relations.mother", "Linda"),
        ("My husband's name is Tom", "user.relations.husband", "Tom"),
    ],
)
def test_entity_phrases(text: str, key: str, value: str) -> None:
    facts = {f.key: f.value for f in extract_facts(text, now=NOW).facts}
    assert facts == {key: value}


@pytest.mark.parametrize(
    "text",
    ["I live in a small flat", "I work at home", "call me tomorrow", "my dad is American"],
)
def test_entity_phrases_need_a_name(text: str) -> None:
    assert [f for f in extract_facts(text, now=NOW).facts if f.kind == "entity"] == []
