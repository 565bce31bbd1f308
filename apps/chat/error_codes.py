"""The codes of the chat's error events, one list for the server and the page: the page
reads it from the JSON the chat template renders (``events.protocol_for_page``)."""

from enum import StrEnum


class ErrorCode(StrEnum):
    # The turn never started; the page puts the text back in the composer.
    EMPTY = "empty"
    TOO_LARGE = "too_large"
    INVALID = "invalid"
    BUSY = "busy"
    RATE_LIMITED = "rate_limited"
    # The turn started and ended without a full answer.
    CANCELLED = "cancelled"
    PROVIDER = "provider"
    # "Your message was not saved: <reason>": the page keeps the text and offers Resend.
    NOT_SAVED = "not_saved"
    # The message was saved and the turn failed after (the words say so).
    INTERNAL = "internal"


REJECTION_CODES = (
    ErrorCode.EMPTY,
    ErrorCode.TOO_LARGE,
    ErrorCode.INVALID,
    ErrorCode.BUSY,
    ErrorCode.RATE_LIMITED,
)
