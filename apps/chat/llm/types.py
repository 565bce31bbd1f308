"""The provider interface and the typed events a streamed reply is made of.

A stream yields `TextDelta`, `ToolCall` and `ToolResult` events in the order they happen
and ends with exactly one `StreamDone` or one `StreamError`. Providers never raise API
failures into the caller from `stream()`: whatever text arrived has been yielded, then a
`StreamError` says what went wrong and whether trying again may help.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypeAlias

ModelRole: TypeAlias = Literal["main", "cheap"]
CompletionTask: TypeAlias = Literal["distill", "align", "extract", "other"]
DEFAULT_MAX_TOKENS = 2048


# How an answer names what it used that still waits for the user's review (issue 28).
HELD_BACK = "Waiting for your review"


@dataclass(frozen=True)
class SourceItem:
    """One numbered source of the current turn (the pipeline's registry numbers them); a
    remote model reads them in its system prompt, the offline provider answers from them."""

    number: int
    kind: str  # "claim", "fact", "chunk", "message", "document", "context" …
    ref_id: str
    title: str
    excerpt: str
    score: float | None = None
    url: str | None = None
    # A statement of the user's still waiting for their review (suggest mode, issue 28).
    waiting: bool = False


@dataclass(frozen=True)
class ChatTurn:
    """One earlier message of the conversation, or the current user message."""

    role: Literal["user", "assistant"]
    content: str


@dataclass(frozen=True)
class ToolSpec:
    """A client tool the model may call: its name, description and JSON schema."""

    name: str
    description: str
    input_schema: Mapping[str, object]


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ToolCall:
    """The model asks for a tool; `id` pairs it with its result."""

    id: str
    name: str
    input: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class ToolResult:
    """What a tool returned (the executor's answer), sent back to the model as is.

    `content` is text for the model; when the tool registered sources it should name
    them by their `[N]` so the model can cite them. `is_error` tells the model the call
    failed and why, so it can recover instead of the turn failing.
    """

    tool_call_id: str
    content: str
    is_error: bool = False


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
        )


@dataclass(frozen=True)
class StreamDone:
    """The reply is complete. `usage` sums every request of the tool-use loop."""

    stop_reason: str
    usage: Usage
    model: str


@dataclass(frozen=True)
class StreamError:
    """The reply failed; text yielded before it is a partial answer worth saving.

    `retryable` is True when the same request may succeed later (overload, rate limit,
    timeout, network), False when it will not (a rejected key, a bad request).
    `status` is the HTTP status, or the status the API's error type stands for when the
    error arrived inside a stream; None for timeouts and network failures.
    """

    message: str
    retryable: bool
    status: int | None = None
    error_type: str | None = None  # the API's error type, or "timeout" / "connection"


StreamEvent: TypeAlias = TextDelta | ToolCall | ToolResult | StreamDone | StreamError
ToolExecutor: TypeAlias = Callable[[ToolCall], Awaitable[ToolResult]]


class ProviderError(Exception):
    """`complete()` failed; carries the same description a stream would have yielded."""

    def __init__(self, error: StreamError) -> None:
        super().__init__(error.message)
        self.error = error


class LLMProvider(Protocol):
    """What the reply pipeline needs from a language model."""

    @property
    def name(self) -> str: ...

    def model_name(self, role: ModelRole) -> str: ...

    def stream(
        self,
        *,
        system: str,
        messages: Sequence[ChatTurn],
        tools: Sequence[ToolSpec] = (),
        tool_executor: ToolExecutor | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        model_role: ModelRole = "main",
        sources: Sequence[SourceItem] = (),
    ) -> AsyncIterator[StreamEvent]:
        """Stream a reply, running the tool-use loop through `tool_executor`.

        `sources` are the turn's registry items. A remote model reads them in `system`;
        the offline provider composes its answer from them.
        """
        ...

    async def complete(
        self,
        *,
        system: str,
        prompt: str,
        task: CompletionTask = "other",
        max_tokens: int = 1024,
        model_role: ModelRole = "cheap",
    ) -> str:
        """One non-streamed answer for a cheap task; raises `ProviderError` on failure."""
        ...

    async def aclose(self) -> None: ...
