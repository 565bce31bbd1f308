from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, TypedDict

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from apps.chat.models import Conversation, Message

TITLE_FROM_MESSAGE_CHARS = 60


# The shapes of the answer's JSON columns, as the pipeline writes them and the page reads them.


class StoredSource(TypedDict):
    """One numbered source of a saved answer (``Message.sources``)."""

    number: int
    kind: str
    ref_id: str
    title: str
    excerpt: str
    url: str | None
    cited: bool


class StoredMemoryItem(TypedDict):
    """One claim the answer was given (``Message.memory_used``), with its label."""

    claim_id: str
    number: int
    friendly_id: str
    statement: str
    claim_types: list[str]
    label: str
    source: int | None  # its `[N]` in the saved answer, when it was a source
    background: bool


class StoredFinding(TypedDict):
    """What the alignment review found (``Message.review_findings``)."""

    type: str
    ref: int | None
    reason: str


class StoredFactCounts(TypedDict):
    """The facts a question wrote and read (``Message.fact_counts``)."""

    changes: list[str]
    stored: int
    updated: int
    retrieved: int
    ambiguous_topics: list[str]
    unresolved: list[str]


class TokenUsage(TypedDict):
    """What ``Message.usage`` holds: the tokens the answer cost, and nothing else."""

    input_tokens: int
    output_tokens: int


@dataclass(frozen=True, kw_only=True)
class TurnOutcome:
    """What a turn did besides answering, each in the answer's own column (issue 27:
    these were flags inside ``usage``, read back as ``(usage or {}).get(...)``)."""

    usage: TokenUsage | None = None
    review_corrected: bool = False
    memory_distilled: bool = False
    tool_calls: int = 0
    clarify_topics: tuple[str, ...] = ()


@transaction.atomic
def message_append(
    *,
    conversation: Conversation,
    role: str,
    content: str,
    status: str = Message.Status.COMPLETE,
    error: str = "",
    memory_used: list[StoredMemoryItem] | None = None,
    sources: list[StoredSource] | None = None,
    fact_counts: StoredFactCounts | None = None,
    index_status: str = "",
    model_name: str = "",
    outcome: TurnOutcome | None = None,
    review_findings: list[StoredFinding] | None = None,
    message_id: uuid.UUID | None = None,
) -> Message:
    """Add a message at the end of the conversation. The JSON columns (memory used,
    sources, fact counts) take what the pipeline's dataclasses serialise to; ``outcome``
    says what the turn did (an assistant message's tokens, review, tools, clarification).
    ``message_id`` is chosen by a caller that retries the save: the id tells whether an
    earlier try committed after all.

    The conversation row is locked while the next order number is taken, so two turns
    arriving at once (two tabs) never get the same order.
    """
    outcome = outcome or TurnOutcome()
    locked = Conversation.objects.select_for_update().get(pk=conversation.pk)
    last = locked.messages.aggregate(last=Max("order"))["last"]
    message = Message.objects.create(
        **({"id": message_id} if message_id is not None else {}),
        conversation=locked,
        role=role,
        content=content,
        status=status,
        order=(last or 0) + 1,
        error=error,
        memory_used=memory_used or [],
        sources=sources or [],
        review_findings=review_findings or [],
        fact_counts=fact_counts or {},
        index_status=index_status,
        model_name=model_name,
        usage=dict(outcome.usage or {}),
        review_corrected=outcome.review_corrected,
        memory_distilled=outcome.memory_distilled,
        tool_calls=outcome.tool_calls,
        clarify_topics=list(outcome.clarify_topics),
    )
    update: dict[str, Any] = {"updated_at": timezone.now()}
    if not locked.title and role == Message.Role.USER and content.strip():
        title = " ".join(content.split())
        update["title"] = (
            title
            if len(title) <= TITLE_FROM_MESSAGE_CHARS
            else title[: TITLE_FROM_MESSAGE_CHARS - 1].rstrip() + "…"
        )
        conversation.title = update["title"]
    Conversation.objects.filter(pk=locked.pk).update(**update)
    return message
