"""Bounded waits on the model (issue 26): a model server that says nothing, one that stops
mid-answer, one that cannot be reached, and the person's "stop" while waiting.

Through the real `anthropic` and `openai` SDKs and their real HTTP stack, against a real
server on a free local port (tests/chat/model_server.py). The bound under test is set to
a second with the `settings` fixture and the others to an hour, so only it can end the
wait; the tests wait for events and count requests and closed connections, never the
clock.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from apps.chat.llm import (
    ChatTurn,
    LLMProvider,
    ProviderError,
    StreamError,
    StreamEvent,
    TextDelta,
)
from apps.chat.llm.anthropic_provider import AnthropicProvider
from apps.chat.llm.bounds import Bounds, StreamWatch
from apps.chat.llm.factory import build_provider
from apps.chat.llm.openai_compatible import OpenAICompatibleProvider
from apps.chat.models import Message
from apps.chat.services import conversation_create
from tests.chat.helpers import connect, events_until, of_type
from tests.chat.model_server import (
    QuietModelServer,
    anthropic_first_events,
    openai_first_events,
)
from tests.factories import UserFactory
from tests.processes import free_port

QUESTION = [ChatTurn(role="user", content="When do I train best?")]
PROVIDERS = ["anthropic", "openai-compatible"]
FIRST_EVENTS: dict[str, Callable[[str], bytes]] = {
    "anthropic": anthropic_first_events,
    "openai-compatible": openai_first_events,
}


LONG = 3600.0  # a bound no test reaches: only the one under test can end the wait


def bounded(settings: Any, *, first_byte: float = LONG, idle: float = LONG) -> Any:
    settings.CAIRN_LLM_FIRST_BYTE_TIMEOUT = first_byte
    settings.CAIRN_LLM_IDLE_TIMEOUT = idle
    settings.CAIRN_LLM_CONNECT_TIMEOUT = 1.0
    return settings


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)


def provider_at(settings: Any, kind: str, url: str) -> LLMProvider:
    """The provider as the site builds it from its settings (its own HTTP client)."""
    settings.CAIRN_MAIN_MODEL, settings.CAIRN_CHEAP_MODEL = "claude-main", "claude-cheap"
    settings.CAIRN_LLM_MODEL, settings.CAIRN_LLM_CHEAP_MODEL = "llama-test", ""
    if kind == "anthropic":
        settings.ANTHROPIC_API_KEY, settings.CAIRN_LLM_BASE_URL = "sk-ant-test", ""
        with pytest.MonkeyPatch.context() as env:
            # The SDK takes its address from its own variable: the local server.
            env.setenv("ANTHROPIC_BASE_URL", url)
            provider = build_provider()
        assert isinstance(provider, AnthropicProvider)
        return provider
    settings.ANTHROPIC_API_KEY, settings.CAIRN_LLM_BASE_URL = "", f"{url}/v1"
    provider = build_provider()
    assert isinstance(provider, OpenAICompatibleProvider)
    return provider


async def collect(events: AsyncIterator[StreamEvent]) -> list[StreamEvent]:
    return [event async for event in events]


# -- the words ------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_the_default_bounds_and_their_words(settings: Any) -> None:
    bounds = Bounds.from_settings()
    waiting = StreamWatch(bounds, server="The model server")
    answering = StreamWatch(bounds, server="The model server")
    answering.answering = True

    assert (bounds.first_byte, bounds.idle, bounds.connect) == (30.0, 30.0, 10.0)
    assert waiting.error().message == (
        "The model server did not start answering within 30 seconds; nothing more will come."
    )
    assert answering.error().message == (
        "The model server stopped answering for 30 seconds; the answer ends here."
    )
    timeout = bounds.http_timeout()  # the HTTP client's own timeouts only back the watch up
    assert timeout.connect == 10.0
    assert timeout.read is not None
    assert timeout.read > bounds.first_byte


def test_a_bound_of_zero_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="CAIRN_LLM_IDLE_TIMEOUT must be a number of seconds"):
        Bounds(idle=0)


# -- (a) a server that accepts the request and never answers --------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", PROVIDERS)
async def test_a_server_that_never_answers_gives_the_first_byte_error_once(
    settings: Any, kind: str
) -> None:
    async with QuietModelServer() as server:
        provider = provider_at(bounded(settings, first_byte=1), kind, server.url)

        events = await collect(provider.stream(system="S", messages=QUESTION))
        await server.wait_until(requests=1, hung_up=1)
        await provider.aclose()

    (failure,) = events
    assert isinstance(failure, StreamError)
    assert failure.error_type == "first_byte_timeout"
    assert "did not start answering within 1 second; nothing more will come" in failure.message
    assert len(server.requests) == 1  # a request that was sent is never sent again
    assert server.requests[0]["stream"] is True


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", PROVIDERS)
async def test_a_cheap_call_to_a_silent_server_fails_as_a_provider_error(
    settings: Any, kind: str
) -> None:
    async with QuietModelServer() as server:
        provider = provider_at(bounded(settings, first_byte=1), kind, server.url)

        with pytest.raises(ProviderError) as caught:  # what review/distillation catch
            await provider.complete(system="Condense.", prompt="<memory/>", task="distill")
        await server.wait_until(requests=1, hung_up=1)
        await provider.aclose()

    assert caught.value.error.error_type == "first_byte_timeout"
    assert len(server.requests) == 1


# -- (b) a server that starts the answer and stops ------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", PROVIDERS)
async def test_a_server_that_stalls_mid_answer_gives_the_idle_error_after_the_text(
    settings: Any, kind: str
) -> None:
    async with QuietModelServer(FIRST_EVENTS[kind]("You train best ")) as server:
        provider = provider_at(bounded(settings, idle=1), kind, server.url)

        events = await collect(provider.stream(system="S", messages=QUESTION))
        await server.wait_until(requests=1, hung_up=1)
        await provider.aclose()

    assert events[0] == TextDelta("You train best ")
    failure = events[-1]
    assert isinstance(failure, StreamError)
    assert failure.error_type == "idle_timeout"
    assert "stopped answering for 1 second; the answer ends here" in failure.message
    assert len(events) == 2
    assert len(server.requests) == 1


# -- (c) nothing listening -----------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", PROVIDERS)
async def test_a_refused_connection_is_tried_once_more_then_said_in_words(
    settings: Any, kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    provider = provider_at(bounded(settings), kind, url)

    with caplog.at_level(logging.DEBUG, logger="httpcore2.connection"):
        events = await collect(provider.stream(system="S", messages=QUESTION))
    await provider.aclose()

    attempts = [r for r in caplog.records if r.getMessage().startswith("connect_tcp.started")]
    assert len(attempts) == 2  # the first and one retry
    (failure,) = events
    assert isinstance(failure, StreamError)
    assert failure.error_type == "connection"
    expected = {
        "anthropic": "The connection to Anthropic failed",
        "openai-compatible": f"Cannot reach the model server at {url}/v1: is it running?",
    }
    assert expected[kind] in failure.message


@pytest.mark.asyncio
async def test_the_proxy_of_the_environment_is_still_used(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with QuietModelServer() as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        monkeypatch.setenv("NO_PROXY", "")
        provider = provider_at(
            bounded(settings, first_byte=1), "openai-compatible", "http://model.invalid"
        )

        (failure,) = await collect(provider.stream(system="S", messages=QUESTION))
        await proxy.wait_until(requests=1, hung_up=1)
        await provider.aclose()

    assert isinstance(failure, StreamError)
    assert failure.error_type == "first_byte_timeout"  # it reached the proxy, not DNS


# -- (d) "stop" while waiting for the first byte --------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", PROVIDERS)
async def test_cancelling_while_waiting_for_the_first_byte_closes_the_connection_at_once(
    settings: Any, kind: str
) -> None:
    async with QuietModelServer() as server:
        # Bounds no test reaches: the connection can only close because of the stop.
        provider = provider_at(bounded(settings), kind, server.url)
        received: list[StreamEvent] = []

        async def consume() -> None:
            async for event in provider.stream(system="S", messages=QUESTION):
                received.append(event)

        turn = asyncio.create_task(consume())
        await server.wait_until(requests=1)
        turn.cancel()  # what the page's "cancel" frame does to the turn
        with pytest.raises(asyncio.CancelledError):
            await turn
        await server.wait_until(hung_up=1)
        await provider.aclose()

    assert received == []
    assert (len(server.requests), server.hung_up) == (1, 1)


# -- through the chat socket -----------------------------------------------------------------


@pytest.fixture
def layer_in_memory(settings: Any) -> None:
    """The socket's own life over Redis is issue 26's first item and its own test; until
    redis-py's read timeout outlasts channels_redis's blocking read, a socket idle for 5 s
    on a busy machine dies, which is not what these tests are about."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("first_events", "bounds", "status", "words"),
    [
        (
            None,
            {"first_byte": 1},
            "failed",
            "did not start answering within 1 second; nothing more will come. "
            "Your message is saved.",
        ),
        (
            openai_first_events("You train best "),
            {"idle": 1},
            "partial",
            "stopped answering for 1 second; "
            "the answer ends here. Your message and the answer so far are saved.",
        ),
    ],
)
async def test_a_hanging_model_ends_the_turn_in_words_and_saves_what_there_is(
    layer_in_memory: None,
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
    first_events: bytes | None,
    bounds: dict[str, float],
    status: str,
    words: str,
) -> None:
    settings.CAIRN_ALIGNMENT_REVIEW = False
    async with QuietModelServer(first_events) as server:
        provider = provider_at(bounded(settings, **bounds), "openai-compatible", server.url)
        monkeypatch.setattr(
            "apps.chat.consumers.provider_for_running_loop", lambda _answerer: provider
        )
        user = await sync_to_async(UserFactory)()
        conversation = await sync_to_async(conversation_create)(user=user)
        ws = await connect(user, conversation.id)

        await ws.send_json_to({"type": "message", "text": "When do I train best?"})
        events = await events_until(ws, "done")
        await server.wait_until(requests=1, hung_up=1)
        await ws.disconnect()
        await provider.aclose()

    (error,) = of_type(events, "error")
    assert error["code"] == "provider"
    assert error["message"] == f"The model server {words}"
    saved = await sync_to_async(list)(conversation.messages.order_by("order"))
    assert [(m.role, m.status) for m in saved] == [
        (Message.Role.USER, Message.Status.COMPLETE),
        (Message.Role.ASSISTANT, status),
    ]
    assert saved[0].content == "When do I train best?"
    assert error["message_id"] == str(saved[1].id)
    if status == "partial":
        assert saved[1].content.startswith("You train best")
    assert len(server.requests) == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_pages_stop_while_the_model_is_silent_ends_the_turn_at_once(
    layer_in_memory: None, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with QuietModelServer() as server:
        # Bounds no test reaches: only the stop can end this wait.
        provider = provider_at(bounded(settings), "openai-compatible", server.url)
        monkeypatch.setattr(
            "apps.chat.consumers.provider_for_running_loop", lambda _answerer: provider
        )
        user = await sync_to_async(UserFactory)()
        conversation = await sync_to_async(conversation_create)(user=user)
        ws = await connect(user, conversation.id)

        await ws.send_json_to({"type": "message", "text": "When do I train best?"})
        await server.wait_until(requests=1)
        await ws.send_json_to({"type": "cancel"})
        events = await events_until(ws, "done")
        await server.wait_until(hung_up=1)
        await ws.disconnect()
        await provider.aclose()

    (error,) = of_type(events, "error")
    assert error["code"] == "cancelled"
    saved = await sync_to_async(list)(conversation.messages.order_by("order"))
    assert [(m.role, m.status) for m in saved] == [
        (Message.Role.USER, Message.Status.COMPLETE),
        (Message.Role.ASSISTANT, Message.Status.FAILED),
    ]
    assert (len(server.requests), server.hung_up) == (1, 1)
