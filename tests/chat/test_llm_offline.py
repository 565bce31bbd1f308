"""The offline provider: deterministic, cited answers from the turn's sources."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

from apps.chat.llm import (
    ChatTurn,
    OfflineProvider,
    StreamDone,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolResult,
)
from apps.chat.pipeline.sources import SourceRegistry
from apps.chat.pipeline.tools.schemas import MEMORY_TOOLS


async def collect(events: AsyncIterator[StreamEvent]) -> list[StreamEvent]:
    return [event async for event in events]


def text_of(events: list[StreamEvent]) -> str:
    return "".join(event.text for event in events if isinstance(event, TextDelta))


def ask(question: str) -> list[ChatTurn]:
    return [
        ChatTurn(role="user", content="Hi"),
        ChatTurn(role="assistant", content="Hello!"),
        ChatTurn(role="user", content=question),
    ]


def workout_registry() -> SourceRegistry:
    registry = SourceRegistry()
    registry.register("claim", "c-1", "#7", "My timezone is Europe/Paris")
    registry.register("claim", "c-2", "#42", "I prefer morning workouts before 8am", 0.82)
    registry.register("fact", "f-1", "your gym (name)", "Blue Fitness")
    registry.register("chunk", "k-1", "training-plan.md", "Week 1: three morning runs of 5 km", 0.4)
    return registry


@pytest.mark.asyncio
async def test_without_sources_it_says_it_is_offline_and_echoes_the_question() -> None:
    events = await collect(
        OfflineProvider().stream(system="S", messages=ask("What is my favourite colour?"))
    )

    text = text_of(events)
    assert "running offline" not in text  # the chat page's banner says it, once
    assert text.startswith("I found nothing about “What is my favourite colour?”")
    assert "[1]" not in text  # nothing to cite
    done = events[-1]
    assert isinstance(done, StreamDone)
    assert (done.stop_reason, done.model) == ("end_turn", "offline")


@pytest.mark.asyncio
async def test_it_streams_word_by_word() -> None:
    registry = workout_registry()
    events = await collect(
        OfflineProvider().stream(
            system="S", messages=ask("When do I work out?"), sources=registry.items()
        )
    )

    deltas = [event for event in events if isinstance(event, TextDelta)]
    assert len(deltas) > 10
    assert all(len(delta.text.split()) == 1 for delta in deltas)
    assert isinstance(events[-1], StreamDone)
    assert events[-1].usage.output_tokens == len(deltas)


@pytest.mark.asyncio
async def test_it_answers_from_the_sources_most_relevant_first_with_citations() -> None:
    registry = workout_registry()
    events = await collect(
        OfflineProvider().stream(
            system="S",
            messages=ask("When do I like my morning workouts?"),
            sources=registry.items(),
        )
    )

    text = text_of(events)
    assert text.splitlines() == [
        "- Your memory says: I prefer morning workouts before 8am [2].",  # the best first
        "- training-plan.md says: “Week 1: three morning runs of 5 km” [4].",
        # chosen by the user (pinned, referenced: no score), so shown though no word matches
        "- Your memory says: My timezone is Europe/Paris [1].",
        "- Your gym (name) is Blue Fitness [3].",
    ]
    assert registry.citations_in(text) == {1, 2, 3, 4}
    assert registry.invalid_citations_in(text) == set()
    assert "[1] #7 · claim" in registry.footer(text)


@pytest.mark.asyncio
async def test_a_long_passage_is_quoted_from_the_sentence_that_answers_the_question() -> None:
    registry = SourceRegistry()
    passage = (
        "The tower was built in 1871 from granite carried across the sound on barges. " * 5
        + "The lighthouse keeper's boat is called Marigold. She is painted yellow."
    )
    registry.register("document", "41", "skerry-point.txt", passage, 0.56)

    text = text_of(
        await collect(
            OfflineProvider().stream(
                system="S",
                messages=ask("What is the lighthouse keeper's boat called?"),
                sources=registry.items(),
            )
        )
    )

    assert (
        "- skerry-point.txt says: “…The lighthouse keeper's boat is called Marigold. "
        "She is painted yellow” [1]."
    ) in text.splitlines()


@pytest.mark.asyncio
async def test_it_is_deterministic_and_shows_at_most_max_sources() -> None:
    registry = SourceRegistry()
    for n in range(8):
        registry.register("claim", f"c-{n}", f"#{n}", f"Memory number {n} about tea")
    provider = OfflineProvider(max_sources=3)

    first = text_of(
        await collect(provider.stream(system="S", messages=ask("tea?"), sources=registry.items()))
    )
    again = text_of(
        await collect(provider.stream(system="S", messages=ask("tea?"), sources=registry.items()))
    )

    assert first == again
    assert len(registry.citations_in(first)) == 3
    assert "(5 more sources not shown.)" in first


@pytest.mark.asyncio
async def test_remember_that_calls_memory_add_when_the_tool_is_offered() -> None:
    calls: list[ToolCall] = []

    async def executor(call: ToolCall) -> ToolResult:
        calls.append(call)
        return ToolResult(call.id, "Saved as #43.")

    events = await collect(
        OfflineProvider().stream(
            system="S",
            messages=ask("Remember that my sister's birthday is on 3 May"),
            tools=MEMORY_TOOLS,
            tool_executor=executor,
        )
    )

    call = ToolCall(
        id="offline_call_1",
        name="memory_add",
        # The user asked: saved as asked, whatever the memory mode (apps/memory)
        input={"statement": "my sister's birthday is on 3 May", "asked_by_user": True},
    )
    assert calls == [call]
    assert events[:2] == [call, ToolResult("offline_call_1", "Saved as #43.")]
    assert text_of(events) == (
        "Noted. I saved this to your memory: “my sister's birthday is on 3 May”. Saved as #43."
    )


@pytest.mark.asyncio
async def test_remember_that_without_tools_is_answered_like_any_message() -> None:
    events = await collect(
        OfflineProvider().stream(system="S", messages=ask("Remember that I like tea"))
    )

    assert not any(isinstance(event, ToolCall | ToolResult) for event in events)
    assert "I found nothing about “Remember that I like tea”" in text_of(events)


@pytest.mark.asyncio
async def test_complete_answers_the_cheap_tasks_without_a_network() -> None:
    provider = OfflineProvider()
    prompt = (
        "<memory>\n"
        "- [REFERENCED @ssdva] [fact] #3 Working on project Alpha — source [1]\n"
        "- [AUTO] [fact] #12 I work in tech (answers: What do I do?) — source [2]\n"
        "- [GLOBAL PINNED] [preference, fact] #5 I like detailed explanations\n"
        "</memory>"
    )

    digest = await provider.complete(system="S", prompt=prompt, task="distill")
    verdict = await provider.complete(system="S", prompt="anything", task="align")

    assert digest == "- I work in tech (#12) [2]\n- I like detailed explanations (#5)"
    assert json.loads(verdict) == {"pass": True, "issues": []}
    assert await provider.complete(system="S", prompt="x", task="extract") == "[]"


@pytest.mark.asyncio
async def test_a_found_source_that_shares_no_word_with_the_question_is_left_out() -> None:
    registry = SourceRegistry()
    registry.register("claim", "c-1", "#1", "My #1 crypto is BTC", 0.31)
    registry.register("claim", "c-2", "#2", "I train three mornings a week", 0.52)

    text = text_of(
        await collect(
            OfflineProvider().stream(
                system="S",
                messages=ask("What do you know about my training?"),
                sources=registry.items(),
            )
        )
    )

    assert text == "- Your memory says: I train three mornings a week [2]."


def test_it_reads_like_an_answer_one_sentence_a_source_each_quoted_once() -> None:
    """Issue 28: the best source first, each quoting the original's sentence that answers
    once (not a whole passage), then what waits for the user's review."""
    from apps.chat.llm.offline import compose_offline_reply

    registry = SourceRegistry()
    registry.register(
        "document",
        "d-1",
        "lease.pdf",
        "RESIDENTIAL LEASE AGREEMENT. Tenant: Mara Horvat, Flat 4, Ilica 12, Zagreb. "
        "The monthly rent is EUR 1,450, due on the first day of each month. "
        "The deposit is two months of rent. Pets are allowed with the landlord's consent.",
        0.7,
    )
    registry.register("claim", "c-1", "Rent", "I pay the monthly rent by standing order", 0.6)
    registry.register("claim", "c-2", "Wait", "My rent goes up in May", 0.5, waiting=True)

    reply = compose_offline_reply("What is my monthly rent?", registry.items())

    lines = reply.splitlines()
    assert lines[0] == (
        "- lease.pdf says: “…The monthly rent is EUR 1,450, due on the first day of each "
        "month” [1]."
    )
    assert lines[1] == "- Your memory says: I pay the monthly rent by standing order [2]."
    assert lines[-1] == "Waiting for your review: “My rent goes up in May” [3]."
    assert reply.count("EUR 1,450") == 1
