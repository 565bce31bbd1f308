"""Keys and values as they are stored: validated, and normalised so that equal means equal.

A stored value is text (``value_text``) read by its ``value_type``:

=========  ============================================================================
type       accepted, then stored as
=========  ============================================================================
string     any non-empty text; Unicode NFC, line endings ``\\n``, outer white space
           stripped ("BTC " and "BTC" are the same value; "btc" is another)
number     a finite decimal ("1.50", "1e3", 7) -> plain decimal text ("1.5", "1000", "7")
bool       true / false / yes / no / on / off / 1 / 0 (any case) -> ``true`` / ``false``
date       an ISO date ("2025-03-03") -> ``YYYY-MM-DD``
json       JSON text (or, through the API, a JSON value) -> compact JSON, keys sorted
=========  ============================================================================

A *same value* write (DESIGN §4: *unchanged*) is one whose normalised text and type equal
the current row's. Keys are dot-separated segments without white space
(``user.favorites.crypto.1``); only an extracted mention's last segment may itself hold
dots or slashes (``mentioned.url.https://example.com/a``).
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any

from django.core.exceptions import ValidationError

from apps.core.validation import unstorable_text
from apps.facts.extraction import parse_ranked_key
from apps.facts.models import MAX_KEY_LENGTH, FactValueType

MAX_VALUE_CHARS = 10_000
_MAX_NUMBER_EXPONENT = 60
_BAD_KEY_CHAR = re.compile(r"[\s\x00-\x1f\x7f]")
_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})
# Non-ranked keys are grouped by namespace (apps/facts/extraction/keys.py names them).
_NAMESPACE_TOPICS = {"dates": "dates", "quantities": "quantities", "relations": "relations"}


def normalize_key(key: object) -> str:
    """The key, stripped, or a ``ValidationError`` on ``key`` saying what is wrong."""
    if not isinstance(key, str):
        raise ValidationError({"key": "A fact key is text, e.g. user.favorites.crypto.1."})
    key = unicodedata.normalize("NFC", key.strip())
    if not key:
        raise ValidationError({"key": "A fact needs a key, e.g. user.favorites.crypto.1."})
    if len(key) > MAX_KEY_LENGTH:
        raise ValidationError({"key": f"A fact key has at most {MAX_KEY_LENGTH} characters."})
    problem = unstorable_text(key)
    if problem:
        raise ValidationError({"key": problem})
    if _BAD_KEY_CHAR.search(key):
        raise ValidationError({"key": "A fact key has no spaces; join words with _ or ."})
    if key.startswith(".") or key.endswith(".") or ".." in key:
        raise ValidationError({"key": "A fact key is dot-separated words, without empty parts."})
    return key


def normalize_value(value: Any, value_type: str) -> str:
    """``value`` as stored for ``value_type``, or a ``ValidationError`` on ``value``."""
    if value_type not in FactValueType.values:
        raise ValidationError({"value_type": f"Use one of: {', '.join(FactValueType.values)}."})
    if value is None:
        raise ValidationError({"value": "A fact needs a value; retract it to remove it."})
    normalizer = _NORMALIZERS[value_type]
    text = normalizer(value)
    # The input guard at the door saw JSON text as plain characters: the escapes \ud800
    # and \u0000 are six harmless ones there, and only _json's json.loads turns them into
    # the characters PostgreSQL refuses (issue 29: a 500). What is stored is checked.
    problem = unstorable_text(text)
    if problem:
        raise ValidationError({"value": problem})
    if len(text) > MAX_VALUE_CHARS:
        raise ValidationError(
            {"value": f"A fact's value has at most {MAX_VALUE_CHARS} characters."}
        )
    return text


def _string(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int | float | Decimal):
        raise ValidationError({"value": "A text value is a string."})
    text = unicodedata.normalize("NFC", str(value)).replace("\r\n", "\n").replace("\r", "\n")
    text = text.strip()
    if not text:
        raise ValidationError({"value": "A fact needs a value; retract it to remove it."})
    return text


def _number(value: Any) -> str:
    error = ValidationError({"value": "Not a number: use digits, e.g. 42 or 3.5."})
    if isinstance(value, bool) or not isinstance(value, str | int | float | Decimal):
        raise error
    raw = str(value).strip().replace("_", "")
    if len(raw) > 100:
        raise error
    try:
        number = Decimal(raw)
    except InvalidOperation as exc:
        raise error from exc
    if not number.is_finite():
        raise error
    if number.is_zero():
        return "0"
    number = number.normalize()
    if abs(number.adjusted()) > _MAX_NUMBER_EXPONENT:
        raise ValidationError({"value": "This number is too large or too small to store."})
    return format(number, "f")


def _bool(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    word = str(value).strip().casefold() if isinstance(value, str | int) else ""
    if word in _TRUE:
        return "true"
    if word in _FALSE:
        return "false"
    raise ValidationError({"value": "Not a yes/no value: use true or false."})


def _date(value: Any) -> str:
    error = ValidationError({"value": "Not a date: use YYYY-MM-DD, e.g. 2025-03-03."})
    if isinstance(value, date):
        return value.isoformat()
    if not isinstance(value, str) or len(value.strip()) > 10:
        raise error
    try:
        return date.fromisoformat(value.strip()).isoformat()
    except ValueError as exc:
        raise error from exc


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _json(value: Any) -> str:
    if isinstance(value, str):
        try:
            value = json.loads(value, parse_constant=_reject_constant)
        except (ValueError, RecursionError) as exc:
            raise ValidationError({"value": "Not valid JSON."}) from exc
    try:
        return json.dumps(
            value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
        )
    except (TypeError, ValueError, RecursionError) as exc:
        raise ValidationError({"value": "Not valid JSON."}) from exc


_NORMALIZERS: dict[str, Callable[[Any], str]] = {
    FactValueType.STRING.value: _string,
    FactValueType.NUMBER.value: _number,
    FactValueType.BOOL.value: _bool,
    FactValueType.DATE.value: _date,
    FactValueType.JSON.value: _json,
}


def key_topic(key: str) -> tuple[str, int | None]:
    """The topic a key is grouped under, and its rank if it is a ranked-list item.

    ``user.favorites.crypto.2`` -> ``("crypto", 2)``; ``user.dates.exam`` -> ``("dates",
    None)``; ``mentioned.email.a@b.io`` -> ``("mentioned", None)``; another ``user.*`` key
    (``user.email.work``, ``user.name``) -> ``("profile", None)``; any other key -> its
    first segment (``project.deadline`` -> ``("project", None)``). A ranked topic and a
    namespace of the same name stay apart because only ranked items have a rank.
    """
    ranked = parse_ranked_key(key)
    if ranked is not None:
        return ranked
    parts = key.split(".")
    if parts[0] == "mentioned":
        return "mentioned", None
    if parts[0] == "user":
        second = parts[1] if len(parts) > 2 else ""
        return _NAMESPACE_TOPICS.get(second, "profile"), None
    return _NAMESPACE_TOPICS.get(parts[0], parts[0][:120]), None
