"""Endpoints the chat page calls while the user types (session auth, CSRF)."""

from __future__ import annotations

import uuid

from django.http import HttpRequest
from ninja import Query, Router, Schema

from apps.core.request_user import current_user

from .autocomplete import reference_suggestions
from .references import resolve_reference

router = Router(tags=["references"])


class SuggestionOut(Schema):
    kind: str
    friendly_id: str
    insert: str
    label: str
    preview: str
    group: str


class ReferenceQuery(Schema):
    q: str = ""
    limit: int = 10


@router.get("/references", response=list[SuggestionOut])
def references(request: HttpRequest, params: Query[ReferenceQuery]) -> list[SuggestionOut]:
    suggestions = reference_suggestions(
        user=current_user(request), query=params.q[:1000], limit=params.limit
    )
    return [
        SuggestionOut(
            kind=s.kind,
            friendly_id=s.friendly_id,
            insert=s.insert,
            label=s.label,
            preview=s.preview,
            group=s.group,
        )
        for s in suggestions
    ]


class PreviewClaimOut(Schema):
    id: uuid.UUID
    number: int
    friendly_id: str
    statement: str
    claim_types: list[str]


class PreviewOut(Schema):
    identifier: str
    kind: str
    found: bool
    title: str
    message: str
    claim_count: int
    claims: list[PreviewClaimOut]


@router.get("/references/preview", response=PreviewOut)
def reference_preview(request: HttpRequest, ref: str = "") -> PreviewOut:
    """What ``@ref`` would bring into the next answer: the chip's tooltip."""
    result = resolve_reference(current_user(request), ref[:200])
    return PreviewOut(
        identifier=result.identifier,
        kind=result.kind,
        found=result.found,
        title=result.title,
        message=result.message,
        claim_count=len(result.claims),
        claims=[
            PreviewClaimOut(
                id=c.id,
                number=c.number,
                friendly_id=c.friendly_id,
                statement=c.statement,
                claim_types=c.claim_types,
            )
            for c in result.claims[:10]
        ],
    )
