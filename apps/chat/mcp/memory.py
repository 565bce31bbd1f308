"""What each MCP tool does, for one user: parse its arguments with the memory layer's
schemas, call the memory action, and format the result as the text the client's model
reads, stored text sanitised as in the chat prompt (an MCP client hands it to a model
just as Cairn's prompt does). A refusal is the layer's ``MemoryRefusal``, which the
server reports as a tool error naming the argument."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from apps.chat.pipeline.prompt import sanitize_memory_text
from apps.claims.models import Claim, ClaimOrigin
from apps.contexts.references import resolve_message, resolve_reference
from apps.facts.models import FactOrigin
from apps.memory.actions import (
    memory_claim,
    memory_complete,
    memory_edit,
    memory_remember,
    memory_restore,
    memory_retract,
)
from apps.memory.reading import fact_set, facts_get, memory_list, memory_read, memory_search
from apps.memory.schemas import (
    SEARCH_KINDS,
    ClaimRef,
    CompleteInput,
    EditInput,
    FactSetInput,
    FactsInput,
    ListInput,
    ReadInput,
    RememberInput,
    SearchInput,
    parse,
)

if TYPE_CHECKING:
    from apps.accounts.models import User

LINE_CHARS = 600


def _safe(text: str, limit: int = LINE_CHARS) -> str:
    return sanitize_memory_text(text, max_chars=limit)


def _claim_line(claim: Claim) -> str:
    kinds = ", ".join(claim.claim_types) or "claim"
    return (
        f"#{claim.number} @{claim.friendly_id} [{kinds}, {claim.status}] {_safe(claim.statement)}"
    )


class UserMemory:
    def __init__(self, user: User, *, token_name: str = "") -> None:
        self.user = user
        # The API token the client called with (the server always names it): what it adds
        # reads "Added over MCP (name)".
        self.token_name = token_name

    # Finding

    def search(
        self,
        *,
        query: str,
        kinds: Sequence[str],
        project: str | None,
        limit: int,
        everything: bool = False,
    ) -> str:
        data = parse(
            SearchInput,
            {
                "query": query,
                "kinds": tuple(kinds) or SEARCH_KINDS,
                "project": project,
                "limit": limit,
                "everything": everything,
            },
        )
        lines: list[str] = []
        for found in memory_search(user=self.user, data=data):
            hit = found.hit
            if hit.kind == "claim" and found.claim is not None:
                line = f"claim {_claim_line(found.claim)}"
            elif hit.kind == "document":
                line = (
                    f"file {_safe(hit.title, 200)} (document {hit.document_id}, characters "
                    f"{hit.start}–{hit.end}): {_safe(hit.text)}"
                )
            elif hit.kind == "message":
                line = f"chat {_safe(hit.title, 200)} (message {hit.message_id}): {_safe(hit.text)}"
            else:
                continue
            lines.append(f"[{len(lines) + 1}] {line}")
        return "\n".join(lines) or "Nothing in memory matches."

    def list_claims(self, *, claim_type: str | None, status: str, limit: int) -> str:
        data = parse(ListInput, {"claim_type": claim_type, "status": status, "limit": limit})
        page = memory_list(user=self.user, data=data)
        if not page.claims:
            return "No claims match."
        return "\n".join(_claim_line(claim) for claim in page.claims)

    def resolve(self, *, text: str) -> str:
        references = (
            resolve_message(self.user, text)[1] if "@" in text or "#" in text else []
        ) or [resolve_reference(self.user, text.strip().lstrip("@"))]
        lines: list[str] = []
        for resolution in references:
            if not resolution.found:
                lines.append(f"@{resolution.identifier}: not found. {resolution.message}".strip())
                continue
            lines.append(
                f"@{resolution.identifier}: {resolution.kind} {_safe(resolution.title, 200)} "
                f"({len(resolution.claims)} claims)"
            )
            lines += [
                f"  #{claim.number} @{claim.friendly_id} {_safe(claim.statement)}"
                for claim in resolution.claims[:50]
            ]
        return "\n".join(lines)

    def read_document(self, *, document_id: str, offset: int) -> str:
        data = parse(ReadInput, {"document_id": document_id, "offset": offset})
        passage = memory_read(user=self.user, data=data)
        # Passages keep their lines; each line is sanitised like a stored claim.
        body = "\n".join(_safe(line, 4000) for line in passage.text.splitlines())
        end = passage.offset + len(passage.text)
        return (
            f"{_safe(passage.title, 200)} (document {passage.document_id}, characters "
            f"{passage.offset}–{end} of {passage.total}"
            f"{', more follows' if passage.more else ''}):\n{body}"
        )

    # Changing

    def add_claim(
        self, *, statement: str, claim_types: Sequence[str], possible_questions: Sequence[str]
    ) -> str:
        data = parse(
            RememberInput,
            {
                "statement": statement,
                "claim_types": tuple(claim_types) or ("fact",),
                "possible_questions": tuple(possible_questions),
            },
        )
        remembered = memory_remember(
            user=self.user, data=data, origin=ClaimOrigin.MCP, origin_token_name=self.token_name
        )
        if not remembered.created:
            return f"Already known, reinforced: {_claim_line(remembered.claim)}"
        waits = " (waits for the user's review in Cairn)" if remembered.waits_for_review else ""
        return f"Saved{waits}: {_claim_line(remembered.claim)}"

    def change_claim(self, *, number: int, action: str, statement: str = "", note: str = "") -> str:
        if action == "update":
            edit = parse(EditInput, {"number": number, "statement": statement})
            claim = memory_claim(user=self.user, number=edit.number)
            changed = memory_edit(claim=claim, statement=edit.statement)
        elif action == "complete":
            done = parse(CompleteInput, {"number": number, "note": note})
            changed = memory_complete(
                claim=memory_claim(user=self.user, number=done.number), data=done
            )
        else:
            claim = memory_claim(user=self.user, number=parse(ClaimRef, {"number": number}).number)
            act = memory_retract if action == "retract" else memory_restore
            changed = act(claim=claim)
        return f"Now: {_claim_line(changed.claim)}"

    # Facts

    def get_facts(self, *, project: str | None) -> str:
        found = facts_get(user=self.user, data=parse(FactsInput, {"project": project}))
        lines = [f"{fact.fact_key} = {_safe(fact.value_text, 300)}" for fact in found.facts]
        return "\n".join(lines) or f"No facts in {found.project.name} yet."

    def set_fact(self, *, key: str, value: str, project: str | None) -> str:
        data = parse(FactSetInput, {"key": key, "value": value, "project": project})
        result = fact_set(
            user=self.user, data=data, origin=FactOrigin.MCP, origin_token_name=self.token_name
        )
        return f"{result.outcome}: {result.fact.fact_key} = {_safe(result.fact.value_text, 300)}"
