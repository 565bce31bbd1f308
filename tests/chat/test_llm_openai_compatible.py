"""OpenAICompatibleProvider against the real `openai` SDK over a mocked HTTP transport,
answering with the server-sent events an OpenAI-compatible server (Ollama, llama.cpp,
vLLM) streams for `/v1/chat/completions`."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2
import pytest
from django.test import Client

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
    get_llm_provider,
)
from apps.chat.llm.factory import CompatibleServer, build_provider
from apps.chat.llm.openai_compatible import OpenAICompatibleProvider
from apps.chat.pipeline.tools.schemas import MEMORY_TOOLS

BASE = "http://127.0.0.1:11434/v1"
MODEL = "llama3.1"
QUESTION = [ChatTurn(role="user", content="When do I like to work out?")]


def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }


def sse(*events: dict[str, Any], done: bool = True) -> httpx2.Response:
    body = "".join(f"data: {json.dumps(event)}\n\n" for event in events)
    if done:
        body += "data: [DONE]\n\n"
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)


def text_reply(*parts: str) -> httpx2.Response:
    return sse(
        chunk({"role": "assistant", "content": ""}),
        *(chunk({"content": part}) for part in parts),
        chunk({}, "stop"),
        {**chunk({}), "choices": [], "usage": {"prompt_tokens": 20, "completion_tokens": 5}},
    )


def tool_call_reply(call_id: str, name: str, arguments: dict[str, Any]) -> httpx2.Response:
    raw = json.dumps(arguments)
    return sse(
        chunk(
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "index": 0,
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": ""},
                    }
                ],
            }
        ),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": raw[:10]}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": raw[10:]}}]}),
        chunk({}, "tool_calls"),
    )


def error(status: int, message: str) -> httpx2.Response:
    return httpx2.Response(status, json={"error": {"message": message, "type": "error"}})


Reply = httpx2.Response | Callable[[httpx2.Request], httpx2.Response]


class FakeServer:
    def __init__(self, *replies: Reply) -> None:
        self.replies = list(replies)
        self.requests: list[httpx2.Request] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        reply = self.replies.pop(0)
        return reply(request) if callable(reply) else reply

    def body(self, index: int) -> dict[str, Any]:
        return json.loads(self.requests[index].content)


def provider(server: FakeServer, **options: Any) -> OpenAICompatibleProvider:
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(server))
    return OpenAICompatibleProvider(
        base_url=BASE, main_model=MODEL, http_client=client, max_retries=0, **options
    )


async def collect(events: AsyncIterator[StreamEvent]) -> list[StreamEvent]:
    return [event async for event in events]


def run(provider: OpenAICompatibleProvider, **kwargs: Any) -> list[StreamEvent]:
    return asyncio.run(
        collect(provider.stream(system="You are Cairn.", messages=QUESTION, **kwargs))
    )


def test_text_streams_as_deltas_and_ends_done_with_usage() -> None:
    server = FakeServer(text_reply("Mornings ", "suit you [1]."))

    events = run(provider(server))

    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Mornings ", "suit you [1]."]
    done = events[-1]
    assert isinstance(done, StreamDone)
    assert (done.stop_reason, done.model, done.usage.input_tokens) == ("stop", MODEL, 20)
    request = server.body(0)
    assert request["model"] == MODEL
    assert request["stream"] is True
    assert request["messages"][0] == {"role": "system", "content": "You are Cairn."}
    assert server.requests[0].url == f"{BASE}/chat/completions"


def test_a_tool_call_runs_through_the_executor_and_the_answer_continues() -> None:
    server = FakeServer(
        tool_call_reply("call_1", "memory_search", {"query": "workout time", "limit": 3}),
        text_reply("You train in the morning [1]."),
    )
    seen: list[ToolCall] = []

    async def executor(call: ToolCall) -> ToolResult:
        seen.append(call)
        return ToolResult(tool_call_id=call.id, content="[1] #3 I prefer morning workouts")

    events = run(provider(server), tools=MEMORY_TOOLS, tool_executor=executor)

    assert seen == [
        ToolCall(id="call_1", name="memory_search", input={"query": "workout time", "limit": 3})
    ]
    assert isinstance(events[-1], StreamDone)
    follow_up = server.body(1)["messages"]
    assert follow_up[-2]["tool_calls"][0]["function"]["name"] == "memory_search"
    assert follow_up[-1] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "[1] #3 I prefer morning workouts",
    }
    assert server.body(0)["tools"][0]["type"] == "function"


def test_a_server_without_tools_is_asked_again_without_them_and_remembered() -> None:
    server = FakeServer(
        error(400, "registry.ollama.ai/library/gemma:2b does not support tools"),
        text_reply("From your memory: mornings."),
        text_reply("Again."),
    )
    chat = provider(server)

    first = run(chat, tools=MEMORY_TOOLS, tool_executor=None)
    second = run(chat, tools=MEMORY_TOOLS, tool_executor=None)

    assert isinstance(first[-1], StreamDone)
    assert isinstance(second[-1], StreamDone)
    assert "tools" in server.body(0)
    assert "tools" not in server.body(1)
    assert "tools" not in server.body(2)  # not tried again


def test_an_error_mid_stream_keeps_the_text_and_says_what_happened() -> None:
    server = FakeServer(
        sse(chunk({"content": "Mornings "}), {"error": {"message": "model crashed"}}, done=False)
    )

    events = run(provider(server))

    assert events[0] == TextDelta("Mornings ")
    failure = events[-1]
    assert isinstance(failure, StreamError)
    assert "model crashed" in failure.message


@pytest.mark.parametrize(
    ("reply", "words", "retryable"),
    [
        (error(401, "invalid api key"), "Check CAIRN_LLM_API_KEY", False),
        (error(404, "model 'llama9' not found"), "Check CAIRN_LLM_MODEL", False),
        (error(503, "loading model"), "busy or failing (503)", True),
    ],
)
def test_http_errors_are_plain_sentences(
    reply: httpx2.Response, words: str, retryable: bool
) -> None:
    events = run(provider(FakeServer(reply)))

    (failure,) = events
    assert isinstance(failure, StreamError)
    assert words in failure.message
    assert failure.retryable is retryable


def test_a_timeout_and_a_server_that_is_not_running() -> None:
    def slow(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ReadTimeout("no answer", request=request)

    def refused(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("connection refused", request=request)

    (timeout,) = run(provider(FakeServer(slow)))
    (down,) = run(provider(FakeServer(refused)))

    assert isinstance(timeout, StreamError)
    assert timeout.error_type == "timeout"
    assert isinstance(down, StreamError)
    assert down.message.startswith(f"Cannot reach the model server at {BASE}")


def test_complete_returns_the_text_or_raises_provider_error() -> None:
    server = FakeServer(text_reply("A ", "summary."))
    ok = provider(server)
    failing = provider(FakeServer(error(401, "bad key")))

    assert asyncio.run(ok.complete(system="s", prompt="p")) == "A summary."
    assert server.body(0)["stream"] is True  # streamed, so first-byte and idle bounds apply
    with pytest.raises(ProviderError, match="CAIRN_LLM_API_KEY"):
        asyncio.run(failing.complete(system="s", prompt="p"))


def test_the_factory_chooses_by_configuration(settings: Any) -> None:
    server = CompatibleServer(base_url=BASE, model=MODEL)

    assert isinstance(
        get_llm_provider(api_key=None, main_model="m", cheap_model="c"), OfflineProvider
    )
    chosen = get_llm_provider(api_key=None, main_model="m", cheap_model="c", compatible=server)
    assert isinstance(chosen, OpenAICompatibleProvider)
    assert chosen.model_name("cheap") == MODEL

    settings.ANTHROPIC_API_KEY = ""
    settings.CAIRN_LLM_BASE_URL = BASE
    settings.CAIRN_LLM_MODEL = MODEL
    assert isinstance(build_provider(), OpenAICompatibleProvider)


@pytest.mark.django_db
def test_the_settings_page_says_which_model_answers(
    client: Client, user: Any, settings: Any
) -> None:
    client.force_login(user)
    settings.ANTHROPIC_API_KEY = ""

    settings.CAIRN_LLM_BASE_URL = ""
    offline = client.get("/accounts/settings/").content.decode()
    settings.CAIRN_LLM_BASE_URL = BASE
    settings.CAIRN_LLM_MODEL = MODEL
    local = client.get("/accounts/settings/").content.decode()

    assert "The offline provider" in offline
    assert f"{MODEL} on the OpenAI-compatible server at {BASE}" in local
