"""Steps 7 and 9: optional distillation, then the streamed answer with its tool calls."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from django.conf import settings
from django.utils import timezone

from apps.chat.llm import (
    LLMProvider,
    StreamDone,
    StreamError,
    TextDelta,
    ToolCall,
    ToolExecutor,
    ToolResult,
)
from apps.chat.models import Message
from apps.chat.pipeline.distill_align import distill_memory
from apps.chat.pipeline.prompt import build_system_prompt
from apps.chat.pipeline.tools.schemas import MEMORY_TOOLS
from apps.chat.services import TokenUsage

from .prepare import memory_lines
from .types import PreparedTurn

logger = logging.getLogger(__name__)
STOPPED_BY_USER = "Stopped by the user."
# What the answer is made of as it arrives; the caller relays it (the page's events are
# the caller's: the pipeline speaks the provider's types and never the page's).
Relay = Callable[[TextDelta | ToolCall | ToolResult], Awaitable[None]]


@dataclass
class StreamOutcome:
    text: str = ""
    status: str = Message.Status.COMPLETE
    error: str = ""
    model: str = ""
    usage: TokenUsage | None = None
    tool_calls: int = 0


async def distill(prepared: PreparedTurn, provider: LLMProvider) -> None:
    """Step 7: a cheap model condenses the non-referenced memory; referenced claims are
    re-injected verbatim after the digest (seeds/000), so distillation can never drop or
    paraphrase what the user asked for by name."""
    lines = memory_lines(prepared.memory)
    unreferenced = [line for line in lines if not line.is_referenced]
    if len(unreferenced) < settings.CAIRN_DISTILL_MIN_LINES:
        return
    digest = await distill_memory(provider, question=prepared.clean_text, lines=lines)
    if digest is None:
        return
    prepared.system_prompt = build_system_prompt(
        memory_lines=[],
        referenced_lines=[line for line in lines if line.is_referenced],
        distillate=digest,
        facts=prepared.fact_lines,
        chunks=prepared.chunk_lines,
        lists=prepared.list_sections,
        registry=prepared.registry,
        user_name=prepared.conversation.user.name,
        now=timezone.now(),
    )
    prepared.distilled = True


async def stream_answer(
    prepared: PreparedTurn,
    *,
    provider: LLMProvider,
    relay: Relay,
    tool_executor: ToolExecutor | None,
) -> StreamOutcome:
    """Step 9: relay each delta as it arrives. A provider error or a cancellation keeps
    what arrived (partial) and never raises: the caller always has something to save."""
    outcome = StreamOutcome(model=provider.model_name("main"))
    parts: list[str] = []
    try:
        async for event in provider.stream(
            system=prepared.system_prompt,
            messages=prepared.history,
            tools=MEMORY_TOOLS if tool_executor else (),
            tool_executor=tool_executor,
            sources=prepared.registry.items(),
        ):
            if isinstance(event, TextDelta):
                parts.append(event.text)
                await relay(event)
            elif isinstance(event, ToolCall):
                outcome.tool_calls += 1
                await relay(event)
            elif isinstance(event, ToolResult):
                await relay(event)
            elif isinstance(event, StreamDone):
                outcome.model = event.model or outcome.model
                outcome.usage = TokenUsage(
                    input_tokens=event.usage.input_tokens, output_tokens=event.usage.output_tokens
                )
            elif isinstance(event, StreamError):
                outcome.status = Message.Status.PARTIAL if parts else Message.Status.FAILED
                outcome.error = event.message
    except asyncio.CancelledError:
        outcome.status = Message.Status.PARTIAL if parts else Message.Status.FAILED
        outcome.error = STOPPED_BY_USER
    except Exception as error:  # a bug in a provider must still leave a saved message
        logger.exception("the answer stream failed")
        outcome.status = Message.Status.PARTIAL if parts else Message.Status.FAILED
        outcome.error = f"The answer failed: {error}"
    outcome.text = "".join(parts)
    return outcome
