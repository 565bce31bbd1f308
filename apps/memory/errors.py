"""The one way a memory action says no: the field at fault and a sentence about it."""

from __future__ import annotations

from django.core.exceptions import ValidationError


class MemoryRefusal(ValidationError):
    """A memory action that cannot be done as asked. ``field`` names the input at fault
    (``statement``, ``number``, ``claim_types[0]``); ``text`` says why in words.

    A Django ``ValidationError`` with that one field error, so the REST API answers it as
    any service's refusal (400, ``{field: [message]}``) and a page shows it on its field;
    a model reads ``sentence()`` (the field, then why) through the chat tools and MCP."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__({field: [message]})
        self.field = field
        self.text = message

    def sentence(self) -> str:
        return f"{self.field}: {self.text}"

    def __str__(self) -> str:
        return self.sentence()


class ClaimNotFound(MemoryRefusal):
    """No claim of this user by that number (another user's answers the same)."""


def refusal_from(error: ValidationError, *, default_field: str = "detail") -> MemoryRefusal:
    """A service's ``ValidationError`` as the layer's refusal: its first field and words."""
    if isinstance(error, MemoryRefusal):
        return error
    if hasattr(error, "error_dict"):
        field, errors = next(iter(error.message_dict.items()))
        return MemoryRefusal(field, " ".join(errors))
    return MemoryRefusal(default_field, " ".join(error.messages))
