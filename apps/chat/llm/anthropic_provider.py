"""Claude through the official `anthropic` SDK (2.x, which speaks HTTP through httpx2)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
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
from apps.chat.llm.execution import run_tool_call
from apps.chat.llm.types import (
    DEFAULT_MAX_TOKENS,
    ChatTurn,
    CompletionTask,
    ModelRole,
    ProviderError,
    StreamDone,
    StreamError,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolExecutor,
    ToolSpec,
    Usage,
)
from apps.chat.pipeline.sources import SourceItem

# The SDK would send a request again after a timeout or a 5xx, when Claude may already
# have started on it; only a connection that could not be made is tried again, once, by
# the HTTP client (bounds.py).
DEFAULT_MAX_RETRIES = 0
SERVER = "Claude"
DEFAULT_MAX_TOOL_ROUNDS = 4


class AnthropicProvider:
    """Streams Claude's reply and runs the client-side tool-use loop.

    Each round streams one request; when Claude stops for `tool_use`, every requested
    tool is run through the executor (yielding `ToolCall` then `ToolResult`), the results
    go back as `tool_result` blocks and the next round streams the continuation. After
    `max_tool_rounds` rounds of tools the last request forbids tools (`tool_choice: none`)
    so the turn always ends in an answer.
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

    async def stream(
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
        model = self.model_name(model_role)
        conversation = [_message_param(turn) for turn in messages if turn.content.strip()]
        tool_params: list[ToolParam] = [_tool_param(spec) for spec in tools]
        available = {spec.name for spec in tools}
        usage = Usage()
        last_text = ""

        for round_number in range(self._max_tool_rounds + 1):
            last_round = round_number == self._max_tool_rounds
            separate = bool(last_text) and not last_text.endswith("\n")
            watch = StreamWatch(self._bounds, server=SERVER)
            try:
                async with contextlib.AsyncExitStack() as stack:
                    stream = await self._open(
                        watch,
                        stack,
                        model=model,
                        max_tokens=max_tokens,
                        system=system,
                        messages=conversation,
                        tools=tool_params if tool_params else anthropic.omit,
                        tool_choice=_tool_choice(bool(tool_params), last_round),
                    )
                    events = aiter(stream)
                    while (event := await watch.next_event(events)) is not None:
                        if event.type != "text" or not event.text:
                            continue
                        if separate:  # keep one round's text from running into the next
                            separate = False
                            yield TextDelta("\n\n")
                        last_text = event.text
                        yield TextDelta(event.text)
                    message = await _final_message(stream, watch)
            except Exception as error:
                failure = watch.error() if watch.expired else stream_error_from(error)
                if failure is None:
                    raise
                yield failure
                return

            usage += Usage(message.usage.input_tokens, message.usage.output_tokens)
            calls = [block for block in message.content if isinstance(block, ToolUseBlock)]
            if message.stop_reason == "tool_use" and calls and not last_round:
                conversation.append({"role": "assistant", "content": _assistant_content(message)})
                results: list[ToolResultBlockParam] = []
                for block in calls:
                    call = ToolCall(id=block.id, name=block.name, input=dict(block.input))
                    yield call
                    result = await run_tool_call(call, available=available, executor=tool_executor)
                    yield result
                    results.append(
                        {
                            "type": "tool_result",
                            "tool_use_id": call.id,
                            "content": result.content,
                            "is_error": result.is_error,
                        }
                    )
                conversation.append({"role": "user", "content": results})
                continue
            if message.stop_reason == "pause_turn" and not last_round:
                conversation.append({"role": "assistant", "content": _assistant_content(message)})
                continue
            if message.stop_reason == "tool_use":
                yield StreamError(
                    message="Claude kept asking for tools and gave no answer.",
                    retryable=False,
                    error_type="tool_rounds_exceeded",
                )
                return
            yield StreamDone(
                stop_reason=message.stop_reason or "end_turn", usage=usage, model=message.model
            )
            return

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
