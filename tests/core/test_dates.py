"""The one reading of English date words (``apps.core.dates``) that facts and search share."""

from __future__ import annotations

from datetime import date

import pytest

from apps.core.dates import add_months, month_number, month_year

TODAY = date(2026, 5, 20)  # a day in May


@pytest.mark.parametrize(
    ("month", "which", "year"),
    [
        (5, "this", 2026),
        (12, "this", 2026),
        (3, "last", 2026),
        (5, "last", 2025),  # "last May", said in May: the one before
        (8, "last", 2025),
        (8, "next", 2026),
        (5, "next", 2027),
        (3, "next", 2027),
        (5, "in", 2026),  # "in May", said in May: this one, begun
        (8, "during", 2025),
    ],
)
def test_the_year_of_the_month_a_phrase_names(month: int, which: str, year: int) -> None:
    assert month_year(TODAY, month, which) == year


@pytest.mark.parametrize(
    ("word", "number"), [("March", 3), ("mar.", 3), ("Sept", 9), ("sep", 9), ("03", 3)]
)
def test_every_way_a_month_is_written(word: str, number: int) -> None:
    assert month_number(word) == number


def test_months_are_added_on_the_calendar_and_clamped_to_its_end() -> None:
    assert add_months(date(2026, 1, 31), 1) == date(2026, 2, 28)
    assert add_months(date(2024, 1, 31), 1) == date(2024, 2, 29)
    assert add_months(date(2026, 12, 15), 1) == date(2027, 1, 15)
    assert add_months(date(2026, 1, 1), -1) == date(2025, 12, 1)
