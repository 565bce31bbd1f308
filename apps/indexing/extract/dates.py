"""When a file's text was written, as the file itself tells it (issue 28: "in May 2024"
finds that month's files as well as its turns).

A letter, a receipt, an e-mail or a note usually carries its date at its head ("Date: Sat,
18 May 2024", "Receipt — 18 May 2024", "2024-05-18 notes"); a PDF its creation date in its
metadata. A date that names its year is read; "today" or "last week" in a file is not, as
it would be read against the day of indexing, not the day of writing.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

from django.utils import timezone as django_timezone

from ..search import period_named

# The head of a file: its header lines, a letter's date line, a note's title.
HEAD_CHARS = 600
_YEAR = re.compile(r"(?:19|20)\d\d")
_PDF_DATE = re.compile(
    r"^D:(?P<year>\d{4})(?P<month>\d\d)?(?P<day>\d\d)?(?P<hour>\d\d)?(?P<minute>\d\d)?"
    r"(?P<second>\d\d)?(?:(?P<sign>[+-])(?P<tzh>\d\d)'?(?P<tzm>\d\d)?'?|Z)?"
)


def head_date(text: str) -> datetime | None:
    """The day (or month) the head of ``text`` names with its year, as the start of that
    day in the site's timezone; None when it names none."""
    period = period_named(text[:HEAD_CHARS], now=django_timezone.localtime())
    if period is None or not _YEAR.search(period.words):
        return None
    if period.end - period.start > timedelta(days=31):
        return None  # a year alone ("in 2023") dates a topic, not the writing
    return period.start


def pdf_date(value: str | None) -> datetime | None:
    """A PDF date string (``D:20240518103000+02'00'``), aware; None when unreadable."""
    match = _PDF_DATE.match((value or "").strip())
    if match is None:
        return None
    parts = match.groupdict()
    try:
        moment = datetime(
            int(parts["year"]),
            int(parts["month"] or 1),
            int(parts["day"] or 1),
            int(parts["hour"] or 0),
            int(parts["minute"] or 0),
            int(parts["second"] or 0),
            tzinfo=UTC,
        )
    except ValueError:
        return None
    if parts["sign"]:
        offset = timedelta(hours=int(parts["tzh"]), minutes=int(parts["tzm"] or 0))
        zone = timezone(offset if parts["sign"] == "+" else -offset)
        return moment.replace(tzinfo=zone)
    return moment
