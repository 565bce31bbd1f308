"""Reading memory, the same for every door: list claims, search memory (what counts as
evidence and the cite threshold applied here, once), read a passage, get and set facts."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.http import Http404

from apps.claims.models import USABLE_STATUSES, Claim
from apps.claims.selectors import claim_list, claims_by_id
from apps.facts.models import FactOrigin, ProjectFact
from apps.facts.selectors import facts_current
from apps.facts.services import FactWriteResult, fact_store
from apps.indexing.search import SearchHit, evidence_search
from apps.indexing.selectors import document_text_for_user
from apps.projects.models import Project
from apps.projects.services import project_chosen_or_personal

from .errors import MemoryRefusal, refusal_from
from .schemas import FactSetInput, FactsInput, ListInput, ReadInput, SearchInput

if TYPE_CHECKING:
    from apps.accounts.models import User

READ_CHARS = 12_000
MAX_FACTS = 500


@dataclass(frozen=True)
class ClaimPage:
    claims: list[Claim]  # in number order: each keeps its place and its #N
    more: bool  # there are more than the limit


def memory_list(*, user: User, data: ListInput) -> ClaimPage:
    if data.status == "current":
        statuses: list[str] | None = list(USABLE_STATUSES)
    elif data.status == "any":
        statuses = None
    else:
        statuses = [data.status]
    claims = claim_list(
        user=user,
        statuses=statuses,
        claim_types=[data.claim_type] if data.claim_type else None,
    ).order_by("number")
    rows = list(claims[: data.limit + 1])
    return ClaimPage(claims=rows[: data.limit], more=len(rows) > data.limit)


@dataclass(frozen=True)
class Found:
    hit: SearchHit
    claim: Claim | None  # the claim a claim hit stands for


def memory_search(*, user: User, data: SearchInput) -> list[Found]:
    """Evidence only (what someone said or wrote, issue 28; everything on request), and
    only what is relevant enough to cite: the turn's own sources follow the same rule."""
    hits = evidence_search(
        user=user,
        query=data.query,
        project=memory_project(user=user, project=data.project) if data.project else None,
        kinds=data.kinds,
        k=data.limit,
        everything=data.everything,
        relevant_only=True,
    )
    claims = claims_by_id(user=user, ids=[hit.claim_id for hit in hits if hit.claim_id])
    found = []
    for hit in hits:
        claim = claims.get(hit.claim_id) if hit.claim_id else None
        if hit.kind == "claim" and claim is None:
            continue  # deleted since the search
        found.append(Found(hit=hit, claim=claim))
    return found


@dataclass(frozen=True)
class Passage:
    title: str
    document_id: str
    text: str  # the window read, from ``offset``
    offset: int
    total: int  # the document's length in characters

    @property
    def more(self) -> bool:
        return self.total > self.offset + len(self.text)


def memory_read(*, user: User, data: ReadInput) -> Passage:
    """A window of one of the user's indexed documents, from ``offset``."""
    try:
        title, text, document_id = document_text_for_user(user=user, key=data.document_id)
    except (ValidationError, Http404) as error:
        raise MemoryRefusal("document_id", f"There is no document {data.document_id}.") from error
    return Passage(
        title=title,
        document_id=document_id,
        text=text[data.offset : data.offset + READ_CHARS],
        offset=data.offset,
        total=len(text),
    )


def memory_project(*, user: User, project: str | None) -> Project:
    """The project named (a UUID of the user's), or Personal when none is."""
    try:
        return project_chosen_or_personal(
            user=user, project_id=uuid.UUID(project) if project else None
        )
    except (ValueError, Http404) as error:
        raise MemoryRefusal("project", f"There is no project {project}.") from error


@dataclass(frozen=True)
class Facts:
    project: Project
    facts: list[ProjectFact]  # current ones, by key


def facts_get(*, user: User, data: FactsInput) -> Facts:
    project = memory_project(user=user, project=data.project)
    facts = facts_current(user=user, project_id=project.pk).order_by("fact_key")
    return Facts(project=project, facts=list(facts[:MAX_FACTS]))


def fact_set(
    *, user: User, data: FactSetInput, origin: str = FactOrigin.API, origin_token_name: str = ""
) -> FactWriteResult:
    """Stored, updated (the old value kept as history) or unchanged; ``origin_token_name``
    names the API token a write came through (MCP: "added over MCP (name)")."""
    project = memory_project(user=user, project=data.project)
    try:
        return fact_store(
            project=project,
            key=data.key,
            value=data.value,
            origin=origin,
            origin_token_name=origin_token_name,
        )
    except ValidationError as error:
        raise refusal_from(error, default_field="key") from error
