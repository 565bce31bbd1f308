"""Any OpenAI-compatible chat server (Ollama, llama.cpp's server, vLLM, LM Studio …)
through the official `openai` SDK (3.x, over httpx2), streaming, with tool calls.

Local servers differ in what they support. Tools: many models answer a request with
`tools` with a 400 ("does not support tools"); the provider then asks again without them
for the rest of its life and answers from the memory in the prompt, which every model
can read. `CAIRN_LLM_TOOLS=off` skips the first try.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx2
import openai

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

# A request that reached the server is never sent again (the model may have started on
# it); a connection that could not be made is tried again once by the HTTP client.
DEFAULT_MAX_RETRIES = 0
SERVER = "The model server"
DEFAULT_MAX_TOOL_ROUNDS = 4
# Words a server uses when it refuses `tools` for a model that cannot call them.
_NO_TOOLS_HINTS = ("tool", "function")


@dataclass
class _PendingCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)

    def as_call(self, index: int) -> ToolCall:
        raw = "".join(self.arguments).strip() or "{}"
        try:
            arguments = json.loads(raw)
        except json.JSONDecodeError:
            arguments = {"_unparsed": raw}
        if not isinstance(arguments, dict):
            arguments = {"_value": arguments}
        return ToolCall(id=self.id or f"call_{index}", name=self.name, input=arguments)


class OpenAICompatibleProvider:
    name = "openai-compatible"

    def __init__(
        self,
        *,
        base_url: str,
        main_model: str,
        cheap_model: str | None = None,
        api_key: str | None = None,
        tools: bool = True,
        http_client: httpx2.AsyncClient | None = None,
        bounds: Bounds | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        max_tool_rounds: int = DEFAULT_MAX_TOOL_ROUNDS,
    ) -> None:
        if not base_url.strip() or not main_model.strip():
            raise ValueError("An OpenAI-compatible provider needs a base URL and a model.")
        self.base_url = base_url.strip()
        self._models: dict[ModelRole, str] = {
            "main": main_model.strip(),
            "cheap": (cheap_model or main_model).strip(),
        }
        self.tools_supported = tools
        self._max_tool_rounds = max_tool_rounds
        self._bounds = bounds or Bounds()
        self._client = openai.AsyncOpenAI(
            # Local servers ignore the key, but the SDK insists on one.
            api_key=(api_key or "").strip() or "not-needed",
            base_url=self.base_url,
            http_client=http_client or http_client_for(self._bounds),
            timeout=self._bounds.http_timeout(),
            max_retries=max_retries,
        )

    def model_name(self, role: ModelRole) -> str:
        return self._models[role]

    def describe(self) -> str:
        return f"{self._models['main']} on the OpenAI-compatible server at {self.base_url}"

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
        sources: Sequence[SourceItem] = (),  # the model reads them in `system`
    ) -> AsyncIterator[StreamEvent]:
        conversation: list[dict[str, Any]] = [{"role": "system", "content": system}]
        conversation += [
            {"role": turn.role, "content": turn.content}
            for turn in messages
            if turn.content.strip()
        ]
        rounds = _CompatibleRounds(
            self,
            model=self.model_name(model_role),
            conversation=conversation,
            tools=tools,
            max_tokens=max_tokens,
        )
        return tool_use_loop(
            rounds, tools=tools, executor=tool_executor, max_tool_rounds=self._max_tool_rounds
        )

    async def _create(
        self,
        *,
        model: str,
        conversation: list[dict[str, Any]],
        tools: Sequence[ToolSpec],
        last_round: bool,
        max_tokens: int,
    ) -> Any:
        extra: dict[str, Any] = {}
        if tools:
            extra["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": spec.name,
                        "description": spec.description,
                        "parameters": dict(spec.input_schema),
                    },
                }
                for spec in tools
            ]
            extra["tool_choice"] = "none" if last_round else "auto"
        return await self._client.chat.completions.create(
            model=model,
            messages=conversation,  # type: ignore[arg-type]
            max_tokens=max_tokens,
            stream=True,
            **extra,
        )

    async def complete(
        self,
        *,
        system: str,
        prompt: str,
        task: CompletionTask = "other",
        max_tokens: int = 1024,
        model_role: ModelRole = "cheap",
    ) -> str:
        # Streamed, so that a cheap call has the same bounds as an answer: a server that
        # is slow but alive is waited for, one that says nothing is given up on.
        watch = StreamWatch(self._bounds, server=SERVER)
        parts: list[str] = []
        try:
            async with watch.opening():
                chunks = await self._client.chat.completions.create(
                    model=self.model_name(model_role),
                    messages=[
                        {"role": "system", "content": system},
                        {"role": "user", "content": prompt},
                    ],
                    max_tokens=max_tokens,
                    stream=True,
                )
            async with chunks:
                stream = aiter(chunks)
                while (chunk := await watch.next_event(stream)) is not None:
                    parts += [choice.delta.content or "" for choice in chunk.choices[:1]]
        except Exception as error:
            failure = (
                watch.error() if watch.expired else stream_error_from(error, base_url=self.base_url)
            )
            if failure is None:
                raise
            raise ProviderError(failure) from error
        return "".join(parts)


class _CompatibleRounds:
    """The chat-completions side of the tool-use loop (`execution.tool_use_loop`): tool
    calls arrive in pieces and are put together; results go back as `tool` messages."""

    speaker = "The model"

    def __init__(
        self,
        provider: OpenAICompatibleProvider,
        *,
        model: str,
        conversation: list[dict[str, Any]],
        tools: Sequence[ToolSpec],
        max_tokens: int,
    ) -> None:
        self._provider = provider
        self._model = model
        self._answered_model = model
        self._conversation = conversation
        self._tools = tools
        self._max_tokens = max_tokens
        self._calls: tuple[ToolCall, ...] = ()

    async def round(
        self, *, last_round: bool
    ) -> AsyncGenerator[TextDelta | StreamError | RoundEnd, None]:
        offer_tools = bool(self._tools) and self._provider.tools_supported
        pending: dict[int, _PendingCall] = {}
        finish = "stop"
        usage = Usage()
        text_seen = False
        watch = StreamWatch(self._provider._bounds, server=SERVER)
        try:
            async with watch.opening():
                chunks = await self._provider._create(
                    model=self._model,
                    conversation=self._conversation,
                    tools=self._tools if offer_tools else (),
                    last_round=last_round,
                    max_tokens=self._max_tokens,
                )
            async with chunks:  # closes the response however the round ends
                stream = aiter(chunks)
                while (chunk := await watch.next_event(stream)) is not None:
                    self._answered_model = chunk.model or self._answered_model
                    if chunk.usage is not None:
                        usage += Usage(
                            chunk.usage.prompt_tokens or 0, chunk.usage.completion_tokens or 0
                        )
                    for choice in chunk.choices:
                        delta = choice.delta
                        if delta.content:
                            text_seen = True
                            yield TextDelta(delta.content)
                        for part in delta.tool_calls or ():
                            partial = pending.setdefault(part.index, _PendingCall())
                            partial.id = part.id or partial.id
                            if part.function is not None:
                                partial.name = part.function.name or partial.name
                                if part.function.arguments:
                                    partial.arguments.append(part.function.arguments)
                        if choice.finish_reason:
                            finish = choice.finish_reason
        except Exception as error:
            if offer_tools and not text_seen and _refuses_tools(error):
                # This server or model cannot call tools: ask again without them, now and
                # for the rest of the provider's life; the memory is in the prompt.
                self._provider.tools_supported = False
                async with contextlib.aclosing(self.round(last_round=last_round)) as again:
                    async for event in again:
                        yield event
                return
            failure = (
                watch.error()
                if watch.expired
                else stream_error_from(error, base_url=self._provider.base_url)
            )
            if failure is None:
                raise
            yield failure
            return
        self._calls = tuple(pending[index].as_call(index) for index in sorted(pending))
        yield RoundEnd(
            stop_reason=finish, usage=usage, model=self._answered_model, calls=self._calls
        )

    def add_tool_results(self, results: Sequence[ToolResult]) -> None:
        self._conversation.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": json.dumps(call.input)},
                    }
                    for call in self._calls
                ],
            }
        )
        self._conversation += [
            {"role": "tool", "tool_call_id": result.tool_call_id, "content": result.content}
            for result in results
        ]

    def add_continuation(self) -> None:
        """Chat completions have no paused turns; nothing to carry over."""


def _refuses_tools(error: Exception) -> bool:
    if not isinstance(error, openai.BadRequestError):
        return False
    text = f"{error.message} {getattr(error, 'body', '')}".lower()
    return any(hint in text for hint in _NO_TOOLS_HINTS)


def stream_error_from(error: Exception, *, base_url: str) -> StreamError | None:
    """The `StreamError` for an SDK or transport failure; None for anything else."""
    if isinstance(error, openai.APITimeoutError | httpx2.TimeoutException):
        return StreamError(
            message="The model server took too long to answer. Please try again in a moment.",
            retryable=True,
            error_type="timeout",
        )
    if isinstance(error, openai.APIConnectionError | httpx2.HTTPError | httpx2.StreamError):
        return StreamError(
            message=f"Cannot reach the model server at {base_url}: is it running? "
            "Check CAIRN_LLM_BASE_URL.",
            retryable=True,
            error_type="connection",
        )
    if isinstance(error, openai.APIStatusError):
        status = error.status_code
        detail = _detail(error)
        if status == 401:
            message, retryable = (
                "The model server refused the API key. Check CAIRN_LLM_API_KEY",
                False,
            )
        elif status == 404:
            message, retryable = (
                "The model server does not know this model. Check CAIRN_LLM_MODEL",
                False,
            )
        elif status == 429 or status >= 500:
            message, retryable = f"The model server is busy or failing ({status})", True
        else:
            message, retryable = f"The model server refused the request ({status})", False
        if detail:
            message += f": {detail}"
        message += ". Please try again in a moment." if retryable else "."
        return StreamError(
            message=message,
            retryable=retryable,
            status=status,
            error_type=str(error.code or status),
        )
    if isinstance(error, openai.APIError):  # an error event inside a 200 stream
        return StreamError(
            message=f"The model server failed mid-answer: {_detail(error) or 'no reason given'}.",
            retryable=True,
            error_type="stream_error",
        )
    if isinstance(error, openai.OpenAIError):
        return StreamError(message=f"The OpenAI client failed: {error}", retryable=False)
    return None


def _detail(error: openai.APIError) -> str:
    body = error.body
    if isinstance(body, dict):
        nested = body.get("error", body)
        message = nested.get("message") if isinstance(nested, dict) else nested
        if message:
            return str(message).strip().rstrip(".")[:300]
    return (error.message or "").strip().rstrip(".")[:300]
