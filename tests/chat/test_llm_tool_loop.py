"""Claude and an OpenAI-compatible server through the one tool-use loop
(`apps.chat.llm.execution.tool_use_loop`, issue 27): the real SDKs over a mocked HTTP
transport, each answering in its own wire format, and the same events coming out."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx2
import pytest

from apps.chat.llm import StreamDone, StreamError, TextDelta, ToolCall, ToolResult, Usage
from apps.chat.llm.anthropic_provider import AnthropicProvider
from apps.chat.llm.openai_compatible import OpenAICompatibleProvider
from apps.chat.pipeline.tools.schemas import MEMORY_TOOLS
from tests.chat import test_llm_anthropic as claude_wire
from tests.chat import test_llm_openai_compatible as compatible_wire

pytestmark = pytest.mark.asyncio
SEARCH = {"query": "workout time"}


def claude_round(text: str, tokens: tuple[int, int], call_id: str = "") -> httpx2.Response:
    blocks = [*claude_wire.text_block(0, text)]
    if call_id:
        blocks += claude_wire.tool_use_block(1, call_id, "memory_search", SEARCH)
    return claude_wire.streamed(
        claude_wire.message_start(tokens[0]),
        *blocks,
        *claude_wire.message_end("tool_use" if call_id else "end_turn", tokens[1]),
    )


def compatible_round(text: str, tokens: tuple[int, int], call_id: str = "") -> httpx2.Response:
    chunk = compatible_wire.chunk
    events = [chunk({"role": "assistant", "content": text})]
    if call_id:
        raw = json.dumps(SEARCH)
        part = {"index": 0, "id": call_id, "type": "function"}
        events += [
            chunk(
                {"tool_calls": [{**part, "function": {"name": "memory_search", "arguments": ""}}]}
            ),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": raw}}]}),
        ]
    events += [
        chunk({}, "tool_calls" if call_id else "stop"),
        {
            **chunk({}),
            "choices": [],
            "usage": {"prompt_tokens": tokens[0], "completion_tokens": tokens[1]},
        },
    ]
    return compatible_wire.sse(*events)


@dataclass(frozen=True)
class Wire:
    name: str
    answer: Callable[..., httpx2.Response]
    provider: Callable[..., AnthropicProvider | OpenAICompatibleProvider]
    model: str
    speaker: str


def claude(handler: Callable[[httpx2.Request], httpx2.Response], **options: Any) -> Any:
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    return AnthropicProvider(
        api_key=claude_wire.KEY,
        main_model=claude_wire.MAIN,
        cheap_model=claude_wire.CHEAP,
        http_client=client,
        max_retries=0,
        **options,
    )


def compatible(handler: Callable[[httpx2.Request], httpx2.Response], **options: Any) -> Any:
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    return OpenAICompatibleProvider(
        base_url=compatible_wire.BASE,
        main_model=compatible_wire.MODEL,
        http_client=client,
        max_retries=0,
        **options,
    )


WIRES = [
    Wire("claude", claude_round, claude, claude_wire.MAIN, "Claude"),
    Wire("openai-compatible", compatible_round, compatible, compatible_wire.MODEL, "The model"),
]


class Server:
    def __init__(self, *replies: httpx2.Response) -> None:
        self.replies = list(replies)
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.bodies.append(json.loads(request.content))
        return self.replies.pop(0)


async def _search(call: ToolCall) -> ToolResult:
    return ToolResult(call.id, "[2] I prefer morning workouts")


@pytest.mark.parametrize("wire", WIRES, ids=lambda wire: wire.name)
async def test_both_providers_run_a_tool_and_answer_with_the_same_events(wire: Wire) -> None:
    server = Server(
        wire.answer("Let me check.", (20, 15), call_id="call_01"),
        wire.answer("You prefer mornings [2].", (40, 9)),
    )
    provider = wire.provider(server)

    events = [
        event
        async for event in provider.stream(
            system="S", messages=claude_wire.QUESTION, tools=MEMORY_TOOLS, tool_executor=_search
        )
    ]
    await provider.aclose()

    call = ToolCall(id="call_01", name="memory_search", input=SEARCH)
    assert events == [
        TextDelta("Let me check."),
        call,
        ToolResult("call_01", "[2] I prefer morning workouts"),
        TextDelta("\n\n"),  # one round's text never runs into the next's
        TextDelta("You prefer mornings [2]."),
        StreamDone(
            stop_reason="end_turn" if wire.name == "claude" else "stop",
            usage=Usage(60, 24),  # both rounds
            model=wire.model,
        ),
    ]
    assert len(server.bodies) == 2
    assert "I prefer morning workouts" in json.dumps(server.bodies[1]["messages"][-1])


@pytest.mark.parametrize("wire", WIRES, ids=lambda wire: wire.name)
async def test_a_model_that_never_stops_asking_for_tools_ends_in_the_same_error(
    wire: Wire,
) -> None:
    server = Server(
        wire.answer("", (5, 5), call_id="call_01"),
        wire.answer("", (5, 5), call_id="call_02"),  # asks again when forbidden to
    )
    provider = wire.provider(server, max_tool_rounds=1)

    events = [
        event
        async for event in provider.stream(
            system="S", messages=claude_wire.QUESTION, tools=MEMORY_TOOLS, tool_executor=_search
        )
    ]
    await provider.aclose()

    assert [type(event) for event in events] == [ToolCall, ToolResult, StreamError]
    failure = events[-1]
    assert isinstance(failure, StreamError)
    assert failure.error_type == "tool_rounds_exceeded"
    assert failure.message == f"{wire.speaker} kept asking for tools and gave no answer."
    last_request = json.dumps(server.bodies[-1]["tool_choice"])
    assert "none" in last_request  # the last round forbade tools, on either wire
