"""Dates: absolute forms and relative ones resolved against the message time."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from apps.facts.extraction import extract_facts

WEDNESDAY = datetime(2025, 6, 11, 10, 0, tzinfo=UTC)


def dates(text: str, now: datetime = WEDNESDAY) -> list[str]:
    return [f.value for f in extract_facts(text, now=now).facts if f.kind == "date"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("on 2025-03-03", "2025-03-03"),
        ("on March 3, 2025", "2025-03-03"),
        ("on Mar 3rd 2025", "2025-03-03"),
        ("on 3 March 2025", "2025-03-03"),
        ("on the 3rd of March 2025", "2025-03-03"),
        ("on 03/04/2025", "2025-03-04"),  # month/day, as documented
        ("on 25/12/2025", "2025-12-25"),  # a first number above 12 can only be a day
        ("on March 3", "2025-03-03"),  # no year: the year of now
        ("in March 2025", "2025-03"),
        ("tomorrow", "2025-06-12"),
        ("yesterday", "2025-06-10"),
        ("the day after tomorrow", "2025-06-13"),
        ("the day before yesterday", "2025-06-09"),
        ("next Friday", "2025-06-13"),
        ("this Friday", "2025-06-13"),
        ("last Friday", "2025-06-06"),
        ("next Wednesday", "2025-06-18"),  # strictly after today
        ("last Wednesday", "2025-06-04"),
        ("last May", "2025-05"),
        ("last June", "2024-06"),  # the current month is June: the previous one
        ("next June", "2026-06"),
        ("next May", "2026-05"),
        ("next month", "2025-07"),
        ("last year", "2024"),
        ("in 3 days", "2025-06-14"),
        ("in two weeks", "2025-06-25"),
        ("in a month", "2025-07-11"),
        ("2 weeks ago", "2025-05-28"),
        ("3 years from now", "2028-06-11"),
    ],
)
def test_date_forms(text: str, value: str) -> None:
    assert dates(f"it was {text}") == [value]


def test_months_clamp_to_the_end_of_the_month() -> None:
    assert dates("due in a month", now=datetime(2025, 1, 31, tzinfo=UTC)) == ["2025-02-28"]
    assert dates("due in a year", now=datetime(2024, 2, 29, tzinfo=UTC)) == ["2025-02-28"]


def test_year_boundaries() -> None:
    new_year = datetime(2025, 1, 1, 9, tzinfo=UTC)
    assert dates("we spoke yesterday", now=new_year) == ["2024-12-31"]
    assert dates("back next month", now=datetime(2025, 12, 5, tzinfo=UTC)) == ["2026-01"]


@pytest.mark.parametrize(
    "text",
    [
        "on February 30, 2025",
        "on 13/13/2025",
        "this may take a while",
        "I swim on Fridays",
        "see you next week",
        "at 10:30",
        "today is fine",
    ],
)
def test_not_dates(text: str) -> None:
    assert dates(text) == []


def test_keys_follow_the_label() -> None:
    facts = extract_facts(
        "My exam is next Friday. The launch is in 3 days. We met last May. "
        "I was born on 1 May 1990.",
        now=WEDNESDAY,
    ).facts
    assert [(f.key, f.value, f.value_type) for f in facts] == [
        ("user.dates.exam", "2025-06-13", "date"),
        ("dates.launch", "2025-06-14", "date"),
        ("mentioned.date.2025-05", "2025-05", "date"),
        ("user.dates.birthday", "1990-05-01", "date"),
    ]


def test_a_labelled_today_is_kept_a_bare_one_is_not() -> None:
    facts = extract_facts("My exam is today. Today was long.", now=WEDNESDAY).facts
    assert [(f.key, f.value) for f in facts] == [("user.dates.exam", "2025-06-11")]


def test_naive_now_is_accepted() -> None:
    assert dates("tomorrow", now=datetime(2025, 6, 11, 23, 59)) == ["2025-06-12"]
