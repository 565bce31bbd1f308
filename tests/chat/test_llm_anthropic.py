"""AnthropicProvider against the real `anthropic` SDK over a mocked HTTP transport.

The SDK (2.x) speaks HTTP through httpx2, so the transport is `httpx2.MockTransport`
answering with the server-sent-event bodies the Messages API streams.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2
import pytest

from apps.chat.llm import (
    ChatTurn,
    OfflineProvider,
    ProviderError,
    StreamDone,
    StreamError,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolResult,
    Usage,
    get_llm_provider,
)
from apps.chat.llm.anthropic_provider import AnthropicProvider
from apps.chat.pipeline.tools.schemas import MEMORY_SEARCH, MEMORY_TOOLS

MAIN, CHEAP, KEY = "claude-main-test", "claude-cheap-test", "sk-ant-test"
QUESTION = [ChatTurn(role="user", content="When do I like to work out?")]


# -- SSE bodies -------------------------------------------------------------------------


def sse(*events: dict[str, Any]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def message_start(input_tokens: int = 12) -> dict[str, Any]:
    message = {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": MAIN,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": 1},
    }
    return {"type": "message_start", "message": message}


def text_block(index: int, *chunks: str) -> list[dict[str, Any]]:
    start = {
        "type": "content_block_start",
        "index": index,
        "content_block": {"type": "text", "text": ""},
    }
    deltas = [
        {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": c}}
        for c in chunks
    ]
    return [start, {"type": "ping"}, *deltas, {"type": "content_block_stop", "index": index}]


def tool_use_block(
    index: int, tool_id: str, name: str, tool_input: dict[str, Any]
) -> list[dict[str, Any]]:
    raw = json.dumps(tool_input)
    block = {"type": "tool_use", "id": tool_id, "name": name, "input": {}}
    return [
        {"type": "content_block_start", "index": index, "content_block": block},
        *(
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "input_json_delta", "partial_json": part},
            }
            for part in (raw[:7], raw[7:])
        ),
        {"type": "content_block_stop", "index": index},
    ]


def message_end(stop_reason: str, output_tokens: int) -> list[dict[str, Any]]:
    return [
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": output_tokens},
        },
        {"type": "message_stop"},
    ]


def streamed(*events: dict[str, Any]) -> httpx2.Response:
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=sse(*events))


def api_error(status: int, error_type: str, message: str, **headers: str) -> httpx2.Response:
    body = {"type": "error", "error": {"type": error_type, "message": message}}
    return httpx2.Response(status, json=body, headers=headers)


# -- the fake Anthropic server ------------------------------------------------------------


Reply = httpx2.Response | Callable[[], httpx2.Response]


class FakeAnthropic:
    """Answers each request with the next queued reply and keeps what was sent."""

    def __init__(self, *replies: Reply) -> None:
        self.replies = list(replies)
        self.requests: list[httpx2.Request] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        reply = self.replies.pop(0)
        return reply() if callable(reply) else reply

    def body(self, index: int) -> dict[str, Any]:
        return json.loads(self.requests[index].content)


def claude(server: FakeAnthropic, **options: Any) -> AnthropicProvider:
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(server))
    settings: dict[str, Any] = {"max_retries": 0, **options}
    return AnthropicProvider(
        api_key=KEY, main_model=MAIN, cheap_model=CHEAP, http_client=client, **settings
    )


async def collect(events: AsyncIterator[StreamEvent]) -> list[StreamEvent]:
    return [event async for event in events]


# -- streaming ----------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_streams_text_deltas_then_done() -> None:
    server = FakeAnthropic(
        streamed(
            message_start(),
            *text_block(0, "You like ", "mornings [1]."),
            *message_end("end_turn", 7),
        )
    )
    provider = claude(server)

    events = await collect(provider.stream(system="SYSTEM PROMPT", messages=QUESTION))
    await provider.aclose()

    assert events == [
        TextDelta("You like "),
        TextDelta("mornings [1]."),
        StreamDone(stop_reason="end_turn", usage=Usage(12, 7), model=MAIN),
    ]
    sent = server.body(0)
    assert sent["model"] == MAIN
    assert sent["stream"] is True
    assert sent["system"] == "SYSTEM PROMPT"
    assert sent["messages"] == [{"role": "user", "content": "When do I like to work out?"}]
    assert "tools" not in sent
    headers = server.requests[0].headers
    assert KEY in (headers.get("x-api-key") or headers.get("authorization") or "")


@pytest.mark.asyncio
async def test_tool_use_round_trip_sends_the_tool_result_back() -> None:
    server = FakeAnthropic(
        streamed(
            message_start(20),
            *text_block(0, "Let me check."),
            *tool_use_block(1, "toolu_01", "memory_search", {"query": "workout time"}),
            *message_end("tool_use", 15),
        ),
        streamed(
            message_start(40),
            *text_block(0, "You prefer mornings [2]."),
            *message_end("end_turn", 9),
        ),
    )
    executed: list[ToolCall] = []

    async def executor(call: ToolCall) -> ToolResult:
        executed.append(call)
        return ToolResult(call.id, "[2] I prefer morning workouts")

    provider = claude(server)
    events = await collect(
        provider.stream(system="S", messages=QUESTION, tools=MEMORY_TOOLS, tool_executor=executor)
    )
    await provider.aclose()

    call = ToolCall(id="toolu_01", name="memory_search", input={"query": "workout time"})
    assert events == [
        TextDelta("Let me check."),
        call,
        ToolResult("toolu_01", "[2] I prefer morning workouts"),
        TextDelta("\n\n"),
        TextDelta("You prefer mornings [2]."),
        StreamDone(stop_reason="end_turn", usage=Usage(60, 24), model=MAIN),
    ]
    assert executed == [call]
    assert len(server.requests) == 2
    first, second = server.body(0), server.body(1)
    assert [tool["name"] for tool in first["tools"]] == [spec.name for spec in MEMORY_TOOLS]
    assert "tool_choice" not in first
    assert second["messages"][0] == {"role": "user", "content": "When do I like to work out?"}
    assert second["messages"][1] == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me check."},
            {
                "type": "tool_use",
                "id": "toolu_01",
                "name": "memory_search",
                "input": {"query": "workout time"},
            },
        ],
    }
    assert second["messages"][2] == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_01",
                "content": "[2] I prefer morning workouts",
                "is_error": False,
            }
        ],
    }


@pytest.mark.asyncio
async def test_tool_rounds_are_bounded_and_the_last_request_forbids_tools() -> None:
    asks_again = streamed(
        message_start(),
        *tool_use_block(0, "toolu_01", "memory_search", {"query": "x"}),
        *message_end("tool_use", 5),
    )
    server = FakeAnthropic(
        asks_again,
        streamed(message_start(), *text_block(0, "Answer."), *message_end("end_turn", 2)),
    )

    async def executor(call: ToolCall) -> ToolResult:
        return ToolResult(call.id, "nothing found")

    provider = claude(server, max_tool_rounds=1)
    events = await collect(
        provider.stream(
            system="S", messages=QUESTION, tools=[MEMORY_SEARCH], tool_executor=executor
        )
    )
    await provider.aclose()

    assert isinstance(events[-1], StreamDone)
    assert server.body(1)["tool_choice"] == {"type": "none"}


@pytest.mark.asyncio
async def test_a_failing_tool_becomes_an_error_result_for_the_model() -> None:
    server = FakeAnthropic(
        streamed(
            message_start(),
            *tool_use_block(0, "toolu_09", "memory_search", {"query": "x"}),
            *message_end("tool_use", 5),
        ),
        streamed(
            message_start(), *text_block(0, "Sorry, search failed."), *message_end("end_turn", 4)
        ),
    )

    async def executor(call: ToolCall) -> ToolResult:
        raise RuntimeError("database is down")

    provider = claude(server)
    events = await collect(
        provider.stream(
            system="S", messages=QUESTION, tools=[MEMORY_SEARCH], tool_executor=executor
        )
    )
    await provider.aclose()

    results = [event for event in events if isinstance(event, ToolResult)]
    assert len(results) == 1
    assert results[0].is_error
    assert server.body(1)["messages"][-1]["content"][0]["is_error"] is True
    assert isinstance(events[-1], StreamDone)


# -- errors -------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_rejected_key_is_a_clear_final_error() -> None:
    server = FakeAnthropic(api_error(401, "authentication_error", "invalid x-api-key"))
    provider = claude(server, max_retries=2)

    events = await collect(provider.stream(system="S", messages=QUESTION))
    await provider.aclose()

    assert len(events) == 1
    error = events[0]
    assert isinstance(error, StreamError)
    assert error.message.startswith("The Anthropic API key was rejected")
    assert error.retryable is False
    assert error.status == 401
    assert len(server.requests) == 1  # the SDK does not retry a 401


@pytest.mark.asyncio
async def test_overloaded_529_is_a_retryable_error() -> None:
    server = FakeAnthropic(api_error(529, "overloaded_error", "Overloaded"))
    provider = claude(server)

    events = await collect(provider.stream(system="S", messages=QUESTION))
    await provider.aclose()

    assert events == [
        StreamError(
            message="Claude is overloaded right now (Overloaded). Please try again in a moment.",
            retryable=True,
            status=529,
            error_type="overloaded_error",
        )
    ]


@pytest.mark.asyncio
async def test_the_sdk_retries_a_529_before_any_text() -> None:
    server = FakeAnthropic(
        api_error(529, "overloaded_error", "Overloaded", **{"retry-after-ms": "1"}),
        streamed(message_start(), *text_block(0, "Fine now."), *message_end("end_turn", 3)),
    )
    provider = claude(server, max_retries=1)

    events = await collect(provider.stream(system="S", messages=QUESTION))
    await provider.aclose()

    assert events[0] == TextDelta("Fine now.")
    assert isinstance(events[-1], StreamDone)
    assert len(server.requests) == 2


@pytest.mark.asyncio
async def test_an_error_event_mid_stream_keeps_the_partial_text() -> None:
    server = FakeAnthropic(
        streamed(
            message_start(),
            *text_block(0, "Partial ", "answer")[:-1],  # the block never closes
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
        )
    )
    provider = claude(server, max_retries=2)

    events = await collect(provider.stream(system="S", messages=QUESTION))
    await provider.aclose()

    assert events[:2] == [TextDelta("Partial "), TextDelta("answer")]
    error = events[2]
    assert isinstance(error, StreamError)
    assert (error.retryable, error.status, error.error_type) == (True, 529, "overloaded_error")
    assert len(events) == 3
    assert len(server.requests) == 1  # a started stream is never replayed


@pytest.mark.asyncio
async def test_a_dropped_connection_mid_stream_keeps_the_partial_text() -> None:
    head = sse(message_start(), *text_block(0, "Half an")[:-1])

    async def body() -> AsyncIterator[bytes]:
        yield head
        raise httpx2.ReadError("connection reset by peer")

    server = FakeAnthropic(
        lambda: httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body())
    )
    provider = claude(server)

    events = await collect(provider.stream(system="S", messages=QUESTION))
    await provider.aclose()

    assert events[0] == TextDelta("Half an")
    assert events[1] == StreamError(
        message="The connection to Anthropic failed. Please try again.",
        retryable=True,
        error_type="connection",
    )


@pytest.mark.asyncio
async def test_a_timeout_is_retryable_without_a_status() -> None:
    def times_out() -> httpx2.Response:
        raise httpx2.ReadTimeout("timed out")

    provider = claude(FakeAnthropic(times_out))
    events = await collect(provider.stream(system="S", messages=QUESTION))
    await provider.aclose()

    assert len(events) == 1
    assert isinstance(events[0], StreamError)
    assert (events[0].retryable, events[0].status, events[0].error_type) == (True, None, "timeout")


# -- complete() and the factory -----------------------------------------------------------


@pytest.mark.asyncio
async def test_complete_uses_the_cheap_model_and_streams_under_the_same_bounds() -> None:
    server = FakeAnthropic(
        streamed(
            message_start(),
            *text_block(0, "- Prefers mornings ", "(#42) [1]"),
            *message_end("end_turn", 9),
        )
    )
    provider = claude(server)

    digest = await provider.complete(
        system="Condense.", prompt="<memory>…</memory>", task="distill"
    )
    await provider.aclose()

    assert digest == "- Prefers mornings (#42) [1]"
    sent = server.body(0)
    assert sent["model"] == CHEAP
    assert sent["stream"] is True


@pytest.mark.asyncio
async def test_complete_raises_a_provider_error_not_an_sdk_error() -> None:
    provider = claude(FakeAnthropic(api_error(401, "authentication_error", "invalid x-api-key")))

    with pytest.raises(ProviderError) as caught:
        await provider.complete(system="S", prompt="P")
    await provider.aclose()

    assert caught.value.error.status == 401
    assert caught.value.error.retryable is False


@pytest.mark.asyncio
async def test_a_stream_that_ends_before_its_first_event_is_a_connection_error() -> None:
    provider = claude(FakeAnthropic(streamed(), streamed()))

    with pytest.raises(ProviderError) as caught:  # what review and distillation catch
        await provider.complete(system="S", prompt="P")
    events = await collect(provider.stream(system="S", messages=QUESTION))
    await provider.aclose()

    assert caught.value.error.error_type == "connection"
    assert events == [caught.value.error]


@pytest.mark.asyncio
async def test_the_factory_picks_claude_only_with_a_key() -> None:
    assert isinstance(
        get_llm_provider(api_key=None, main_model=MAIN, cheap_model=CHEAP), OfflineProvider
    )
    assert isinstance(
        get_llm_provider(api_key="  ", main_model=MAIN, cheap_model=CHEAP), OfflineProvider
    )

    provider = get_llm_provider(api_key=KEY, main_model=MAIN, cheap_model=CHEAP)
    assert isinstance(provider, AnthropicProvider)
    assert (provider.model_name("main"), provider.model_name("cheap")) == (MAIN, CHEAP)
    await provider.aclose()


@pytest.mark.asyncio
async def test_a_paused_turn_is_continued() -> None:
    server = FakeAnthropic(
        streamed(message_start(), *text_block(0, "Working on it."), *message_end("pause_turn", 3)),
        streamed(message_start(), *text_block(0, "Done."), *message_end("end_turn", 2)),
    )
    provider = claude(server)

    events = await collect(provider.stream(system="S", messages=QUESTION))
    await provider.aclose()

    assert [e.text for e in events if isinstance(e, TextDelta)] == [
        "Working on it.",
        "\n\n",
        "Done.",
    ]
    assert server.body(1)["messages"][-1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "Working on it."}],
    }


@pytest.mark.asyncio
async def test_closing_the_stream_early_closes_the_response() -> None:
    never = asyncio.Event()
    responses: list[httpx2.Response] = []

    async def body() -> AsyncIterator[bytes]:
        yield sse(message_start(), *text_block(0, "First words")[:-1])
        await never.wait()  # the server would keep streaming

    def respond() -> httpx2.Response:
        responses.append(
            httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body())
        )
        return responses[-1]

    provider = claude(FakeAnthropic(respond))

    events = provider.stream(system="S", messages=QUESTION)
    assert await anext(events) == TextDelta("First words")
    assert not responses[0].is_closed
    await events.aclose()  # what cancelling a reply does
    await provider.aclose()

    assert responses[0].is_closed
