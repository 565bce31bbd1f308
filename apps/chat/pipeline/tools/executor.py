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

from django.urls import reverse
from django.utils import timezone

from apps.chat.llm import ToolCall, ToolResult
from apps.chat.models import Message
from apps.chat.pipeline.sources import SourceRegistry
from apps.chat.pipeline.tools.schemas import (
    MemoryAddInput,
    MemoryListInput,
    MemorySearchInput,
    MemoryUpdateInput,
    ReadDocumentInput,
    ToolInputError,
    as_tool_error,
    parse_tool_input,
)
from apps.chat.selectors import message_surroundings
from apps.claims.models import Claim, ClaimOrigin, ClaimStatus
from apps.indexing.search import quotable, said_by, said_on
from apps.indexing.selectors import chunk_document_id, chunk_message_id
from apps.memory.actions import (
    ClaimChanged,
    memory_claim,
    memory_complete,
    memory_edit,
    memory_remember,
    memory_restore,
    memory_retract,
)
from apps.memory.errors import MemoryRefusal
from apps.memory.reading import memory_list, memory_read, memory_search
from apps.memory.schemas import CompleteInput, ReadInput

from ..prepare import passage_url
from ..prompt import sanitize_memory_block, sanitize_memory_text
from ..threads import in_worker_thread

if TYPE_CHECKING:
    from apps.accounts.models import User

logger = logging.getLogger(__name__)


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
        except MemoryRefusal as refusal:
            # The model reads the argument at fault and why, as an MCP client's model does.
            error = as_tool_error(refusal)
            return ToolResult(tool_call_id=call.id, content=error.sentence(), is_error=True)
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
        remembered = memory_remember(
            user=self.user, data=data, origin=ClaimOrigin.CHAT, source_message=self.message
        )
        claim = remembered.claim
        number = self._register_claim(claim)
        if not remembered.created:
            verb = "Already known, reinforced"
        elif remembered.waits_for_review:
            verb = "Saved (waits for the user's review in Cairn)"
        else:
            verb = "Saved"
        return f"{verb}: #{claim.number} {_safe(claim.statement)} [{number}]"

    def memory_update(self, data: MemoryUpdateInput) -> str:
        claim = memory_claim(user=self.user, number=data.claim_number)
        if data.action == "retract":
            changed = memory_retract(claim=claim)
        elif data.action == "restore":
            changed = memory_restore(claim=claim)
        elif data.action == "edit":
            if not data.statement:
                raise ToolInputError("An edit needs the new statement.", "statement")
            changed = memory_edit(claim=claim, statement=data.statement)
        else:
            changed = memory_complete(
                claim=claim,
                data=CompleteInput(number=claim.number, action=data.action, note=data.note),
            )
        self._record_change(_change_words(data.action, changed))
        claim = changed.claim
        number = self._register_claim(claim)
        return f"#{claim.number} is now {claim.status}: {_safe(claim.statement)} [{number}]"

    def _record_change(self, text: str) -> None:
        """What a tool changed in memory, in words, with the turn's other changes (the
        question's stored notices, shown under the answer and after a reload, issue 18)."""
        self.message.refresh_from_db(fields=["notices"])
        self.message.notices = [*(self.message.notices or []), {"kind": "fact", "text": text}]
        self.message.save(update_fields=["notices"])

    def memory_search(self, data: MemorySearchInput) -> str:
        found = memory_search(user=self.user, data=data)
        if not found:
            return "Nothing in memory matches."
        lines = []
        for item in found:
            hit = item.hit
            if item.claim is not None and hit.kind == "claim":
                number = self._register_claim(item.claim)
                lines.append(f"[{number}] #{item.claim.number} {_safe(item.claim.statement)}")
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
        page = memory_list(user=self.user, data=data)
        kind = (data.claim_type or "memory").replace("_", " ")
        if not page.claims:
            return f"No {kind} items with status {data.status}."
        lines = [f"{kind} items ({data.status}), oldest first:"]
        for claim in page.claims:
            number = self._register_claim(claim)
            done = f" (done {_day(claim.updated_at)})" if claim.status == "done" else ""
            lines.append(f"[{number}] #{claim.number} {_safe(claim.statement)}{done}")
        if page.more:
            lines.append(f"(more than {data.limit}; the oldest are shown)")
        return "\n".join(lines)

    def _read_chat(self, ref_id: str) -> str:
        """A past chat turn a source points at, with the turns around it."""
        message_id = chunk_message_id(user=self.user, chunk_id=int(ref_id))
        turns = message_surroundings(user=self.user, message_id=message_id) if message_id else []
        if not turns:
            raise ToolInputError("That chat passage is no longer indexed.", "source_number")
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
            raise ToolInputError("That passage's document is no longer indexed.", "source_number")
        return str(document_id)

    def read_document(self, data: ReadDocumentInput) -> str:
        document_id = data.document_id
        if data.source_number is not None:
            item = self.registry.get(data.source_number)
            if item is not None and item.kind == "message":
                return self._read_chat(item.ref_id)
            if item is None or item.kind != "document":
                raise ToolInputError(
                    f"[{data.source_number}] is not a file or past chat of this turn.",
                    "source_number",
                )
            document_id = self._document_of(item.ref_id)
        if not document_id:
            raise ToolInputError("Name the document by its source number or id.", "document_id")
        passage = memory_read(
            user=self.user, data=ReadInput(document_id=document_id, offset=data.offset)
        )
        doc_id = passage.document_id
        number = self.registry.register(
            "document",
            doc_id,
            passage.title,
            passage.text[:300],
            url=reverse("files:document", args=[doc_id]),
        )
        end = passage.offset + len(passage.text)
        return (
            f"[{number}] {_safe(passage.title, 200)} (characters {passage.offset}–"
            f"{end} of {passage.total}{', more follows' if passage.more else ''}):\n"
            f"{sanitize_memory_block(passage.text, max_chars_per_line=4000)}"
        )


def _change_words(action: str, changed: ClaimChanged) -> str:
    """What a tool changed, as the notice under the answer says it."""
    before = f"#{changed.before.number} {_shown(changed.before.statement)}"
    if action == "retract":
        return f"Retracted {before}"
    if action == "restore":
        was_retracted = changed.before.status == ClaimStatus.RETRACTED
        return f"{'Restored' if was_retracted else 'Back on its list'}: {before}"
    if action == "edit":
        return f"Updated {before} → #{changed.claim.number} {_shown(changed.claim.statement)}"
    return f"{'Ticked off' if action == 'tick_off' else 'Done'}: {before}"


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
