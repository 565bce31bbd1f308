"""A claim's kinds and areas in words on the pages: "Shopping item", not "shopping_item"
(issue 30). A value this version does not know is shown with spaces for underscores."""

from __future__ import annotations

from django import template

from apps.claims.models import ClaimType, Domain

register = template.Library()

_TYPE_LABELS = dict(ClaimType.choices)
_DOMAIN_LABELS = dict(Domain.choices)


def _words(value: str) -> str:
    return value.replace("_", " ").capitalize()


@register.filter
def claim_type_label(value: str) -> str:
    return str(_TYPE_LABELS.get(value) or _words(value))


@register.filter
def domain_label(value: str) -> str:
    return str(_DOMAIN_LABELS.get(value) or _words(value))
