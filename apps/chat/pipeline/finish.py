"""Steps 10–12: alignment review, the sources footer, saving the answer, and scheduling
memory extraction from the exchange."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db import transaction

from apps.chat.events import ToolCalled
from apps.chat.llm import LLMProvider
from apps.chat.models import Message
from apps.chat.pipeline.distill_align import align_answer
from apps.chat.services import message_append
from apps.indexing import services as indexing_services

from .stream import StreamOutcome
from .threads import in_worker_thread
from .types import PreparedTurn

logger = logging.getLogger(__name__)


async def review(
    prepared: PreparedTurn, outcome: StreamOutcome, provider: LLMProvider
) -> tuple[str, bool]:
    """Step 10: non-fatal; a complete answer may be corrected, a partial one only loses
    citations that point at nothing."""
    registry = prepared.registry
    if outcome.status != Message.Status.COMPLETE or not settings.CAIRN_ALIGNMENT_REVIEW:
        return registry.strip_invalid_citations(outcome.text), False
    try:
        result = await align_answer(provider, answer=outcome.text, registry=registry)
    except Exception:  # the review is a refinement; the answer stands without it
        logger.exception("alignment review failed")
        return registry.strip_invalid_citations(outcome.text), False
    return result.answer, result.corrected


def source_payload(prepared: PreparedTurn, answer: str) -> list[dict[str, Any]]:
    cited = prepared.registry.citations_in(answer)
    return [
        {
            "number": item.number,
            "kind": item.kind,
            "ref_id": item.ref_id,
            "title": item.title,
            "excerpt": item.excerpt[:300],
            "url": item.url,
            "cited": item.number in cited,
        }
        for item in prepared.registry.items()
    ]


def save_answer(
    prepared: PreparedTurn, outcome: StreamOutcome, answer: str, corrected: bool
) -> Message:
    """Step 11: the answer with its footer, memory, sources and counts, in one row."""
    footer = prepared.registry.footer(answer) if answer.strip() else ""
    with transaction.atomic():
        message = message_append(
            conversation=prepared.conversation,
            role=Message.Role.ASSISTANT,
            content=answer + footer,
            status=outcome.status,
            error=outcome.error,
            memory_used=[item.as_dict() for item in prepared.memory],
            sources=source_payload(prepared, answer),
            fact_counts=prepared.fact_counts.as_dict(),
            index_status=prepared.index_status,
            model_name=outcome.model,
            usage={
                **outcome.usage,
                "aligned": corrected,
                "distilled": prepared.distilled,
                "tools": len([e for e in outcome.tool_events if isinstance(e, ToolCalled)]),
            },
        )
        if outcome.status in (Message.Status.COMPLETE, Message.Status.PARTIAL):
            user_message_id = prepared.user_message.id
            transaction.on_commit(lambda: _schedule_extraction(user_message_id, message.id))
        if outcome.status == Message.Status.COMPLETE and answer.strip():
            # Cairn's own answers are memory too ("what did you tell me about X?"); a failed
            # or stopped one is not evidence and is never indexed (issue 17).
            indexing_services.message_index_enqueue(message_id=message.pk)
    return message


def _schedule_extraction(user_message_id: object, assistant_message_id: object) -> None:
    """Step 12: memory extraction runs in the background, per the user's memory mode."""
    from apps.chat.tasks import extraction_enqueue

    try:
        extraction_enqueue(
            user_message_id=user_message_id, assistant_message_id=assistant_message_id
        )
    except Exception:  # the answer is saved; a missed extraction is only a missed hint
        logger.exception("could not enqueue memory extraction")


async def finish_turn(
    prepared: PreparedTurn, outcome: StreamOutcome, provider: LLMProvider
) -> Message:
    answer, corrected = await review(prepared, outcome, provider)
    return await in_worker_thread(save_answer)(prepared, outcome, answer, corrected)
