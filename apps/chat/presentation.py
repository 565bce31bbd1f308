"""What the chat page shows for each message: safe HTML, the status line, the facts badge,
the memory-used panel and the sources list. Read-only; scoped by the caller's selectors."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.urls import reverse
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from apps.chat.events import message_html
from apps.chat.models import Conversation, Message
from apps.chat.pipeline.stream import STOPPED_BY_USER
from apps.claims.selectors import claim_list
from apps.contexts.reference_parser import parse_references

if TYPE_CHECKING:
    from apps.accounts.models import User

# The footer `SourceRegistry.footer` appends to an answer; "save as memory" leaves it out.
SOURCES_FOOTER = "\n\n---\n**Sources:**\n"


@dataclass(frozen=True)
class MemoryRow:
    claim_id: str
    number: int | None
    friendly_id: str
    statement: str
    label: str
    label_class: str
    source: int | None
    url: str | None
    exists: bool
    pinned_here: bool
    pinned_globally: bool


@dataclass(frozen=True)
class FactsBadge:
    text: str
    title: str
    warn: bool


@dataclass
class MessageView:
    message: Message
    html: SafeString
    status_note: str = ""
    status_class: str = ""
    badge: FactsBadge | None = None
    memory: list[MemoryRow] = field(default_factory=list)
    # What the alignment review found (its marks are on the `[N]` in ``html``).
    review_notes: list[str] = field(default_factory=list)
    review_corrected: bool = False
    clarify_topics: list[str] = field(default_factory=list)
    # The user's words this answer replied to: re-sent by a clarify choice or "try again".
    prompt_text: str = ""
    remember_default: str = ""
    attached: list[Any] = field(default_factory=list)

    @property
    def is_user(self) -> bool:
        return self.message.role == Message.Role.USER


def remember_default(message: Message) -> str:
    return message.content.split(SOURCES_FOOTER, 1)[0].strip()


def user_message_html(text: str) -> SafeString:
    """The user's words, escaped, each reference wrapped in a chip the page can preview."""
    pieces: list[str] = []
    position = 0
    for ref in parse_references(text).references:
        pieces.append(escape(text[position : ref.start]))
        pieces.append(
            format_html(
                '<span class="ref-chip" data-ref="{}" data-ref-kind="{}" tabindex="0">{}</span>',
                ref.identifier,
                ref.kind,
                text[ref.start : ref.end],
            )
        )
        position = ref.end
    pieces.append(escape(text[position:]))
    return mark_safe("".join(pieces))  # noqa: S308 - every piece above is escaped


def answer_html(message: Message) -> SafeString:
    """The server-rendered, sanitised answer; a `[N]` without its own URL points at the
    message's own sources list rather than the first `#src-N` on the page."""
    html = message_html(message)
    return mark_safe(html.replace('href="#src-', f'href="#src-{message.pk}-'))  # noqa: S308


def facts_badge(message: Message) -> FactsBadge | None:
    counts = message.fact_counts or {}
    if not counts and not message.index_status:
        return None
    stored, updated = counts.get("stored", 0), counts.get("updated", 0)
    retrieved = counts.get("retrieved", 0)
    status = message.index_status or "unknown"
    failed = status.startswith("failed")
    text = f"facts +{stored} ~{updated} ↺{retrieved} · indexed: {status.split(':')[0]}"
    title = f"{stored} fact(s) stored, {updated} updated, {retrieved} retrieved; indexing: {status}"
    return FactsBadge(text=text, title=title, warn=failed)


def status_note(message: Message) -> tuple[str, str]:
    if message.status == Message.Status.PARTIAL:
        if message.error == STOPPED_BY_USER:
            return "Stopped — partial answer saved", "warn"
        reason = f": {message.error}" if message.error else ""
        return f"Interrupted{reason} — partial answer saved", "warn"
    if message.status == Message.Status.FAILED:
        return f"The model failed: {message.error or 'no answer'}; your message was saved", "err"
    if message.status == Message.Status.STREAMING:
        return "Still being written — reload in a moment", "warn"
    return "", ""


def _label_class(label: str) -> str:
    return label.split(" ", 1)[0].lower() or "auto"


def _memory_rows(
    items: Sequence[dict[str, Any]], known: dict[str, bool], pinned_here: set[str]
) -> list[MemoryRow]:
    rows = []
    for item in items:
        claim_id = str(item.get("claim_id", ""))
        exists = claim_id in known
        label = str(item.get("label", "AUTO"))
        rows.append(
            MemoryRow(
                claim_id=claim_id,
                number=item.get("number"),
                friendly_id=str(item.get("friendly_id", "")),
                statement=str(item.get("statement", "")),
                label=label,
                label_class=_label_class(label),
                source=item.get("source"),
                url=reverse("knowledge:claim", args=[claim_id]) if exists else None,
                exists=exists,
                pinned_here=claim_id in pinned_here,
                pinned_globally=known.get(claim_id, False),
            )
        )
    return rows


def review_notes(message: Message) -> list[str]:
    """The review's findings as sentences: "[2] unsupported: shares no words with …"."""
    notes = []
    for finding in message.review_findings or []:
        ref = finding.get("ref")
        kind = str(finding.get("type", "issue")).replace("_", " ")
        reason = str(finding.get("reason", "")).strip()
        where = f"[{ref}] " if isinstance(ref, int) else ""
        notes.append(f"{where}{kind}" + (f": {reason}" if reason else ""))
    return notes


def _claim_states(user: User, messages: Sequence[Message]) -> dict[str, bool]:
    """{claim id: globally pinned} for the memory items' claims that still exist."""
    ids: set[uuid.UUID] = set()
    for message in messages:
        for item in message.memory_used or []:
            try:
                ids.add(uuid.UUID(str(item.get("claim_id"))))
            except ValueError:
                continue
    if not ids:
        return {}
    rows = claim_list(user=user).filter(id__in=ids).values_list("id", "pinned")
    return {str(claim_id): pinned for claim_id, pinned in rows}


def message_views(
    *, user: User, conversation: Conversation, messages: Sequence[Message], last_order: int | None
) -> list[MessageView]:
    """Views of ``messages`` (the caller's, in order); ``last_order`` is the conversation's
    newest message, so only a clarifying question still waiting for its answer offers choices."""
    known = _claim_states(user, messages)
    pinned_here = {str(pk) for pk in conversation.pinned_claims.values_list("id", flat=True)}
    user_text: dict[int, str] = {}
    views = []
    for message in messages:
        if message.role == Message.Role.USER:
            user_text[message.order] = message.content
            views.append(
                MessageView(
                    message=message,
                    html=user_message_html(message.content),
                    remember_default=message.content.strip(),
                    attached=list(message.attached_claims.all()),
                )
            )
            continue
        note, note_class = status_note(message)
        clarify = (message.usage or {}).get("clarify") or []
        views.append(
            MessageView(
                message=message,
                html=answer_html(message),
                status_note=note,
                status_class=note_class,
                badge=facts_badge(message),
                memory=_memory_rows(message.memory_used or [], known, pinned_here),
                review_notes=review_notes(message),
                review_corrected=bool((message.usage or {}).get("aligned")),
                clarify_topics=[str(t) for t in clarify] if message.order == last_order else [],
                prompt_text=user_text.get(message.order - 1, ""),
                remember_default=remember_default(message),
            )
        )
    return views
