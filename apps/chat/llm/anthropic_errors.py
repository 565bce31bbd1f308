"""Turn whatever the Anthropic SDK (or its HTTP layer, httpx2) raises into a `StreamError`.

Three shapes reach us:

* an HTTP error status before any text: the SDK raises its `APIStatusError` subclass
  (`AuthenticationError` 401, `RateLimitError` 429, `OverloadedError` 529 …) after its own
  retries;
* an `error` server-sent event in the middle of a stream: the SDK raises a plain
  `APIStatusError` whose `status_code` is the stream's 200 and whose `type` is the API's
  error type (`overloaded_error`, `api_error` …) — so the type, not the status, is what
  tells us what happened;
* a timeout or a dropped connection: `APITimeoutError` / `APIConnectionError` while
  connecting, but the raw `httpx2` exception once the body is being read.
"""

from __future__ import annotations

import anthropic
import httpx2

from apps.chat.llm.types import StreamError

# API error type -> (HTTP status it stands for, retryable, message for the user)
_BY_TYPE: dict[str, tuple[int, bool, str]] = {
    "invalid_request_error": (400, False, "Anthropic rejected the request"),
    "authentication_error": (401, False, "The Anthropic API key was rejected"),
    "billing_error": (402, False, "The Anthropic account has a billing problem"),
    "permission_error": (403, False, "The Anthropic API key may not use this model"),
    "not_found_error": (404, False, "The Anthropic model or resource was not found"),
    "request_too_large": (413, False, "The request is too large for Anthropic"),
    "rate_limit_error": (429, True, "Anthropic is rate-limiting requests"),
    "api_error": (500, True, "Anthropic had an internal error"),
    "timeout_error": (504, True, "Anthropic timed out"),
    "overloaded_error": (529, True, "Claude is overloaded right now"),
}
_BY_STATUS: dict[int, str] = {status: kind for kind, (status, _, _) in _BY_TYPE.items()}
_RETRYABLE_STATUSES = frozenset({408, 409, 429})


def stream_error_from(error: Exception) -> StreamError | None:
    """The `StreamError` for an SDK or transport failure; None for anything else."""
    if isinstance(error, anthropic.APITimeoutError):
        return _timeout()
    if isinstance(error, anthropic.APIConnectionError):
        return _connection()
    if isinstance(error, anthropic.APIStatusError):
        return _from_status_error(error)
    if isinstance(error, anthropic.APIResponseValidationError):
        return StreamError(
            message="Anthropic sent a response this version of Cairn cannot read.",
            retryable=False,
            status=error.status_code,
            error_type="invalid_response",
        )
    if isinstance(error, httpx2.TimeoutException):
        return _timeout()
    if isinstance(error, httpx2.HTTPError | httpx2.StreamError):
        return _connection()
    if isinstance(error, anthropic.AnthropicError):
        return StreamError(message=f"The Anthropic client failed: {error}", retryable=False)
    return None


def _from_status_error(error: anthropic.APIStatusError) -> StreamError:
    in_stream = error.status_code < 400  # an `error` event inside a 200 stream
    status = error.status_code
    error_type = error.type or _BY_STATUS.get(status)
    known = _BY_TYPE.get(error_type or "")
    if known is not None:
        mapped_status, retryable, headline = known
        if in_stream:
            status = mapped_status
    else:
        retryable = status >= 500 or status in _RETRYABLE_STATUSES
        headline = f"Anthropic answered with an error ({status})"
    detail = (error.api_message or "").strip().rstrip(".")
    message = f"{headline} ({detail})" if detail else headline
    if error_type == "authentication_error":
        message += ". Check ANTHROPIC_API_KEY"
    message += ". Please try again in a moment." if retryable else "."
    return StreamError(message=message, retryable=retryable, status=status, error_type=error_type)


def _timeout() -> StreamError:
    return StreamError(
        message="The request to Anthropic timed out. Please try again.",
        retryable=True,
        error_type="timeout",
    )


def _connection() -> StreamError:
    return StreamError(
        message="The connection to Anthropic failed. Please try again.",
        retryable=True,
        error_type="connection",
    )
