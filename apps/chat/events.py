"""What a chat turn tells the page, as types (README "Chat protocol").

The pipeline and the consumer emit these dataclasses; only the edge (the websocket's
``send``, the REST post endpoint) turns them into JSON with ``event_payload``. Error codes
are one enum, and the page reads the same list: it is rendered into the chat page as JSON
(``chat-protocol`` in chat/page.html), so a code cannot exist on one side only.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from apps.chat.error_codes import REJECTION_CODES, ErrorCode
from apps.chat.models import Message
from apps.chat.pipeline.saving import PendingAnswer
from apps.chat.pipeline.sources import without_footer
from apps.chat.pipeline.types import MAX_MESSAGE_CHARS, FactCounts, MemoryItem
from apps.chat.rendering import render_markdown
from apps.contexts.references import ReferenceResolution


@dataclass(frozen=True, kw_only=True)
class Ack:
    """The user's message is saved: its id, what its references resolved to, the facts."""

    message_id: uuid.UUID
    order: int
    references: tuple[ReferenceResolution, ...]
    facts: FactCounts
    index_status: str
    notices: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class Clarify:
    message_id: uuid.UUID
    candidates: tuple[str, ...]
    question: str


@dataclass(frozen=True, kw_only=True)
class MemoryUsed:
    items: tuple[MemoryItem, ...]
    facts_retrieved: int


@dataclass(frozen=True, kw_only=True)
class SourceListed:
    number: int
    kind: str
    title: str
    url: str | None


@dataclass(frozen=True, kw_only=True)
class Sources:
    items: tuple[SourceListed, ...]


@dataclass(frozen=True, kw_only=True)
class Delta:
    text: str


@dataclass(frozen=True, kw_only=True)
class ToolCalled:
    id: str
    name: str
    input: dict[str, Any]  # the model's JSON arguments, as it sent them


@dataclass(frozen=True, kw_only=True)
class ToolAnswered:
    id: str
    content: str
    is_error: bool


@dataclass(frozen=True, kw_only=True)
class TurnError:
    code: ErrorCode
    message: str
    message_id: uuid.UUID | None = None  # the saved (partial) answer, when there is one
    retry_after: int | None = None  # rate limited: whole seconds until a turn may start
    field: str | None = None  # refused input: the field that was wrong ("fact_topic")


@dataclass(frozen=True, kw_only=True)
class Reviewed:
    """What the alignment review found in the saved answer (its numbers), sent before
    ``Done`` so the page can say so while the marked answer is swapped in."""

    message: Message


@dataclass(frozen=True, kw_only=True)
class Done:
    message: Message
    html: str  # rendered off the event loop (message_html) before the event is built


@dataclass(frozen=True, kw_only=True)
class AnswerUnsaved:
    """The streamed answer could not be saved, even after retries: the page keeps it with
    a "Not saved" mark, and a ``save_answer`` frame with this id tries again."""

    pending: PendingAnswer
    content: str
    reason: str


@dataclass(frozen=True, kw_only=True)
class AnswerSaved:
    """An answer kept as unsaved is saved now (after a ``save_answer`` frame)."""

    pending_id: uuid.UUID
    message: Message
    html: str


@dataclass(frozen=True)
class Pong:
    pass


TurnEvent = (
    Ack
    | Clarify
    | MemoryUsed
    | Sources
    | Delta
    | ToolCalled
    | ToolAnswered
    | TurnError
    | Reviewed
    | Done
    | AnswerUnsaved
    | AnswerSaved
    | Pong
)
Emit = Callable[[TurnEvent], Awaitable[None]]


def message_html(message: Message) -> str:
    sources = {
        item["number"]: item.get("url") or f"#src-{item['number']}"
        for item in message.sources or []
    }
    # The doubt is about the sentence citing [N], not the source: the footer's own
    # numbers stay unmarked.
    answer = without_footer(message.content)
    footer = message.content[len(answer) :]
    marked = render_markdown(answer, sources=sources, unsupported=unsupported_citations(message))
    return marked + (render_markdown(footer, sources=sources) if footer else "")


def unsupported_citations(message: Message) -> dict[int, str]:
    """{N: why} for each `[N]` the alignment review found unsupported or wrong."""
    reasons: dict[int, list[str]] = {}
    for finding in message.review_findings or []:
        ref = finding.get("ref")
        if isinstance(ref, int):
            kind = str(finding.get("type", "issue")).replace("_", " ")
            reason = str(finding.get("reason", "")).strip()
            reasons.setdefault(ref, []).append(f"{kind}: {reason}" if reason else kind)
    return {ref: "; ".join(texts) for ref, texts in reasons.items()}


def message_payload(message: Message, html: str) -> dict[str, Any]:
    return {
        "id": str(message.id),
        "role": message.role,
        "order": message.order,
        "status": message.status,
        "content": message.content,
        "html": html,
        "sources": message.sources,
        "review_findings": message.review_findings,
        "memory_used": message.memory_used,
        "fact_counts": message.fact_counts,
        "index_status": message.index_status,
        "model": message.model_name,
        "usage": message.usage,
        "review_corrected": message.review_corrected,
        "memory_distilled": message.memory_distilled,
        "tool_calls": message.tool_calls,
        "clarify_topics": message.clarify_topics,
        "error": message.error,
        "notices": message.notices,
        "created_at": message.created_at.isoformat(),
    }


def references_payload(resolutions: tuple[ReferenceResolution, ...]) -> list[dict[str, Any]]:
    return [
        {
            "identifier": r.identifier,
            "kind": r.kind,
            "found": r.found,
            "title": r.title,
            "message": r.message,
            "claim_count": len(r.claims),
            "object_id": str(r.object_id) if r.object_id else None,
        }
        for r in resolutions
    ]


def tool_payload(event: ToolCalled | ToolAnswered) -> dict[str, Any]:
    if isinstance(event, ToolCalled):
        return {
            "type": "tool",
            "phase": "call",
            "id": event.id,
            "name": event.name,
            "input": event.input,
        }
    return {
        "type": "tool",
        "phase": "result",
        "id": event.id,
        "content": event.content,
        "is_error": event.is_error,
    }


def event_payload(event: TurnEvent) -> dict[str, Any]:
    """The event as the wire carries it: the JSON the page (and the README) know."""
    match event:
        case Ack():
            return {
                "type": "ack",
                "message_id": str(event.message_id),
                "order": event.order,
                "references": references_payload(event.references),
                "facts": event.facts.as_dict(),
                "index_status": event.index_status,
                "notices": list(event.notices),
                "changes": list(event.facts.changes),
            }
        case Clarify():
            return {
                "type": "clarify",
                "message_id": str(event.message_id),
                "candidates": list(event.candidates),
                "question": event.question,
            }
        case MemoryUsed():
            return {
                "type": "memory",
                "items": [item.as_dict() for item in event.items],
                "facts_retrieved": event.facts_retrieved,
            }
        case Sources():
            return {
                "type": "sources",
                "items": [
                    {"number": i.number, "kind": i.kind, "title": i.title, "url": i.url}
                    for i in event.items
                ],
            }
        case Delta():
            return {"type": "delta", "text": event.text}
        case ToolCalled() | ToolAnswered():
            return tool_payload(event)
        case TurnError():
            payload: dict[str, Any] = {
                "type": "error",
                "code": str(event.code),
                "message": event.message,
            }
            if event.message_id is not None:
                payload["message_id"] = str(event.message_id)
            if event.retry_after is not None:
                payload["retry_after"] = event.retry_after
            if event.field is not None:
                payload["field"] = event.field
            return payload
        case Reviewed():
            return {
                "type": "review",
                "message_id": str(event.message.id),
                "corrected": event.message.review_corrected,
                "findings": list(event.message.review_findings or []),
            }
        case Done():
            return {"type": "done", "message": message_payload(event.message, event.html)}
        case AnswerUnsaved():
            return {
                "type": "answer_unsaved",
                "id": str(event.pending.id),
                "status": event.pending.outcome.status,
                "content": event.content,
                "reason": event.reason,
                "message": f"The answer was not saved: {event.reason}. "
                "Save it again once the database is back.",
            }
        case AnswerSaved():
            return {
                "type": "answer_saved",
                "id": str(event.pending_id),
                "message": message_payload(event.message, event.html),
            }
        case Pong():
            return {"type": "pong"}


def protocol_for_page() -> dict[str, Any]:
    """What the page's script must agree on with the server, rendered into chat/page.html
    as JSON (``chat-protocol``): the error codes by name, those that mean the turn never
    started, and the largest message."""
    return {
        "error_codes": {code.name: code.value for code in ErrorCode},
        "rejection_codes": [code.value for code in REJECTION_CODES],
        "max_message_bytes": MAX_MESSAGE_CHARS,
    }
