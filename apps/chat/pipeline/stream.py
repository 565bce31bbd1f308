"""Steps 7 and 9: optional distillation, then the streamed answer with its tool calls."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

from django.conf import settings
from django.utils import timezone

from apps.chat.events import Delta, Emit, ToolAnswered, ToolCalled
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

from .prepare import memory_lines
from .types import PreparedTurn

logger = logging.getLogger(__name__)
STOPPED_BY_USER = "Stopped by the user."


@dataclass
class StreamOutcome:
    text: str = ""
    status: str = Message.Status.COMPLETE
    error: str = ""
    model: str = ""
    usage: dict[str, int] = field(default_factory=dict)
    tool_events: list[ToolCalled | ToolAnswered] = field(default_factory=list)


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
    prepared: PreparedTurn, *, provider: LLMProvider, emit: Emit, tool_executor: ToolExecutor | None
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
                await emit(Delta(text=event.text))
            elif isinstance(event, ToolCall):
                tool_event: ToolCalled | ToolAnswered = ToolCalled(
                    id=event.id, name=event.name, input=event.input
                )
                outcome.tool_events.append(tool_event)
                await emit(tool_event)
            elif isinstance(event, ToolResult):
                tool_event = ToolAnswered(
                    id=event.tool_call_id, content=event.content[:2000], is_error=event.is_error
                )
                outcome.tool_events.append(tool_event)
                await emit(tool_event)
            elif isinstance(event, StreamDone):
                outcome.model = event.model or outcome.model
                outcome.usage = {
                    "input_tokens": event.usage.input_tokens,
                    "output_tokens": event.usage.output_tokens,
                }
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
