"""Reading a knowledge document: every field typed and validated with the same rules as
the services, every link checked, and all problems reported at once by their path
(``claims[3].statement``) before anything is written."""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

from django.core.exceptions import ValidationError
from django.utils import timezone

from apps.core.validation import (
    DATE_RANGE_MESSAGE,
    INT_MAX,
    datetime_storable,
    has_visible_text,
    text_problem,
)

MAX_ERRORS = 100
T = TypeVar("T")


class DocumentErrors:
    def __init__(self) -> None:
        self.messages: dict[str, list[str]] = {}
        self.count = 0

    def add(self, path: str, message: str) -> None:
        self.count += 1
        if self.count <= MAX_ERRORS:
            self.messages.setdefault(path, []).append(message)

    def raise_if_any(self) -> None:
        if not self.count:
            return
        if self.count > MAX_ERRORS:
            self.messages["document"] = [f"… and {self.count - MAX_ERRORS} more problems."]
        raise ValidationError(self.messages)


class ObjectReader:
    """Typed reads of one JSON object at ``path``. A missing or wrong value is recorded and
    a placeholder returned, so that the rest of the document is still checked."""

    def __init__(self, raw: Any, path: str, errors: DocumentErrors) -> None:
        self.path, self.errors = path, errors
        self.raw: dict[str, Any] = raw if isinstance(raw, dict) else {}
        if not isinstance(raw, dict):
            errors.add(path or "document", "Expected an object.")

    def fail(self, name: str, message: str) -> None:
        self.errors.add(f"{self.path}.{name}" if self.path else name, message)

    def _get(self, name: str, required: bool) -> Any:
        if name not in self.raw:
            if required:
                self.fail(name, "This field is required.")
            return None
        return self.raw[name]

    def text(
        self, name: str, *, required: bool = False, default: str = "", max_length: int | None = None
    ) -> str:
        value = self._get(name, required)
        if value is None:
            return default
        if not isinstance(value, str):
            self.fail(name, "Expected a string.")
            return default
        if required and not has_visible_text(value):
            self.fail(name, "This field may not be blank.")
        problem = text_problem(value)
        if problem:
            self.fail(name, problem)
            return default
        if max_length is not None and len(value) > max_length:
            self.fail(name, f"At most {max_length} characters.")
        return value

    def ref(self, name: str) -> str | None:
        """An optional link to another record's id."""
        value = self._get(name, required=False)
        if value is None or isinstance(value, str):
            return value
        self.fail(name, "Expected an id (a string) or null.")
        return None

    def integer(
        self, name: str, *, required: bool = False, default: int = 0, minimum: int = 0
    ) -> int:
        value = self._get(name, required)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            self.fail(name, f"Expected a whole number of at least {minimum}.")
            return default
        if value > INT_MAX:  # claim numbers and counters are PostgreSQL integers
            self.fail(name, f"At most {INT_MAX}.")
            return default
        return value

    def number(self, name: str, *, default: float) -> float:
        value = self._get(name, required=False)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.fail(name, "Expected a number.")
            return default
        if not math.isfinite(float(value)):
            self.fail(name, "Expected a finite number.")
            return default
        return float(value)

    def boolean(self, name: str, *, default: bool = False) -> bool:
        value = self._get(name, required=False)
        if value is None:
            return default
        if not isinstance(value, bool):
            self.fail(name, "Expected true or false.")
            return default
        return value

    def moment(self, name: str, *, required: bool = False) -> datetime | None:
        value = self._get(name, required)
        if value is None:
            return None
        parsed = None
        if isinstance(value, str):
            try:
                parsed = datetime.fromisoformat(value)
            except ValueError:
                parsed = None
        if parsed is None:
            self.fail(name, "Expected an ISO 8601 date and time.")
        elif timezone.is_naive(parsed):
            self.fail(name, "The date and time must include a time zone.")
            parsed = None
        elif not datetime_storable(parsed):
            self.fail(name, DATE_RANGE_MESSAGE)
            parsed = None
        return parsed

    def timestamp(self, name: str) -> datetime:
        """created_at / updated_at: optional in a hand-written document (now)."""
        return self.moment(name) or timezone.now()

    def strings(self, name: str) -> list[str]:
        value = self._get(name, required=False)
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            self.fail(name, "Expected a list of strings.")
            return []
        for item in value:
            problem = text_problem(item)
            if problem:
                self.fail(name, problem)
                return []
        return list(value)

    def items(self, name: str) -> list[Any]:
        value = self._get(name, required=False)
        if value is None:
            return []
        if not isinstance(value, list):
            self.fail(name, "Expected a list.")
            return []
        return value

    def mapping(self, name: str) -> dict[str, Any]:
        value = self._get(name, required=False)
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.fail(name, "Expected an object.")
            return {}
        return value

    def choice(self, name: str, allowed: list[str], *, default: str) -> str:
        value = self.text(name, default=default)
        if value not in allowed:
            self.fail(name, f"Unknown value '{value}'. Choose from: {', '.join(allowed)}.")
            return default
        return value

    def cleaned(self, name: str, cleaner: Callable[[Any], T], value: Any, fallback: T) -> T:
        """Run one of the services' cleaners; its message is reported at this field."""
        try:
            return cleaner(value)
        except ValidationError as error:
            for message in error.messages:
                self.fail(name, message)
            return fallback
