"""Reading the stretch of time a question names (``apps.indexing.search._periods``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from apps.indexing.search._periods import period_named

# A Wednesday.
NOW = datetime(2026, 11, 25, 15, 30, tzinfo=UTC)


def span(query: str, now: datetime = NOW) -> tuple[str, str] | None:
    period = period_named(query, now=now)
    if period is None:
        return None
    return period.start.date().isoformat(), period.end.date().isoformat()


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("What did I splash out on in November 2023?", ("2023-11-01", "2023-12-01")),
        ("where did I go in Dec 2022", ("2022-12-01", "2023-01-01")),
        ("which band did I see in concert in June, 2024?", ("2024-06-01", "2024-07-01")),
        ("what happened on 14 March 2023?", ("2023-03-14", "2023-03-15")),
        ("what happened on the 3rd of May 2021", ("2021-05-03", "2021-05-04")),
        ("what did we say on March 14th, 2023", ("2023-03-14", "2023-03-15")),
        ("notes from 2024-02-29", ("2024-02-29", "2024-03-01")),
        ("Who visited us in 2022?", ("2022-01-01", "2023-01-01")),
        ("what did I read during 2019", ("2019-01-01", "2020-01-01")),
        ("the summer of 2023", ("2023-01-01", "2024-01-01")),
        ("nul \x00 in March 2024 \ud800", ("2024-03-01", "2024-04-01")),  # hostile input
        ("what happened in 2022 was odd", ("2022-01-01", "2023-01-01")),
        ("what did I cook yesterday", ("2026-11-24", "2026-11-25")),
        ("what did I say today?", ("2026-11-25", "2026-11-26")),
        ("what did I buy last week", ("2026-11-16", "2026-11-23")),
        ("anything this week?", ("2026-11-23", "2026-11-30")),
        ("what did I plan last month", ("2026-10-01", "2026-11-01")),
        ("what happened this month", ("2026-11-01", "2026-12-01")),
        ("books I finished last year", ("2025-01-01", "2026-01-01")),
        # "past" counts back from today; "last" and "previous" name the calendar unit.
        ("what did I cook in the past week", ("2026-11-19", "2026-11-26")),
        ("my runs over the past month", ("2026-10-27", "2026-11-26")),
        ("what changed in the past year", ("2025-11-26", "2026-11-26")),
        ("the previous month", ("2026-10-01", "2026-11-01")),
        ("this year's trips", ("2026-01-01", "2027-01-01")),
        # A month without its year: the latest one that has begun.
        ("where did I go in March?", ("2026-03-01", "2026-04-01")),
        ("what did I do in December", ("2025-12-01", "2026-01-01")),
        ("what did I do in November", ("2026-11-01", "2026-12-01")),
        ("what did we eat last November", ("2025-11-01", "2025-12-01")),
        ("where are we going this December", ("2026-12-01", "2027-01-01")),
    ],
)
def test_the_period_a_question_names(query: str, expected: tuple[str, str]) -> None:
    assert span(query) == expected


@pytest.mark.parametrize(
    "query",
    [
        "What did I splash out on recently?",
        "May I ask what my shoe size is?",
        "Which club does Paloma support?",
        "I have 2023 reasons",  # a number, not a year named as a time
        "a list of 2023 reasons",
        "out of 2000 rows",
        "explain it in 1999 words",
        "Why this may fail",  # "may" the verb; only "May" is the month
        "what did I do in may",
        # Unicode letters that case-fold onto ASCII ones are not read as them (they once
        # matched the patterns, then failed the month names' lookup).
        "aprıl 2024",
        "ſept 2024",
        "what did I say yeſterday",
        "thıs week",
        "in 99999999999",
        "",
    ],
)
def test_no_period_when_none_is_named(query: str) -> None:
    assert span(query) is None


def test_a_day_that_does_not_exist_still_names_its_month() -> None:
    assert span("what happened on 31 February 2023") == ("2023-02-01", "2023-03-01")


def test_the_most_precise_period_wins() -> None:
    assert span("in 2023, what happened on 14 March 2023?") == ("2023-03-14", "2023-03-15")


def test_days_begin_at_midnight_in_the_timezone_of_now() -> None:
    tokyo = timezone(timedelta(hours=9))
    period = period_named("what did I do yesterday", now=NOW.astimezone(tokyo))
    assert period is not None
    assert period.start == datetime(2026, 11, 25, tzinfo=tokyo)
    assert period.words == "yesterday"
