"""Dates, absolute and relative, resolved against the message's time.

Values are ISO 8601 at the precision stated: ``2025-03-03`` for a day, ``2025-05`` for
a month ("last May", "next month"), ``2026`` for a year ("next year"). Rules:

* absolute: ``2025-03-03``; "March 3, 2025" / "Mar 3rd 2025"; "3 March 2025" / "3rd of
  March"; ``03/04/2025`` is **month/day/year** (US order), except that a first number
  above 12 can only be a day (``25/12/2025`` is 25 December); "March 2025" is a month.
  A day and month without a year ("March 3") take the year of ``now``.
* relative to ``now``'s calendar date: today, tonight, tomorrow, yesterday, the day
  after tomorrow, the day before yesterday; "next Friday" is the first Friday strictly
  after today, "this Friday" the first on or after today, "last Friday" the last
  strictly before; "next/last month", "next/last year"; "next/last/this May" — "last
  May" is the most recent May strictly before the current month, "next May" the first
  strictly after; "in 3 days", "in two weeks", "a month ago", "3 years from now"
  (months and years keep the day, clamped to the month's end).
* not dates: a bare weekday ("on Friday" — often a habit, "I swim on Fridays"), "next
  week", times of day. A bare "today" or "tonight" is not stored either: it says
  nothing the message's own timestamp does not ("my exam is today" is stored).
"""

from __future__ import annotations

import calendar
import re
from datetime import date, datetime, timedelta

from apps.core.dates import (
    FULL_MONTH_WORD,
    MONTH_WORD,
    WEEKDAYS,
    add_months,
    month_number,
    month_year,
)

from .keys import labelled_key, mention_key
from .labels import label_before
from .text import SpanIndex
from .types import ExtractedFact, ValueType

# fmt: off
_COUNTS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2,
    "a couple": 2,
}
# fmt: on

_WEEKDAY = "|".join(WEEKDAYS)
_COUNT = r"\d{1,3}|a\s+couple(?:\s+of)?|an?|" + "|".join(
    w for w in _COUNTS if w.isalpha() and len(w) > 2
)
_UNIT = r"days?|weeks?|months?|years?"

DATE = re.compile(
    rf"(?P<iso>\b\d{{4}}-\d{{2}}-\d{{2}}\b)"
    rf"|(?P<slash>\b\d{{1,2}}/\d{{1,2}}/\d{{4}}\b)"
    rf"|\b(?P<mdy_m>{MONTH_WORD})\.?\s+(?P<mdy_d>\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(?P<mdy_y>\d{{4}})\b)?"
    rf"|\b(?P<dmy_d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<dmy_m>{MONTH_WORD})\b\.?"
    rf"(?:,?\s+(?P<dmy_y>\d{{4}})\b)?"
    rf"|\b(?P<my_m>{FULL_MONTH_WORD})\s+(?P<my_y>\d{{4}})\b"
    rf"|\b(?P<word>the\s+day\s+after\s+tomorrow|the\s+day\s+before\s+yesterday|today|tonight"
    rf"|tomorrow|yesterday)\b"
    rf"|\b(?P<wd_dir>next|this\s+coming|this|coming|last|past)\s+(?P<wd>{_WEEKDAY})\b"
    rf"|\b(?P<m_dir>next|this|last|past)\s+(?P<m_name>{FULL_MONTH_WORD})\b"
    rf"|\b(?P<u_dir>next|last|past)\s+(?P<u_unit>month|year)\b"
    rf"|\bin\s+(?P<in_n>{_COUNT})\s+(?P<in_unit>{_UNIT})\b"
    rf"|\b(?P<ago_n>{_COUNT})\s+(?P<ago_unit>{_UNIT})\s+(?P<ago_dir>ago|from\s+now|later)\b",
    re.IGNORECASE,
)
_BORN = re.compile(r"\bi\s+was\s+born\s+(?:on\s+|in\s+)?$", re.IGNORECASE)
_UNSTORED_BARE = frozenset({"today", "tonight"})


def _shift(today: date, count: int, unit: str) -> date:
    unit = unit.lower().rstrip("s")
    if unit == "day":
        return today + timedelta(days=count)
    if unit == "week":
        return today + timedelta(weeks=count)
    return add_months(today, count * (12 if unit == "year" else 1))


def _count(raw: str) -> int:
    raw = re.sub(r"\s+", " ", raw.lower())
    return int(raw) if raw.isdigit() else _COUNTS[raw]


def _resolve(m: re.Match[str], today: date) -> str | None:
    g = m.groupdict()
    try:
        if g["iso"]:
            return date.fromisoformat(g["iso"]).isoformat()
        if g["slash"]:
            first, second, year = (int(p) for p in g["slash"].split("/"))
            month, day = (second, first) if first > 12 else (first, second)
            return date(year, month, day).isoformat()
        if g["mdy_m"]:
            year = int(g["mdy_y"]) if g["mdy_y"] else today.year
            return date(year, month_number(g["mdy_m"]), int(g["mdy_d"])).isoformat()
        if g["dmy_m"]:
            year = int(g["dmy_y"]) if g["dmy_y"] else today.year
            return date(year, month_number(g["dmy_m"]), int(g["dmy_d"])).isoformat()
    except ValueError:  # "February 30", "13/13/2025": not a date
        return None
    if g["my_m"]:
        return f"{int(g['my_y']):04d}-{month_number(g['my_m']):02d}"
    if g["word"]:
        word = re.sub(r"\s+", " ", g["word"].lower())
        offset = {
            "the day after tomorrow": 2,
            "the day before yesterday": -2,
            "tomorrow": 1,
            "yesterday": -1,
        }.get(word, 0)
        return (today + timedelta(days=offset)).isoformat()
    if g["wd"]:
        return _weekday(today, WEEKDAYS.index(g["wd"].lower()), g["wd_dir"].lower()).isoformat()
    if g["m_name"]:
        month = month_number(g["m_name"])
        return f"{month_year(today, month, g['m_dir'].lower()):04d}-{month:02d}"
    if g["u_unit"]:
        step = 1 if g["u_dir"].lower() == "next" else -1
        if g["u_unit"].lower() == "year":
            return f"{today.year + step:04d}"
        return add_months(today.replace(day=1), step).isoformat()[:7]
    if g["in_n"]:
        return _shift(today, _count(g["in_n"]), g["in_unit"]).isoformat()
    sign = -1 if g["ago_dir"].lower() == "ago" else 1
    return _shift(today, sign * _count(g["ago_n"]), g["ago_unit"]).isoformat()


def _weekday(today: date, weekday: int, direction: str) -> date:
    ahead = (weekday - today.weekday()) % 7
    if direction in ("last", "past"):
        return today - timedelta(days=(today.weekday() - weekday) % 7 or 7)
    if direction.startswith("this") and "coming" not in direction:
        return today + timedelta(days=ahead)
    return today + timedelta(days=ahead or 7)


def find_dates(text: str, claimed: SpanIndex, now: datetime) -> list[ExtractedFact]:
    today = now.date()
    facts = []
    for match in DATE.finditer(text):
        if claimed.overlaps(match.span()):
            continue
        if match.group("m_name") == "may":
            continue  # "this may take a while": the month is written "May" here
        value = _resolve(match, today)
        if value is None:
            continue
        label = label_before(text, match.start())
        born = _BORN.search(text, max(0, match.start() - 30), match.start())
        relative = not (
            match.group("iso")
            or match.group("slash")
            or match.group("mdy_m")
            or match.group("dmy_m")
            or match.group("my_m")
        )
        confidence = 0.9 if relative else 0.95
        value_type: ValueType = "date"
        recurring = _RECURRING.search(text, max(0, match.start() - 40), match.start())
        if recurring and not relative and not re.search(r"\b\d{4}\b", match.group(0)):
            # "Lena's birthday is on March 14": every year, not this year's (issue 28).
            day = date.fromisoformat(value)
            value, value_type = f"{day.day} {calendar.month_name[day.month]}", "string"
            if not born and not label:
                who, what = recurring.group("who"), recurring.group("what").lower()
                mine = who.lower() == "my"
                key = labelled_key("dates", what if mine else f"{who} {what}", mine=mine)
                statement = (recurring.start(), match.end())
                facts.append(_date_fact(key, value, value_type, statement, match, confidence))
                continue
        if born:
            key, statement = "user.dates.birthday", (born.start(), match.end())
        elif label:
            key = labelled_key("dates", label.slug, mine=label.mine)
            statement = (label.start, match.end())
        elif (match.group("word") or "").lower() in _UNSTORED_BARE:
            continue
        else:
            key, statement, confidence = mention_key("date", value), match.span(), confidence - 0.1
        facts.append(_date_fact(key, value, value_type, statement, match, confidence))
    return facts


# Dates that come back every year: without a year they are a day and a month.
_RECURRING = re.compile(
    r"(?P<who>\b[A-Z][\w-]*|\bmy)(?:'s|’s)?\s+(?P<what>birthday|anniversary|name\s+day)\b",
    re.IGNORECASE,
)


def _date_fact(
    key: str,
    value: str,
    value_type: ValueType,
    statement: tuple[int, int],
    match: re.Match[str],
    confidence: float,
) -> ExtractedFact:
    return ExtractedFact(
        key=key,
        value=value,
        value_type=value_type,
        kind="date",
        topic=None,
        rank=None,
        span=statement,
        confidence=round(confidence, 2),
        value_span=match.span(),
    )
