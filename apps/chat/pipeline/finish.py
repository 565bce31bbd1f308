"""Steps 10–12: alignment review, numbering the sources by first use with the footer,
saving the answer with what the review found, and scheduling memory extraction from the
exchange."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace

from django.conf import settings
from django.db import transaction

from apps.chat.llm import LLMProvider
from apps.chat.models import Message
from apps.chat.pipeline.distill_align import ReviewFinding, align_answer
from apps.chat.pipeline.sources import Renumbered, renumbered
from apps.chat.services import (
    StoredFinding,
    StoredMemoryItem,
    StoredSource,
    TurnOutcome,
    message_append,
)
from apps.core.work import work_add
from apps.indexing import services as indexing_services

from .saving import PendingAnswer, save_with_retries
from .stream import StreamOutcome
from .types import PreparedTurn

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Review:
    answer: str
    corrected: bool = False
    findings: tuple[ReviewFinding, ...] = ()


async def review(prepared: PreparedTurn, outcome: StreamOutcome, provider: LLMProvider) -> Review:
    """Step 10: non-fatal; a complete answer may be corrected, a partial one only loses
    citations that point at nothing. What the review found is kept either way."""
    registry = prepared.registry
    valid = registry.strip_invalid_citations(outcome.text)
    if outcome.status != Message.Status.COMPLETE:
        return Review(answer=valid)
    if not settings.CAIRN_ALIGNMENT_REVIEW:
        return Review(answer=registry.with_held_back(valid))
    try:
        result = await align_answer(provider, answer=outcome.text, registry=registry)
    except Exception:  # the review is a refinement; the answer stands without it
        logger.exception("alignment review failed")
        return Review(answer=registry.with_held_back(valid))
    return Review(
        answer=registry.with_held_back(result.answer),
        corrected=result.corrected,
        findings=result.issues,
    )


def source_payload(numbered: Renumbered) -> list[StoredSource]:
    return [
        {
            "number": item.number,
            "kind": item.kind,
            "ref_id": item.ref_id,
            "title": item.title,
            "excerpt": item.excerpt[:300],
            "url": item.url,
            "cited": item.number in numbered.cited,
        }
        for item in numbered.items
    ]


def findings_payload(
    findings: Sequence[ReviewFinding], numbered: Renumbered
) -> list[StoredFinding]:
    """The findings in the saved answer's numbers; one about a number the final answer no
    longer cites (a correction removed it) keeps its reason but loses the number."""
    payload = []
    for finding in findings:
        ref = numbered.new_numbers.get(finding.ref) if finding.ref is not None else None
        shown = ref if ref in numbered.cited else None
        payload.append(replace(finding, ref=shown).as_dict())
    return payload


def memory_payload(prepared: PreparedTurn, numbered: Renumbered) -> list[StoredMemoryItem]:
    rows = []
    for item in prepared.memory:
        row = item.as_dict()
        if item.source_number is not None:
            row["source"] = numbered.new_numbers.get(item.source_number)
        rows.append(row)
    return rows


def extraction_enqueue(*, user_message_id: object, assistant_message_id: object) -> None:
    """Owe step 12, memory extraction, in the transaction that saves the answer. The task
    is named, not imported: the background job sits above the pipeline it is owed by."""
    work_add(
        task="apps.chat.tasks.extract_memories",
        args=[str(user_message_id), str(assistant_message_id)],
    )


def save_answer(pending: PendingAnswer) -> Message:
    """Step 11: the answer, renumbered by first use, with its footer, memory, sources,
    the review's findings and counts, in one row, under the id chosen for it: a retry
    after a commit whose answer was lost in transit finds the row instead of adding one."""
    prepared, outcome, checked = pending.prepared, pending.outcome, pending.checked
    saved = Message.objects.filter(pk=pending.id, conversation=prepared.conversation).first()
    if saved is not None:
        return saved
    numbered = renumbered(prepared.registry, checked.answer)
    footer = numbered.footer() if checked.answer.strip() else ""
    with transaction.atomic():
        message = message_append(
            message_id=pending.id,
            conversation=prepared.conversation,
            role=Message.Role.ASSISTANT,
            content=numbered.text + footer,
            status=outcome.status,
            error=outcome.error,
            memory_used=memory_payload(prepared, numbered),
            sources=source_payload(numbered),
            review_findings=findings_payload(checked.findings, numbered),
            fact_counts=prepared.fact_counts.as_dict(),
            index_status=prepared.index_status,
            model_name=outcome.model,
            outcome=TurnOutcome(
                usage=outcome.usage,
                review_corrected=checked.corrected,
                memory_distilled=prepared.distilled,
                tool_calls=outcome.tool_calls,
            ),
        )
        if outcome.status in (Message.Status.COMPLETE, Message.Status.PARTIAL):
            # Step 12, owed with the answer: memory extraction runs in the background, per
            # the user's memory mode.
            extraction_enqueue(
                user_message_id=prepared.user_message.id, assistant_message_id=message.id
            )
        if outcome.status == Message.Status.COMPLETE and checked.answer.strip():
            # Cairn's own answers are memory too ("what did you tell me about X?"); a failed
            # or stopped one is not evidence and is never indexed (issue 17).
            indexing_services.message_index_enqueue(message_id=message.pk)
    return message


def unsaved_text(pending: PendingAnswer) -> str:
    """The answer as it would have been saved (renumbered, with its footer), for the page
    to keep while it is not."""
    numbered = renumbered(pending.prepared.registry, pending.checked.answer)
    return numbered.text + (numbered.footer() if pending.checked.answer.strip() else "")


async def finish_turn(
    prepared: PreparedTurn, outcome: StreamOutcome, provider: LLMProvider
) -> Message:
    """Steps 10–11. The save is tried again through a short database outage; when it
    still fails, ``AnswerNotSaved`` carries the answer so it can be saved later."""
    checked = await review(prepared, outcome, provider)
    return await save_with_retries(
        save_answer, PendingAnswer(prepared=prepared, outcome=outcome, checked=checked)
    )
