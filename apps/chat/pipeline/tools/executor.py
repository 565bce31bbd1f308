"""Claude's memory tools, executed for one turn and scoped to its user (DESIGN §7 step 9).

Every result that brings something citable registers it in the turn's source registry,
so the answer can cite a memory it just saved or found with `[N]` like any other.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from apps.chat.llm import ToolCall, ToolResult
from apps.chat.models import Message
from apps.chat.pipeline.sources import SourceRegistry
from apps.chat.pipeline.tools.schemas import (
    MAX_LIST_ITEMS,
    MemoryAddInput,
    MemoryListInput,
    MemorySearchInput,
    MemoryUpdateInput,
    ReadDocumentInput,
    ToolInputError,
    parse_tool_input,
)
from apps.chat.selectors import message_surroundings
from apps.claims.models import Claim, ClaimOrigin, ClaimStatus
from apps.claims.selectors import claim_by_number, claims_by_id, claims_on_list
from apps.claims.services import claim_complete, claim_restore, claim_retract, claim_supersede
from apps.indexing.search import quotable, said_by, said_on
from apps.indexing.selectors import chunk_document_id, chunk_message_id

from ..dedupe import claim_add_or_reinforce
from ..prepare import passage_url
from ..prompt import sanitize_memory_block, sanitize_memory_text
from ..threads import in_worker_thread

if TYPE_CHECKING:
    from apps.accounts.models import User

logger = logging.getLogger(__name__)
READ_CHARS = 12_000


class TurnTools:
    def __init__(self, *, user: User, message: Message, registry: SourceRegistry) -> None:
        self.user, self.message, self.registry = user, message, registry

    def executor(self) -> Callable[[ToolCall], Awaitable[ToolResult]]:
        async def execute(call: ToolCall) -> ToolResult:
            return await in_worker_thread(self.run)(call)

        return execute

    def run(self, call: ToolCall) -> ToolResult:
        try:
            tool_input = parse_tool_input(call)
            if isinstance(tool_input, MemoryAddInput):
                text = self.memory_add(tool_input)
            elif isinstance(tool_input, MemoryUpdateInput):
                text = self.memory_update(tool_input)
            elif isinstance(tool_input, MemorySearchInput):
                text = self.memory_search(tool_input)
            elif isinstance(tool_input, MemoryListInput):
                text = self.memory_list(tool_input)
            else:
                text = self.read_document(tool_input)
        except (ToolInputError, ValidationError) as error:
            messages = getattr(error, "messages", None) or [str(error)]
            return ToolResult(tool_call_id=call.id, content="; ".join(messages), is_error=True)
        return ToolResult(tool_call_id=call.id, content=text)

    def _register_claim(self, claim: Claim) -> int:
        return self.registry.register(
            "claim",
            claim.id,
            claim.statement,
            claim.statement,
            url=reverse("knowledge:claim", args=[claim.id]),
        )

    def memory_add(self, data: MemoryAddInput) -> str:
        claim, created = claim_add_or_reinforce(
            user=self.user,
            statement=data.statement,
            claim_types=list(data.claim_types),
            possible_questions=list(data.possible_questions),
            origin=ClaimOrigin.CHAT,
            source_message=self.message,
        )
        number = self._register_claim(claim)
        verb = "Saved" if created else "Already known, reinforced"
        return f"{verb}: #{claim.number} (@{claim.friendly_id}) {_safe(claim.statement)} [{number}]"

    def memory_update(self, data: MemoryUpdateInput) -> str:
        claim = claim_by_number(user=self.user, number=data.claim_number)
        if claim is None:
            raise ToolInputError(f"There is no claim #{data.claim_number}.")
        before = f"#{claim.number} {_shown(claim.statement)}"
        if data.action == "retract":
            claim_retract(claim=claim)
            change = f"Retracted {before}"
        elif data.action == "restore":
            was_retracted = claim.status == ClaimStatus.RETRACTED
            claim_restore(claim=claim)
            change = f"{'Restored' if was_retracted else 'Back on its list'}: {before}"
        elif data.action == "edit":
            if not data.statement:
                raise ToolInputError("An edit needs the new statement.")
            # As the description promises: a new claim replaces it, the old one is history.
            claim = claim_supersede(claim=claim, statement=data.statement)
            change = f"Updated {before} → #{claim.number} {_shown(claim.statement)}"
        else:
            claim_complete(claim=claim, action=data.action, note=data.note)
            change = f"{'Ticked off' if data.action == 'tick_off' else 'Done'}: {before}"
        self._record_change(change)
        claim.refresh_from_db()
        number = self._register_claim(claim)
        return f"#{claim.number} is now {claim.status}: {_safe(claim.statement)} [{number}]"

    def _record_change(self, text: str) -> None:
        """What a tool changed in memory, in words, with the turn's other changes (the
        question's stored notices, shown under the answer and after a reload, issue 18)."""
        self.message.refresh_from_db(fields=["notices"])
        self.message.notices = [*(self.message.notices or []), {"kind": "fact", "text": text}]
        self.message.save(update_fields=["notices"])

    def memory_search(self, data: MemorySearchInput) -> str:
        from apps.indexing.search import evidence_search

        # Evidence only, and only what is relevant enough to cite (issue 28): the same rule
        # as the turn's own sources; chat turns come titled by who said them and when.
        hits = evidence_search(user=self.user, query=data.query, k=data.limit, relevant_only=True)
        if not hits:
            return "Nothing in memory matches."
        claims = claims_by_id(
            user=self.user,
            ids=[hit.claim_id for hit in hits if hit.kind == "claim" and hit.claim_id],
        )
        lines = []
        for hit in hits:
            if hit.kind == "claim" and hit.claim_id:
                claim = claims.get(hit.claim_id)
                if claim is None:  # deleted since the search
                    continue
                number = self._register_claim(claim)
                lines.append(f"[{number}] #{claim.number} {_safe(claim.statement)}")
            else:
                number = self.registry.register(
                    hit.kind,
                    str(hit.chunk_id),
                    hit.title,
                    hit.excerpt,
                    score=hit.vector_similarity,
                    url=passage_url(hit),
                )
                lines.append(f"[{number}] {_safe(hit.title, 200)}: {_safe(hit.excerpt)}")
        return "\n".join(lines)

    def memory_list(self, data: MemoryListInput) -> str:
        """Every item of one type with its stable #N, as the description promises."""
        claims = list(
            claims_on_list(user=self.user, claim_type=data.claim_type, status=data.status)[
                : MAX_LIST_ITEMS + 1
            ]
        )
        kind = data.claim_type.replace("_", " ")
        if not claims:
            return f"No {kind} items with status {data.status}."
        lines = [f"{kind} items ({data.status}), oldest first:"]
        for claim in claims[:MAX_LIST_ITEMS]:
            number = self._register_claim(claim)
            done = f" (done {_day(claim.updated_at)})" if claim.status == "done" else ""
            lines.append(f"[{number}] #{claim.number} {_safe(claim.statement)}{done}")
        if len(claims) > MAX_LIST_ITEMS:
            lines.append(f"(more than {MAX_LIST_ITEMS}; the oldest are shown)")
        return "\n".join(lines)

    def _read_chat(self, ref_id: str) -> str:
        """A past chat turn a source points at, with the turns around it."""
        message_id = chunk_message_id(user=self.user, chunk_id=int(ref_id))
        turns = message_surroundings(user=self.user, message_id=message_id) if message_id else []
        if not turns:
            raise ToolInputError("That chat passage is no longer indexed.")
        title = turns[0].conversation.title or "Untitled conversation"
        lines = "\n".join(_chat_line(turn) for turn in turns)
        return f"Chat “{_safe(title, 200)}”, turns {turns[0].order}–{turns[-1].order}:\n{lines}"

    def _document_of(self, ref_id: str) -> str:
        """A ``document`` source is a whole document (its UUID, registered by this tool) or
        one passage of it (a chunk id, registered by the turn's search): either way, the
        document to read."""
        try:
            return str(uuid.UUID(ref_id))
        except ValueError:
            pass
        document_id = chunk_document_id(user=self.user, chunk_id=int(ref_id))
        if document_id is None:
            raise ToolInputError("That passage's document is no longer indexed.")
        return str(document_id)

    def read_document(self, data: ReadDocumentInput) -> str:
        from apps.indexing.selectors import document_text_for_user

        document_id = data.document_id
        if data.source_number is not None:
            item = self.registry.get(data.source_number)
            if item is not None and item.kind == "message":
                return self._read_chat(item.ref_id)
            if item is None or item.kind != "document":
                raise ToolInputError(
                    f"[{data.source_number}] is not a file or past chat of this turn."
                )
            document_id = self._document_of(item.ref_id)
        if not document_id:
            raise ToolInputError("Name the document by its source number or id.")
        title, text, doc_id = document_text_for_user(user=self.user, key=document_id)
        number = self.registry.register(
            "document", doc_id, title, text[:300], url=reverse("files:document", args=[doc_id])
        )
        window = text[data.offset : data.offset + READ_CHARS]
        more = len(text) > data.offset + READ_CHARS
        return (
            f"[{number}] {_safe(title, 200)} (characters {data.offset}–"
            f"{data.offset + len(window)} of {len(text)}{', more follows' if more else ''}):\n"
            f"{sanitize_memory_block(window, max_chars_per_line=4000)}"
        )


def _chat_line(message: Message) -> str:
    speaker = said_by(role=message.role, external_source=message.conversation.external_source)
    when = said_on(message.created_at)
    return f"{speaker}, {when}: {_safe(quotable(message.content), 4000)}"


def _day(moment: datetime) -> str:
    local = timezone.localtime(moment)
    return f"{local.day} {local:%b %Y}"


def _shown(statement: str, limit: int = 80) -> str:
    """A claim's statement as a change notice quotes it: whole, or cut at a word."""
    statement = " ".join(statement.split())
    if len(statement) <= limit:
        return f"“{statement}”"
    return f"“{statement[:limit].rsplit(' ', 1)[0]}…”"


def _safe(text: str, limit: int = 1200) -> str:
    """Stored text as the model reads it in a tool result: sanitised exactly as in the
    system prompt, so a claim, passage or title cannot close the prompt's tags or pose as
    instructions through a tool either (issue 17)."""
    return sanitize_memory_text(text, max_chars=limit)
