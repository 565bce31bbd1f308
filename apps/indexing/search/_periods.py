"""When a question names a time: "in March 2023", "last month", "on 14 May 2024".

The words are read as every date in Cairn is (``apps.core.dates``: the month words, which
year "last May" means, month arithmetic); this module's grammar is a question's.

A person asks their memory "what did I splash out on in November 2023?" and means what
they said then, whatever words they used. ``period_named`` reads the stretch of time a
query names, if any; search then ranks the chat turns said in it as a list of their own
(``search.hybrid_rankings``). Pure and offline: English words for dates, the reading of
"last"/"this" relative to ``now`` in its own timezone; no guessing from words alone
("recently" names no period).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from apps.core.dates import MONTH_WORD, add_months, month_number, month_year

_MONTH = rf"(?P<month>{MONTH_WORD})\.?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"

# A year named as a time, not a count: "in 2023" but not "in 2023 words", "2,000 rows".
_NOT_A_COUNT = r"(?![ \t]+(?!(?:was|has|is|does)\b)[a-z]+s\b)"

# Most precise first: a day, then a month of a year, then a month or a year alone. ASCII
# only: with Unicode case folding "ı" would match "i" and "ſ" match "s" ("aprıl 2024"),
# which the month names below would then not know.
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, re.IGNORECASE | re.ASCII))
    for kind, pattern in (
        ("day", r"\b(?P<year>(?:19|20)\d\d)-(?P<month>[01]\d)-(?P<day>[0-3]\d)\b"),
        ("day", rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b"),
        ("day", rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b"),
        ("month", rf"\b{_MONTH},?\s+{_YEAR}\b"),
        ("relative", r"\b(?P<which>last|this|past|previous)\s+(?P<unit>week|month|year)\b"),
        ("relative", r"\b(?P<which>yesterday|today)\b"),
        # A month without its year only after a word that makes it a time ("in March",
        # "last May"); "may" is also a verb ("why this may fail"): see _period.
        ("bare month", rf"\b(?P<which>in|during|last|this)\s+{_MONTH}(?!\w)"),
        ("year", rf"\b(?:in|during|throughout|of)\s+{_YEAR}\b{_NOT_A_COUNT}"),
    )
)


@dataclass(frozen=True)
class Period:
    """From ``start`` (inclusive) to ``end`` (exclusive), aware datetimes; ``words`` is the
    part of the query that named it."""

    start: datetime
    end: datetime
    words: str


def period_named(query: str, *, now: datetime) -> Period | None:
    """The most precise stretch of time ``query`` names, read in ``now``'s timezone; None
    when it names none. A day that does not exist ("31 February 2023") still names its
    month."""
    for kind, pattern in _PATTERNS:  # most precise first
        for match in pattern.finditer(query):
            period = _period(kind, match, now)
            if period is not None:
                return period
    return None


def _period(kind: str, match: re.Match[str], now: datetime) -> Period | None:
    groups = match.groupdict()
    words = match.group(0)
    try:
        if kind == "day":
            start = date(int(groups["year"]), month_number(groups["month"]), int(groups["day"]))
            return _span(now, start, start + timedelta(days=1), words)
        if kind == "month":
            return _month_span(now, int(groups["year"]), month_number(groups["month"]), words)
        if kind == "year":
            year = int(groups["year"])
            return _span(now, date(year, 1, 1), date(year + 1, 1, 1), words)
        if kind == "bare month":
            if groups["month"].lower() == "may" and groups["month"] != "May":
                return None  # only a capital "May" is the month here
            month = month_number(groups["month"])
            year = month_year(now.date(), month, groups["which"].lower())
            return _month_span(now, year, month, words)
        return _relative(now, groups["which"].lower(), (groups.get("unit") or "").lower(), words)
    except (ValueError, KeyError):
        return None


def _relative(now: datetime, which: str, unit: str, words: str) -> Period:
    today = now.date()
    if which in ("today", "yesterday"):
        day = today - timedelta(days=1 if which == "yesterday" else 0)
        return _span(now, day, day + timedelta(days=1), words)
    if which == "past":  # "the past week": the seven days up to today, not last week
        length = {"week": timedelta(weeks=1), "month": timedelta(days=30)}.get(unit)
        start = today - length if length else today.replace(year=today.year - 1)
        return _span(now, start + timedelta(days=1), today + timedelta(days=1), words)
    back = which != "this"  # "last" and "previous" mean the one before
    if unit == "week":  # weeks start on Monday (ISO 8601)
        monday = today - timedelta(days=today.weekday()) - timedelta(weeks=int(back))
        return _span(now, monday, monday + timedelta(weeks=1), words)
    if unit == "month":
        first = add_months(today.replace(day=1), -int(back))
        return _month_span(now, first.year, first.month, words)
    year = today.year - int(back)
    return _span(now, date(year, 1, 1), date(year + 1, 1, 1), words)


def _month_span(now: datetime, year: int, month: int, words: str) -> Period:
    first = date(year, month, 1)
    return _span(now, first, add_months(first, 1), words)


def _span(now: datetime, start: date, end: date, words: str) -> Period:
    def midnight(day: date) -> datetime:
        return datetime(day.year, day.month, day.day, tzinfo=now.tzinfo)

    return Period(midnight(start), midnight(end), words)
