"""What the chat page shows for each message: safe HTML, the status line, the facts badge,
the memory-used panel and the sources list. Read-only; scoped by the caller's selectors."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from django.urls import reverse
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from apps.chat.events import message_html
from apps.chat.models import Conversation, Message
from apps.chat.pipeline.stream import STOPPED_BY_USER
from apps.chat.reading import read_references
from apps.chat.services import StoredMemoryItem
from apps.claims.models import ClaimStatus
from apps.claims.selectors import claim_list, claims_from_messages
from apps.core.date_labels import moment_label
from apps.indexing.search import said_by

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
    """A warning under an answer when its question could not be made searchable."""

    text: str
    title: str
    warn: bool


@dataclass(frozen=True)
class TurnChanges:
    """What one turn stored or suggested, in words (issue 18): the facts its question
    wrote, and the claims extracted from it — pending ones with their review buttons."""

    facts: list[str]
    suggested: list[Any]  # pending claims: Approve / Edit / Dismiss
    saved: list[Any]  # claims kept (auto mode, or approved since)
    return_url: str = ""  # where a review button comes back to: this answer

    def __bool__(self) -> bool:
        return bool(self.facts or self.suggested or self.saved)


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
    notices: list[str] = field(default_factory=list)
    changes: TurnChanges | None = None

    # Who wrote an assistant turn: "Cairn", or an imported chat's "ChatGPT" / "Claude".
    assistant: str = "Cairn"

    @property
    def is_user(self) -> bool:
        return self.message.role == Message.Role.USER

    @property
    def who(self) -> str:
        return "You" if self.is_user else self.assistant

    @property
    def when(self) -> str:
        """ "6 May, 09:00", with the year when it is not this one ("6 May 2024, 09:00")."""
        return moment_label(self.message.created_at)


def remember_default(message: Message) -> str:
    return message.content.split(SOURCES_FOOTER, 1)[0].strip()


def user_message_html(message: Message) -> SafeString:
    """The user's words, escaped, each reference wrapped in a chip the page can preview;
    read as the pipeline read them, so a rank ("my #1 crypto") is no chip."""
    text = message.content
    pieces: list[str] = []
    position = 0
    for ref in read_references(text).references:
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
    """Only a failure is worth a line: "indexed: accepted" on every answer said nothing."""
    status = message.index_status or ""
    if not status.startswith("failed"):
        return None
    return FactsBadge(
        text="This question could not be made searchable yet",
        title=f"Indexing: {status}",
        warn=True,
    )


def stored_notices(message: Message, kind: str) -> list[str]:
    return [
        str(item.get("text", ""))
        for item in message.notices or []
        if isinstance(item, dict) and item.get("kind") == kind and item.get("text")
    ]


def _changes_by_question(user: User, messages: Sequence[Message]) -> dict[uuid.UUID, TurnChanges]:
    """{user message id: what it changed}, with one query for the extracted claims."""
    questions = [m for m in messages if m.role == Message.Role.USER]
    claims: dict[uuid.UUID, list[Any]] = {}
    for claim in claims_from_messages(user=user, message_ids=[m.pk for m in questions]):
        if claim.source_message_id is not None:
            claims.setdefault(claim.source_message_id, []).append(claim)
    result = {}
    for question in questions:
        extracted = claims.get(question.pk, [])
        result[question.pk] = TurnChanges(
            facts=stored_notices(question, "fact"),
            suggested=[c for c in extracted if c.status == ClaimStatus.PENDING],
            saved=[c for c in extracted if c.status != ClaimStatus.PENDING],
        )
    return result


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
    items: Sequence[StoredMemoryItem], known: dict[str, bool], pinned_here: set[str]
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


def _answer_changes(
    answer: Message, question: Message | None, changes: dict[uuid.UUID, TurnChanges]
) -> TurnChanges | None:
    found = changes.get(question.pk) if question is not None else None
    if not found:
        return None
    page = reverse("chat:conversation", args=[answer.conversation_id])
    return replace(found, return_url=f"{page}#message-{answer.pk}")


def message_views(
    *, user: User, conversation: Conversation, messages: Sequence[Message], last_order: int | None
) -> list[MessageView]:
    """Views of ``messages`` (the caller's, in order); ``last_order`` is the conversation's
    newest message, so only a clarifying question still waiting for its answer offers choices."""
    known = _claim_states(user, messages)
    changes = _changes_by_question(user, messages)
    question_at: dict[int, Message] = {}
    pinned_here = {str(pk) for pk in conversation.pinned_claims.values_list("id", flat=True)}
    user_text: dict[int, str] = {}
    views = []
    for message in messages:
        if message.role == Message.Role.USER:
            user_text[message.order] = message.content
            question_at[message.order] = message
            views.append(
                MessageView(
                    message=message,
                    html=user_message_html(message),
                    remember_default=message.content.strip(),
                    attached=list(message.attached_claims.all()),
                    notices=stored_notices(message, "notice"),
                )
            )
            continue
        note, note_class = status_note(message)
        views.append(
            MessageView(
                message=message,
                assistant=said_by(role="assistant", external_source=conversation.external_source),
                html=answer_html(message),
                status_note=note,
                status_class=note_class,
                badge=facts_badge(message),
                memory=_memory_rows(message.memory_used or [], known, pinned_here),
                review_notes=review_notes(message),
                review_corrected=message.review_corrected,
                clarify_topics=list(message.clarify_topics) if message.order == last_order else [],
                prompt_text=user_text.get(message.order - 1, ""),
                remember_default=remember_default(message),
                changes=_answer_changes(message, question_at.get(message.order - 1), changes),
            )
        )
    return views
