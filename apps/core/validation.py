"""Input validation every app shares."""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.http import QueryDict
from rest_framework import serializers


def validated(serializer_class: type[serializers.Serializer], data: Any) -> dict[str, Any]:
    """The input serializer's validated data, or a 400 with its field errors."""
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


# Query parameters every list endpoint reads besides its filters (pagination, DRF's format).
COMMON_QUERY_PARAMETERS = frozenset({"limit", "offset", "format"})


def validated_query(
    serializer_class: type[serializers.Serializer], params: QueryDict
) -> dict[str, Any]:
    """A list endpoint's filters, validated; an unknown parameter is refused by name
    instead of silently ignored (``?search=oat`` listed every claim: the filter is ``q``)."""
    query_parameters_refused(params, known=serializer_class().fields)
    return validated(serializer_class, params)


def query_parameters_refused(params: QueryDict, *, known: Iterable[str]) -> None:
    """A 400 naming each query parameter the endpoint does not read (besides pagination)."""
    allowed = set(known) | COMMON_QUERY_PARAMETERS
    unknown = sorted(set(params) - allowed)
    if unknown:
        reads = ", ".join(sorted(allowed))
        raise serializers.ValidationError(
            {name: [f"Unknown query parameter; this endpoint reads {reads}."] for name in unknown}
        )


# What PostgreSQL cannot store, or stores but cannot give back, checked at every door
# (issue 15): the HTTP middleware below for pages and both APIs, ``input_problem`` for the
# websocket and the importers. A bad value is a 400 naming its field, never a 500.

MAX_JSON_DEPTH = 32
NESTED_TOO_DEEPLY = f"Nested too deeply (more than {MAX_JSON_DEPTH} levels)."
# Integers on the wire fit a PostgreSQL ``integer``; bigger ones are no id, count or limit.
INT_MIN, INT_MAX = -(2**31), 2**31 - 1
# Query parameters read as integers, bounded like integers in a body.
INTEGER_PARAMETERS = frozenset({"limit", "offset", "page", "k", "number", "page_size", "after"})


@dataclass(frozen=True)
class InputProblem:
    field: str  # "statement", "claims[3].statement", "query parameter q"
    message: str

    def as_dict(self) -> dict[str, list[str]]:
        return {self.field: [self.message]}


NUL_MESSAGE = "Remove the NUL character (U+0000): it cannot be stored."
SURROGATE_MESSAGE = "Remove the unpaired surrogate character: it is not valid Unicode text."


def unstorable_text(value: str) -> str | None:
    """Why PostgreSQL cannot store these characters at all (a NUL, an unpaired
    surrogate), in words; None when it can. For text a service builds from input it
    decoded itself (JSON text inside a field), which no door has seen as characters."""
    if "\x00" in value:
        return NUL_MESSAGE
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return SURROGATE_MESSAGE
    return None


def text_problem(value: str) -> str | None:
    """Why PostgreSQL would refuse this text, in words; None when it is fine."""
    problem = unstorable_text(value)
    if problem:
        return problem
    if _DATETIME.match(value) and not datetime_storable(value):
        return DATE_RANGE_MESSAGE
    return None


_DATETIME = re.compile(r"^[+-]?\d{4,}-\d{2}-\d{2}[T ]\d{2}:\d{2}")
DATE_RANGE_MESSAGE = "Must be a date and time between the years 1 and 9999 (UTC)."
# A day inside Python's range on both sides, so that no time zone can shift a stored
# value out of it when it is read back ("0001-01-01T00:00:00+14:00" is year 0 in UTC,
# which PostgreSQL stores and Python cannot read: every later list of that account 500ed).
EARLIEST = datetime(1, 1, 2, tzinfo=UTC)
LATEST = datetime(9999, 12, 30, tzinfo=UTC)


def datetime_storable(value: str | datetime) -> bool:
    """Whether a date and time (ISO text or a datetime) lies where it can be read back.

    Text that is no date Python can read is left to the view, which says so itself."""
    try:
        moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    except ValueError:
        return True
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        return EARLIEST <= moment.astimezone(UTC) <= LATEST
    except OverflowError:
        return False


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def input_problem(value: object, path: str = "") -> InputProblem | None:
    """The first value under ``value`` (parsed JSON) that cannot be stored, or None.

    Iterative, so a document nested thousands deep is refused by its depth instead of
    exhausting the interpreter's stack."""
    stack: list[tuple[object, str, int]] = [(value, path, 0)]
    while stack:
        item, where, depth = stack.pop()
        name = where or "body"
        if depth > MAX_JSON_DEPTH:
            return InputProblem(name, NESTED_TOO_DEEPLY)
        if isinstance(item, str):
            problem = text_problem(item)
            if problem:
                return InputProblem(name, problem)
        elif isinstance(item, bool):
            continue
        elif isinstance(item, int):
            if not INT_MIN <= item <= INT_MAX:
                return InputProblem(name, f"Must be between {INT_MIN} and {INT_MAX}.")
        elif isinstance(item, float):
            if not math.isfinite(item):
                return InputProblem(name, "Must be a finite number.")
        elif isinstance(item, dict):
            for key, child in item.items():
                key_problem = text_problem(str(key))
                if key_problem:
                    return InputProblem(_join(where, "(a key)"), key_problem)
                stack.append((child, _join(where, str(key)), depth + 1))
        elif isinstance(item, list):
            stack.extend(
                (child, _join(where, index), depth + 1) for index, child in enumerate(item)
            )
    return None


def not_a_boolean(value: object) -> object:
    """For typed doors (a pydantic ``BeforeValidator`` on a number): JSON's true and false
    are no numbers, though Python counts a bool as an int (``{"number": true}`` was claim
    #1 over MCP). DRF's fields refuse them already."""
    if isinstance(value, bool):
        raise ValueError("Must be a number, not true or false.")
    return value


def _out_of_range(value: str) -> bool:
    digits = value.strip().lstrip("+-")
    if not digits.isdigit():
        return False  # not a number at all: the view says so in its own words
    # Python refuses to convert more than 4,300 digits; anything past 12 is out of range.
    return len(digits) > 12 or not INT_MIN <= int(value) <= INT_MAX


def parameters_problem(params: QueryDict, *, kind: str) -> InputProblem | None:
    """Form fields or query parameters: their names and values as text, integers bounded."""
    for key, values in params.lists():
        problem = text_problem(key)
        if problem:
            return InputProblem(f"{kind} name", problem)
        for value in values:
            problem = text_problem(value)
            if problem:
                return InputProblem(key, problem)
            if key in INTEGER_PARAMETERS and _out_of_range(value):
                return InputProblem(key, f"Must be between {INT_MIN} and {INT_MAX}.")
    return None


def json_problem(body: bytes) -> InputProblem | None:
    """A JSON body: what ``input_problem`` finds, or its depth if it cannot even be read."""
    try:
        document = json.loads(body)
    except RecursionError:  # the C parser gives up near the interpreter's recursion limit
        return InputProblem("body", NESTED_TOO_DEEPLY)
    except ValueError:
        return None  # malformed JSON: the parser of the view answers its own 400
    return input_problem(document)


def has_visible_text(value: str) -> bool:
    """Whether ``value`` shows anything: white space, zero-width and direction-control
    characters (Unicode's separators Z*, controls Cc and format characters Cf) do not."""
    return any(unicodedata.category(char)[0] not in "ZC" for char in value)


def required_text(value: str, *, field: str, what: str) -> str:
    """``value`` stripped, or a ValidationError naming ``field`` when nothing would show
    (" ", "\\u200b\\u200b", "\\u202e" are as empty as "")."""
    value = (value or "").strip()
    if not has_visible_text(value):
        raise ValidationError({field: f"{what} needs some visible text."})
    return value
