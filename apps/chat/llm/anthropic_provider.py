"""Claude through the official `anthropic` SDK (2.x, which speaks HTTP through httpx2)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import Any

import anthropic
import httpx2
from anthropic.lib.streaming import AsyncMessageStream
from anthropic.types import (
    Message,
    MessageParam,
    TextBlock,
    ToolChoiceParam,
    ToolParam,
    ToolResultBlockParam,
    ToolUseBlock,
)

from apps.chat.llm.anthropic_errors import stream_error_from
from apps.chat.llm.bounds import Bounds, StreamWatch, http_client_for
from apps.chat.llm.execution import RoundEnd, tool_use_loop
from apps.chat.llm.types import (
    DEFAULT_MAX_TOKENS,
    ChatTurn,
    CompletionTask,
    ModelRole,
    ProviderError,
    SourceItem,
    StreamError,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolExecutor,
    ToolResult,
    ToolSpec,
    Usage,
)

# The SDK would send a request again after a timeout or a 5xx, when Claude may already
# have started on it; only a connection that could not be made is tried again, once, by
# the HTTP client (bounds.py).
DEFAULT_MAX_RETRIES = 0
SERVER = "Claude"
DEFAULT_MAX_TOOL_ROUNDS = 4


class AnthropicProvider:
    """Streams Claude's reply through the one tool-use loop (`execution.tool_use_loop`).

    Each round streams one request; when Claude stops for `tool_use`, every requested
    tool is run through the executor (yielding `ToolCall` then `ToolResult`), the results
    go back as `tool_result` blocks and the next round streams the continuation. The last
    round forbids tools (`tool_choice: none`) so the turn always ends in an answer.
    """

    name = "anthropic"

    def __init__(
        self,
        *,
        api_key: str,
        main_model: str,
        cheap_model: str,
        http_client: httpx2.AsyncClient | None = None,
        base_url: str | None = None,
        bounds: Bounds | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        max_tool_rounds: int = DEFAULT_MAX_TOOL_ROUNDS,
    ) -> None:
        if not api_key.strip():
            raise ValueError("AnthropicProvider needs an API key; use OfflineProvider without.")
        self._models: dict[ModelRole, str] = {"main": main_model, "cheap": cheap_model}
        self._max_tool_rounds = max_tool_rounds
        self._bounds = bounds or Bounds()
        self._client = anthropic.AsyncAnthropic(
            api_key=api_key,
            base_url=base_url,
            http_client=http_client or http_client_for(self._bounds),
            timeout=self._bounds.http_timeout(),
            max_retries=max_retries,
        )

    def model_name(self, role: ModelRole) -> str:
        return self._models[role]

    async def aclose(self) -> None:
        await self._client.close()

    def stream(
        self,
        *,
        system: str,
        messages: Sequence[ChatTurn],
        tools: Sequence[ToolSpec] = (),
        tool_executor: ToolExecutor | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        model_role: ModelRole = "main",
        sources: Sequence[SourceItem] = (),  # Claude reads them in `system`
    ) -> AsyncIterator[StreamEvent]:
        rounds = _ClaudeRounds(
            self,
            model=self.model_name(model_role),
            system=system,
            conversation=[_message_param(turn) for turn in messages if turn.content.strip()],
            tools=[_tool_param(spec) for spec in tools],
            max_tokens=max_tokens,
        )
        return tool_use_loop(
            rounds, tools=tools, executor=tool_executor, max_tool_rounds=self._max_tool_rounds
        )

    async def complete(
        self,
        *,
        system: str,
        prompt: str,
        task: CompletionTask = "other",  # the prompt already says what to do
        max_tokens: int = 1024,
        model_role: ModelRole = "cheap",
    ) -> str:
        # Streamed, so that a cheap call has the same bounds as an answer: a server that
        # is slow but alive is waited for, one that says nothing is given up on.
        watch = StreamWatch(self._bounds, server=SERVER)
        try:
            async with contextlib.AsyncExitStack() as stack:
                stream = await self._open(
                    watch,
                    stack,
                    model=self.model_name(model_role),
                    max_tokens=max_tokens,
                    system=system,
                    messages=[{"role": "user", "content": prompt}],
                )
                events = aiter(stream)
                while await watch.next_event(events) is not None:
                    pass
                message = await _final_message(stream, watch)
        except Exception as error:
            failure = watch.error() if watch.expired else stream_error_from(error)
            if failure is None:
                raise
            raise ProviderError(failure) from error
        return "".join(block.text for block in message.content if isinstance(block, TextBlock))

    async def _open(
        self, watch: StreamWatch, stack: contextlib.AsyncExitStack, **params: Any
    ) -> AsyncMessageStream:
        """Send the request within the first-byte deadline; `stack` closes its response."""
        async with watch.opening():
            return await stack.enter_async_context(self._client.messages.stream(**params))


class _ClaudeRounds:
    """The Messages API's side of the tool-use loop (`execution.tool_use_loop`): each
    round streams one request; tool results go back as `tool_result` blocks."""

    speaker = SERVER

    def __init__(
        self,
        provider: AnthropicProvider,
        *,
        model: str,
        system: str,
        conversation: list[MessageParam],
        tools: list[ToolParam],
        max_tokens: int,
    ) -> None:
        self._provider = provider
        self._model = model
        self._system = system
        self._conversation = conversation
        self._tools = tools
        self._max_tokens = max_tokens
        self._last: Message | None = None

    async def round(
        self, *, last_round: bool
    ) -> AsyncGenerator[TextDelta | StreamError | RoundEnd, None]:
        watch = StreamWatch(self._provider._bounds, server=SERVER)
        try:
            async with contextlib.AsyncExitStack() as stack:
                stream = await self._provider._open(
                    watch,
                    stack,
                    model=self._model,
                    max_tokens=self._max_tokens,
                    system=self._system,
                    messages=self._conversation,
                    tools=self._tools if self._tools else anthropic.omit,
                    tool_choice=_tool_choice(bool(self._tools), last_round),
                )
                events = aiter(stream)
                while (event := await watch.next_event(events)) is not None:
                    if event.type == "text" and event.text:
                        yield TextDelta(event.text)
                message = await _final_message(stream, watch)
        except Exception as error:
            failure = watch.error() if watch.expired else stream_error_from(error)
            if failure is None:
                raise
            yield failure
            return
        self._last = message
        asks_for_tools = message.stop_reason == "tool_use"
        yield RoundEnd(
            stop_reason=message.stop_reason or "end_turn",
            usage=Usage(message.usage.input_tokens, message.usage.output_tokens),
            model=message.model,
            calls=tuple(
                ToolCall(id=block.id, name=block.name, input=dict(block.input))
                for block in message.content
                if asks_for_tools and isinstance(block, ToolUseBlock)
            ),
            paused=message.stop_reason == "pause_turn",
        )

    def add_tool_results(self, results: Sequence[ToolResult]) -> None:
        self.add_continuation()
        blocks: list[ToolResultBlockParam] = [
            {
                "type": "tool_result",
                "tool_use_id": result.tool_call_id,
                "content": result.content,
                "is_error": result.is_error,
            }
            for result in results
        ]
        self._conversation.append({"role": "user", "content": blocks})

    def add_continuation(self) -> None:
        if self._last is not None:
            self._conversation.append(
                {"role": "assistant", "content": _assistant_content(self._last)}
            )


async def _final_message(stream: AsyncMessageStream, watch: StreamWatch) -> Message:
    if not watch.answering:  # the SDK has no message to give and would fail an assertion
        raise httpx2.RemoteProtocolError("Claude's stream ended before its first event.")
    return await stream.get_final_message()


def _message_param(turn: ChatTurn) -> MessageParam:
    if turn.role == "assistant":
        return {"role": "assistant", "content": turn.content}
    return {"role": "user", "content": turn.content}


def _tool_param(spec: ToolSpec) -> ToolParam:
    return {
        "name": spec.name,
        "description": spec.description,
        "input_schema": dict(spec.input_schema),
    }


def _tool_choice(has_tools: bool, last_round: bool) -> ToolChoiceParam | anthropic.Omit:
    if has_tools and last_round:
        return {"type": "none"}
    return anthropic.omit


def _assistant_content(message: Message) -> list[anthropic.types.ContentBlockParam]:
    """Claude's turn as it must be sent back: its text and its tool_use blocks."""
    content: list[anthropic.types.ContentBlockParam] = []
    for block in message.content:
        if isinstance(block, TextBlock) and block.text:
            content.append({"type": "text", "text": block.text})
        elif isinstance(block, ToolUseBlock):
            content.append(
                {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
            )
    return content
