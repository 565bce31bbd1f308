"""What starts a turn, read the same way by every door (issue 27): the websocket's
"message" frame and ``POST /api/v1/conversations/<id>/messages/`` both parse it with
`SendMessageInput`, and both refuse with the field named and the same words."""

from __future__ import annotations

import uuid
from typing import Annotated

import pydantic
from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, field_validator
from pydantic_core import PydanticCustomError

from apps.chat.pipeline.types import MAX_MESSAGE_CHARS, TurnRequest

MAX_ATTACHED_CLAIMS = 50
MAX_FACT_TOPIC_CHARS = 100


class InputRefused(ValueError):
    """The first thing wrong with the input, by field, in words for the person."""

    def __init__(self, *, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def _refused(message: str) -> PydanticCustomError:
    return PydanticCustomError("refused", message)


class SendMessageInput(BaseModel):
    """The words, the claims attached to them, and the list a ranked fact belongs to (an
    answer to a clarifying question). Other keys (the frame's ``type``) are left alone."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    # The bounds are written here for the API's schema; the validators below check them
    # first, in words that name the field.
    text: str = Field(max_length=MAX_MESSAGE_CHARS)
    attached_claim_ids: tuple[uuid.UUID, ...] = Field(default=(), max_length=MAX_ATTACHED_CLAIMS)
    # OpenAPI 3.0 (the API's schema) writes "or null" as ``nullable``, not pydantic's
    # ``anyOf [..., {type: null}]``, which its validator refuses.
    fact_topic: Annotated[
        str | None,
        WithJsonSchema({"type": "string", "maxLength": MAX_FACT_TOPIC_CHARS, "nullable": True}),
    ] = Field(default=None, max_length=MAX_FACT_TOPIC_CHARS)

    @field_validator("text", mode="before")
    @classmethod
    def _text(cls, value: object) -> str:
        if not isinstance(value, str):
            raise _refused("'text' must be a string.")
        if len(value) > MAX_MESSAGE_CHARS:
            raise _refused(f"'text' holds at most {MAX_MESSAGE_CHARS} characters.")
        return value

    @field_validator("attached_claim_ids", mode="before")
    @classmethod
    def _attached(cls, value: object) -> tuple[uuid.UUID, ...]:
        if value is None:
            return ()
        if not isinstance(value, list | tuple):
            raise _refused("'attached_claim_ids' must be a list of claim ids.")
        if len(value) > MAX_ATTACHED_CLAIMS:
            raise _refused(
                f"'attached_claim_ids' holds at most {MAX_ATTACHED_CLAIMS} claims; "
                f"{len(value)} were sent."
            )
        ids = []
        for item in value:
            try:
                ids.append(item if isinstance(item, uuid.UUID) else uuid.UUID(str(item)))
            except ValueError:
                raise _refused(f"'{str(item)[:40]}' is not a claim id.") from None
        return tuple(ids)

    @field_validator("fact_topic", mode="before")
    @classmethod
    def _fact_topic(cls, value: object) -> str | None:
        if value is None:
            return None
        if not isinstance(value, str):
            raise _refused("'fact_topic' must be a string.")
        if len(value) > MAX_FACT_TOPIC_CHARS:
            raise _refused(f"'fact_topic' holds at most {MAX_FACT_TOPIC_CHARS} characters.")
        return value.strip() or None

    @classmethod
    def read(cls, data: object) -> SendMessageInput:
        """The input, or `InputRefused` naming the first field that is wrong."""
        if not isinstance(data, dict):
            raise InputRefused(field="text", message="Send an object with 'text'.")
        try:
            return cls.model_validate(data)
        except pydantic.ValidationError as error:
            first = error.errors()[0]
            field = str(first["loc"][0]) if first["loc"] else "text"
            message = f"'{field}' is required." if first["type"] == "missing" else first["msg"]
            raise InputRefused(field=field, message=message) from None

    def request(self) -> TurnRequest:
        return TurnRequest(
            text=self.text, attached_claim_ids=self.attached_claim_ids, fact_topic=self.fact_topic
        )
