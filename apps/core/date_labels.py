"""One way to write a date across the site (issue 30): "27 Nov" this year, "27 Nov 2025"
another year, and "27 Nov, 06:05" / "27 Nov 2025, 06:05" where a time is shown. Pages
use the ``day`` and ``when`` template filters (apps/core/templatetags/cairn_format.py);
chat tools and evidence lines call these functions."""

from __future__ import annotations

from datetime import date, datetime

from django.utils import timezone


def _local(moment: datetime) -> datetime:
    return timezone.localtime(moment) if timezone.is_aware(moment) else moment


def day_label(moment: date | datetime, *, now: datetime | None = None) -> str:
    """ "27 Nov" this year, "27 Nov 2025" another year."""
    day = _local(moment) if isinstance(moment, datetime) else moment
    today = _local(now) if now else timezone.localtime()
    text = f"{day.day} {day:%b}"
    return text if day.year == today.year else f"{text} {day.year}"


def moment_label(moment: datetime, *, now: datetime | None = None) -> str:
    """ "27 Nov, 06:05", with the year when it is not this one ("27 Nov 2025, 06:05")."""
    return f"{day_label(moment, now=now)}, {_local(moment):%H:%M}"
