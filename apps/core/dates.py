"""How Cairn reads English date words: one reader for every app that meets them.

Two readers stand on it: the facts a message states ("my exam is on 3 March": a date,
``facts.extraction.dates``) and the stretch of time a question names ("what did I buy in
May 2024?": a period, ``indexing.search``). Each has its own grammar for what it looks for;
the words, the month a name means, and the calendar arithmetic are this module's alone.

Pure and offline; ``now``/``today`` always come from the caller.
"""

from __future__ import annotations

import calendar
from datetime import date

MONTH_NAMES = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)  # fmt: skip
# Every way a month is written: its name, its first three letters, and "sept".
MONTHS: dict[str, int] = (
    {name: number for number, name in enumerate(MONTH_NAMES, start=1)}
    | {name[:3]: number for number, name in enumerate(MONTH_NAMES, start=1)}
    | {"sept": 9}
)
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

# A regular expression alternative of the month words, longest first (so "sept" is not
# read as "sep"), and of the full names only (with "may", as short as its abbreviation).
MONTH_WORD = "|".join(sorted(MONTHS, key=len, reverse=True))
FULL_MONTH_WORD = "|".join(
    sorted((name for name in MONTHS if len(name) > 3 or name == "may"), key=len, reverse=True)
)


def month_number(word: str) -> int:
    """1 to 12 for a month word ("March", "mar.", "Sept"); a number as written ("03")."""
    word = word.lower().rstrip(".")
    return int(word) if word.isdigit() else MONTHS[word]


def month_year(today: date, month: int, which: str) -> int:
    """The year of the month a phrase names, read from ``today``: "this May" is this
    year's; "last May" the latest before the current month; "next May" the first after
    it; "in May" (or "during May") the latest that has begun, the current month's
    included."""
    if which == "this":
        return today.year
    if which in ("last", "past"):
        return today.year if month < today.month else today.year - 1
    if which == "next":
        return today.year if month > today.month else today.year + 1
    return today.year if month <= today.month else today.year - 1


def add_months(day: date, months: int) -> date:
    """``day`` moved by whole months, its day of the month kept or clamped to the month's
    end (31 January + 1 month = 28 or 29 February)."""
    index = day.month - 1 + months
    year, month = day.year + index // 12, index % 12 + 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))
