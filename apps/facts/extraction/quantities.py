"""Quantities with units: "5 kg", "10 km", "$300", "3.5 hours".

The value is canonical JSON, ``{"amount":80,"unit":"kg"}`` (value type ``json``), so the
unit travels with the number and the same statement always compares equal. Units are
canonical: kg, g, mg, lb, oz, km, m, cm, mm, mi, ft, h, min, s, ms, day, week, month,
year, L, mL, °C, °F, %, kB, MB, GB, TB, kcal, steps, km/h, mph, and the currencies USD,
EUR, GBP, JPY. "pounds" is the weight; money in pounds is written "£".
"""

from __future__ import annotations

import json
import re
from decimal import Decimal, InvalidOperation

from .keys import labelled_key, mention_key
from .labels import label_before
from .text import APOS, SpanIndex
from .types import ExtractedFact

# fmt: off
_UNITS = {
    "kg": "kg", "kgs": "kg", "kilo": "kg", "kilos": "kg", "kilogram": "kg", "kilograms": "kg",
    "g": "g", "gram": "g", "grams": "g", "mg": "mg", "lb": "lb", "lbs": "lb", "pound": "lb",
    "pounds": "lb", "oz": "oz", "ounce": "oz", "ounces": "oz", "km": "km", "kms": "km",
    "kilometer": "km", "kilometers": "km", "kilometre": "km", "kilometres": "km", "m": "m",
    "meter": "m", "meters": "m", "metre": "m", "metres": "m", "cm": "cm", "mm": "mm",
    "mi": "mi", "mile": "mi", "miles": "mi", "ft": "ft", "feet": "ft", "foot": "ft", "h": "h",
    "hr": "h", "hrs": "h", "hour": "h", "hours": "h", "min": "min", "mins": "min",
    "minute": "min", "minutes": "min", "s": "s", "sec": "s", "secs": "s", "second": "s",
    "seconds": "s", "ms": "ms", "day": "day", "days": "day", "week": "week", "weeks": "week",
    "month": "month", "months": "month", "year": "year", "years": "year", "yr": "year",
    "yrs": "year", "l": "L", "liter": "L", "liters": "L", "litre": "L", "litres": "L",
    "ml": "mL", "°c": "°C", "°f": "°F", "%": "%", "percent": "%", "kb": "kB", "mb": "MB",
    "gb": "GB", "tb": "TB", "kcal": "kcal", "calories": "kcal", "steps": "steps",
    "km/h": "km/h", "kph": "km/h", "mph": "mph", "dollars": "USD", "dollar": "USD",
    "bucks": "USD", "usd": "USD", "euros": "EUR", "euro": "EUR", "eur": "EUR", "gbp": "GBP",
}
# fmt: on
# One-letter units are read only as typed in lower case ("5 m", never "5 M" or "5 S").
_CASE_SENSITIVE = frozenset({"g", "m", "s", "h", "l"})
_CURRENCY_SIGNS = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY"}
_MULTIPLIERS = {"k": 1_000, "m": 1_000_000, "bn": 1_000_000_000}
_UNIT_KEYS = {"°C": "deg_c", "°F": "deg_f", "%": "percent", "km/h": "km_per_h"}

_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d{1,6})?|\d{1,9}(?:\.\d{1,6})?"
_UNIT_RE = "|".join(
    re.escape(u).replace(r"\ ", r"\s") for u in sorted(_UNITS, key=len, reverse=True)
)
QUANTITY = re.compile(
    rf"(?<![\w.,/$€£¥#-])(?P<cur>[$€£¥])\s?(?P<camt>{_NUM})(?P<mult>bn|[kKmM])?(?![\w.,]\d|\w)"
    rf"|(?<![\w.,/$€£¥#:-])(?P<amt>{_NUM})\s?(?:°\s?(?P<deg>[CF])\b|(?P<unit>{_UNIT_RE})(?![\w°/]))",
    re.IGNORECASE,
)
_ABOUT = r"(?:(?:about|around|roughly|now|currently)\s+)?"
# "I weigh 80 kg", "I'm 180 cm tall", "I am 34 years old": (before, after, label).
_BODY = (
    (re.compile(rf"\bi\s+{_ABOUT}weigh\s+{_ABOUT}$", re.I), None, "weight"),
    (
        re.compile(rf"\b(?:i{APOS}m|i\s+am)\s+{_ABOUT}$", re.I),
        re.compile(r"\s+tall\b", re.I),
        "height",
    ),
    (re.compile(rf"\b(?:i{APOS}m|i\s+am)\s+{_ABOUT}$", re.I), re.compile(r"\s+old\b", re.I), "age"),
)


def _amount(match: re.Match[str]) -> Decimal | None:
    raw = (match.group("camt") or match.group("amt")).replace(",", "")
    try:
        amount = Decimal(raw)
    except InvalidOperation:
        return None
    mult = (match.group("mult") or "").lower()
    return amount * _MULTIPLIERS[mult] if mult else amount


def _unit(match: re.Match[str]) -> str | None:
    if match.group("cur"):
        return _CURRENCY_SIGNS[match.group("cur")]
    if match.group("deg"):
        return f"°{match.group('deg').upper()}"
    typed = re.sub(r"\s+", "", match.group("unit"))
    if typed.lower() in _CASE_SENSITIVE and typed != typed.lower() and typed != "L":
        return None
    return _UNITS.get(typed.lower())


def quantity_json(amount: Decimal, unit: str) -> str:
    number: int | float = int(amount) if amount == amount.to_integral_value() else float(amount)
    return json.dumps({"amount": number, "unit": unit}, separators=(",", ":"), ensure_ascii=False)


def _amount_text(amount: Decimal) -> str:
    if amount == amount.to_integral_value():
        return str(int(amount))
    return format(amount.normalize(), "f")


def _body_label(text: str, start: int, end: int) -> tuple[str, int] | None:
    """ "I weigh 80 kg", "I'm 180 cm tall", "I am 34 years old" name their own label."""
    for before, after, label in _BODY:
        found = before.search(text, max(0, start - 30), start)
        if found and (after is None or after.match(text, end, end + 10)):
            return label, found.start()
    return None


def find_quantities(text: str, claimed: SpanIndex) -> list[ExtractedFact]:
    facts = []
    for match in QUANTITY.finditer(text):
        if claimed.overlaps(match.span()):
            continue
        amount, unit = _amount(match), _unit(match)
        if amount is None or unit is None:
            continue
        value = quantity_json(amount, unit)
        body = _body_label(text, match.start(), match.end())
        label = None if body else label_before(text, match.start())
        if body:
            key, statement, confidence = f"user.quantities.{body[0]}", (body[1], match.end()), 0.9
        elif label:
            key = labelled_key("quantities", label.slug, mine=label.mine)
            statement, confidence = (label.start, match.end()), 0.9
        else:
            unit_key = _UNIT_KEYS.get(unit, unit.lower())
            key = mention_key("quantity", f"{_amount_text(amount)}_{unit_key}")
            statement, confidence = match.span(), 0.8
        facts.append(
            ExtractedFact(
                key=key,
                value=value,
                value_type="json",
                kind="quantity",
                topic=None,
                rank=None,
                span=statement,
                confidence=confidence,
                value_span=match.span(),
            )
        )
    return facts
