"""Template filters for the site's one date format (apps/core/dates.py):
``{{ message.created_at|when }}`` → "27 Nov, 06:05"; ``{{ claim.updated_at|day }}`` →
"27 Nov 2025" when it is not this year. Empty values give "", so ``|default`` works."""

from __future__ import annotations

from datetime import date, datetime

from django import template

from apps.core.date_labels import day_label, moment_label

register = template.Library()


@register.filter
def when(value: datetime | None) -> str:
    if not isinstance(value, datetime):
        return ""
    return moment_label(value)


@register.filter
def day(value: date | datetime | None) -> str:
    if not isinstance(value, date):
        return ""
    return day_label(value)
