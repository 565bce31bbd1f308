"""Distillation and alignment: offline, over the real SDK, and when they fail."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import httpx2
import pytest

from apps.chat.llm import OfflineProvider
from apps.chat.llm.anthropic_provider import AnthropicProvider
from apps.chat.pipeline.distill_align import align_answer, distill_memory
from apps.chat.pipeline.prompt import MemoryLine, build_system_prompt
from apps.chat.pipeline.sources import SourceRegistry
from tests.chat.test_llm_anthropic import message_end, message_start, streamed, text_block

REFERENCED = MemoryLine("REFERENCED @ssdva", ["fact"], 3, "Working on project Alpha", (), 1)
AUTO = MemoryLine("AUTO", ["fact"], 12, "I work in tech", ["What do I do?"], 2)
PINNED = MemoryLine("GLOBAL PINNED", ["preference"], 5, "I like detailed answers", (), 3)


def claude_answering(*responses: httpx2.Response) -> tuple[AnthropicProvider, list[Any]]:
    queue, sent = list(responses), []

    def handler(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        return queue.pop(0)

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    provider = AnthropicProvider(
        api_key="sk-test", main_model="main", cheap_model="cheap", http_client=client, max_retries=0
    )
    return provider, sent


def message(text: str) -> httpx2.Response:
    """The cheap model's answer, streamed as `complete()` asks for it."""
    return streamed(message_start(), *text_block(0, text), *message_end("end_turn", 1))


def sources() -> SourceRegistry:
    registry = SourceRegistry()
    registry.register("claim", "c-3", "#3", "Working on project Alpha")
    registry.register("claim", "c-12", "#12", "I work in tech")
    return registry


@pytest.mark.asyncio
async def test_offline_distillation_leaves_referenced_claims_for_verbatim_reinjection() -> None:
    lines = [REFERENCED, AUTO, PINNED]

    digest = await distill_memory(OfflineProvider(), question="What am I doing?", lines=lines)
    assert digest == "- I work in tech (#12) [2]\n- I like detailed answers (#5) [3]"

    prompt = build_system_prompt(
        memory_lines=[],
        referenced_lines=[REFERENCED],
        distillate=digest,
        now=datetime(2025, 1, 1, tzinfo=UTC),
    )
    assert REFERENCED.render() in prompt
    assert prompt.index("- I work in tech (#12) [2]") < prompt.index(REFERENCED.render())


@pytest.mark.asyncio
async def test_distillation_failure_keeps_the_lines() -> None:
    provider, _ = claude_answering(httpx2.Response(529, json={"type": "error", "error": {}}))

    assert await distill_memory(provider, question="q", lines=[AUTO]) is None
    assert await distill_memory(OfflineProvider(), question="q", lines=[REFERENCED]) is None
    await provider.aclose()


@pytest.mark.asyncio
async def test_offline_alignment_returns_the_answer_unchanged_minus_invalid_citations() -> None:
    outcome = await align_answer(
        OfflineProvider(), answer="You work on Alpha [1] in tech [2] [7].", registry=sources()
    )

    assert outcome.answer == "You work on Alpha [1] in tech [2]."
    assert outcome.issues == ()


@pytest.mark.asyncio
async def test_alignment_applies_claudes_correction() -> None:
    verdict = {
        "pass": False,
        "issues": [{"type": "wrong_citation", "ref": 1, "claim": "You work in tech"}],
        "corrections": "You work in tech [2] on project Alpha [1]. [9]",
    }
    provider, sent = claude_answering(message("Here you go:\n" + json.dumps(verdict)))

    outcome = await align_answer(provider, answer="You work in tech [1].", registry=sources())
    await provider.aclose()

    assert outcome.corrected
    assert outcome.answer == "You work in tech [2] on project Alpha [1]."
    assert [issue.describe() for issue in outcome.issues] == [
        "wrong_citation [1]: You work in tech"
    ]
    assert sent[0]["model"] == "cheap"
    assert "<answer>\nYou work in tech [1].\n</answer>" in sent[0]["messages"][0]["content"]


@pytest.mark.asyncio
async def test_alignment_is_non_fatal() -> None:
    provider, _ = claude_answering(message("not json at all"), httpx2.Response(500, json={}))

    unreadable = await align_answer(provider, answer="Alpha [1].", registry=sources())
    failed = await align_answer(provider, answer="Alpha [1].", registry=sources())
    await provider.aclose()

    assert unreadable.answer == failed.answer == "Alpha [1]."
    assert not unreadable.corrected
    assert not failed.corrected
