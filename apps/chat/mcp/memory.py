"""What each MCP tool does, for one user: the same scoped services and selectors as the
REST API and the chat's own memory tools, and stored text sanitised as in the chat prompt
(an MCP client hands it to a model just as Cairn's prompt does).

Every method returns the text the client's model reads, or raises ``MemoryToolError``
with a sentence saying what was wrong (the SDK reports it as a tool error).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.http import Http404

from apps.accounts.models import MemoryMode
from apps.chat.pipeline.dedupe import claim_add_or_reinforce
from apps.chat.pipeline.prompt import sanitize_memory_text
from apps.claims.models import Claim, ClaimOrigin, ClaimStatus, ClaimType
from apps.claims.selectors import claim_by_number, claim_list, claims_by_id
from apps.claims.services import claim_complete, claim_restore, claim_retract, claim_update
from apps.contexts.references import resolve_message, resolve_reference
from apps.facts.models import FactOrigin
from apps.facts.selectors import facts_current
from apps.facts.services import fact_store
from apps.indexing.search import KINDS, evidence_search
from apps.indexing.selectors import document_text_for_user
from apps.projects.models import Project
from apps.projects.services import project_chosen_or_personal

if TYPE_CHECKING:
    from apps.accounts.models import User

READ_CHARS = 12_000
LINE_CHARS = 600


class MemoryToolError(ValueError):
    """A tool call that cannot be done as asked; the message says why."""


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
        unknown = sorted(set(kinds) - set(KINDS))
        if unknown:
            raise MemoryToolError(f"Unknown kinds {unknown}; use {list(KINDS)}.")
        # What someone said or wrote, as every answer's sources are (issue 28); Cairn's own
        # answers and the user's bare questions only when ``everything`` is asked for.
        hits = evidence_search(
            user=self.user,
            query=query,
            project=self._project(project) if project else None,
            kinds=tuple(kinds) or KINDS,
            k=limit,
            everything=everything,
        )
        claims = claims_by_id(
            user=self.user, ids=[hit.claim_id for hit in hits if hit.claim_id is not None]
        )
        lines: list[str] = []
        for hit in hits:
            claim = claims.get(hit.claim_id) if hit.claim_id else None
            if hit.kind == "claim" and claim is not None:
                line = f"claim {_claim_line(claim)}"
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
        if claim_type and claim_type not in ClaimType.values:
            raise MemoryToolError(f"Unknown type {claim_type!r}; use one of {ClaimType.values}.")
        if status not in (*ClaimStatus.values, "any"):
            raise MemoryToolError(
                f"Unknown status {status!r}; use one of {[*ClaimStatus.values, 'any']}."
            )
        claims = claim_list(
            user=self.user,
            claim_types=[claim_type] if claim_type else None,
            statuses=None if status == "any" else [status],
        )
        rows = list(claims.order_by("number")[:limit])
        if not rows:
            return "No claims match."
        return "\n".join(_claim_line(claim) for claim in rows)

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
        try:
            title, text, doc_id = document_text_for_user(user=self.user, key=document_id)
        except (ValidationError, Http404) as error:
            raise MemoryToolError(f"There is no document {document_id}.") from error
        window = text[offset : offset + READ_CHARS]
        more = len(text) > offset + READ_CHARS
        # Passages keep their lines; each line is sanitised like a stored claim.
        body = "\n".join(_safe(line, 4000) for line in window.splitlines())
        return (
            f"{_safe(title, 200)} (document {doc_id}, characters {offset}–"
            f"{offset + len(window)} of {len(text)}{', more follows' if more else ''}):\n{body}"
        )

    # Changing

    def add_claim(
        self, *, statement: str, claim_types: Sequence[str], possible_questions: Sequence[str]
    ) -> str:
        mode = self.user.memory_mode
        if mode == MemoryMode.OFF:
            raise MemoryToolError(
                "Memory is off in this user's settings: nothing is saved. They can turn it "
                "on under Settings in Cairn."
            )
        unknown = sorted(set(claim_types) - set(ClaimType.values))
        if unknown:
            raise MemoryToolError(f"Unknown types {unknown}; use {ClaimType.values}.")
        status = ClaimStatus.PENDING if mode == MemoryMode.SUGGEST else ClaimStatus.ACTIVE
        claim, created = claim_add_or_reinforce(
            user=self.user,
            statement=statement,
            claim_types=list(claim_types) or [ClaimType.FACT],
            possible_questions=list(possible_questions),
            origin=ClaimOrigin.MCP,
            origin_token_name=self.token_name,
            status=status,
        )
        if not created:
            return f"Already known, reinforced: {_claim_line(claim)}"
        waits = " (waits for the user's review in Cairn)" if claim.status == "pending" else ""
        return f"Saved{waits}: {_claim_line(claim)}"

    def change_claim(self, *, number: int, action: str, statement: str = "", note: str = "") -> str:
        claim = claim_by_number(user=self.user, number=number)
        if claim is None:
            raise MemoryToolError(f"There is no claim #{number}.")
        if action == "update":
            claim_update(claim=claim, statement=statement)
        elif action == "retract":
            claim_retract(claim=claim)
        elif action == "restore":
            try:
                claim_restore(claim=claim)
            except ValidationError as error:
                raise MemoryToolError(" ".join(error.messages)) from error
        else:
            claim_complete(claim=claim, action="complete", note=note)
        claim.refresh_from_db()
        return f"Now: {_claim_line(claim)}"

    # Facts

    def get_facts(self, *, project: str | None) -> str:
        chosen = self._project(project)
        facts = facts_current(user=self.user, project_id=chosen.pk).order_by("fact_key")
        lines = [f"{fact.fact_key} = {_safe(fact.value_text, 300)}" for fact in facts[:500]]
        return "\n".join(lines) or f"No facts in {chosen.name} yet."

    def set_fact(self, *, key: str, value: str, project: str | None) -> str:
        chosen = self._project(project)
        result = fact_store(
            project=chosen,
            key=key,
            value=value,
            origin=FactOrigin.MCP,
            origin_token_name=self.token_name,
        )
        return f"{result.outcome}: {result.fact.fact_key} = {_safe(result.fact.value_text, 300)}"

    def _project(self, project: str | None) -> Project:
        try:
            return project_chosen_or_personal(
                user=self.user, project_id=uuid.UUID(project) if project else None
            )
        except (ValueError, Http404) as error:
            raise MemoryToolError(f"There is no project {project}.") from error
