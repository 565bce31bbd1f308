"""Endpoints the chat page calls (session auth with CSRF, mounted under /api/ui/).

Each one reads through a user-scoped selector, so another user's conversation, message or
claim answers 404, and writes through one service."""

from __future__ import annotations

import uuid
from datetime import datetime

from django.http import HttpRequest
from django.urls import reverse
from ninja import Field, Query, Router, Schema, Status

from apps.chat.models import Conversation
from apps.chat.pipeline.types import MAX_MESSAGE_CHARS
from apps.chat.presentation import remember_default
from apps.chat.selectors import conversation_get, conversation_list, message_get
from apps.chat.services import (
    conversation_delete,
    conversation_pin_claim,
    conversation_set_archived,
    conversation_start,
    conversation_unpin_claim,
    conversation_update,
)
from apps.claims.models import Claim
from apps.claims.selectors import claim_get, claims_pending
from apps.core.request_user import current_user
from apps.facts.extraction import message_rank_spans
from apps.memory.actions import memory_pin, memory_remember_message

router = Router(tags=["chat"])
LIST_LIMIT = 200


class ConversationOut(Schema):
    id: uuid.UUID
    title: str
    archived: bool
    updated_at: datetime
    url: str


class ConversationQuery(Schema):
    archived: bool = False
    q: str = ""


class ConversationCreateIn(Schema):
    title: str = ""


class ConversationPatchIn(Schema):
    title: str | None = None
    archived: bool | None = None


class ClaimOut(Schema):
    id: uuid.UUID
    number: int
    friendly_id: str
    statement: str
    pinned: bool
    url: str


class PinIn(Schema):
    claim_id: uuid.UUID


class GlobalPinIn(Schema):
    pinned: bool


class RememberIn(Schema):
    statement: str | None = None


class RememberOut(Schema):
    claim_id: uuid.UUID
    number: int
    friendly_id: str
    statement: str
    created: bool
    url: str


def _conversation_out(conversation: Conversation) -> ConversationOut:
    return ConversationOut(
        id=conversation.id,
        title=str(conversation),
        archived=conversation.archived,
        updated_at=conversation.updated_at,
        url=reverse("chat:conversation", args=[conversation.id]),
    )


def _claim_out(claim: Claim) -> ClaimOut:
    return ClaimOut(
        id=claim.id,
        number=claim.number,
        friendly_id=claim.friendly_id,
        statement=claim.statement,
        pinned=claim.pinned,
        url=reverse("knowledge:claim", args=[claim.id]),
    )


@router.get("/conversations", response=list[ConversationOut])
def conversations(request: HttpRequest, params: Query[ConversationQuery]) -> list[ConversationOut]:
    found = conversation_list(user=current_user(request), archived=params.archived, query=params.q)
    return [_conversation_out(c) for c in found[:LIST_LIMIT]]


@router.post("/conversations", response={200: ConversationOut, 201: ConversationOut})
def conversation_new(
    request: HttpRequest, payload: ConversationCreateIn
) -> Status[ConversationOut]:
    """201 with a new conversation, or 200 with the newest one while it is still empty. A
    refusal (ValidationError) is the API's 400 naming the field (config/api.py)."""
    conversation, created = conversation_start(user=current_user(request), title=payload.title)
    return Status(201 if created else 200, _conversation_out(conversation))


@router.patch("/conversations/{conversation_id}", response=ConversationOut)
def conversation_patch(
    request: HttpRequest, conversation_id: uuid.UUID, payload: ConversationPatchIn
) -> ConversationOut:
    conversation = conversation_get(user=current_user(request), conversation_id=conversation_id)
    if payload.title is not None:
        conversation_update(conversation=conversation, title=payload.title)
    if payload.archived is not None:
        conversation_set_archived(conversation=conversation, archived=payload.archived)
    return _conversation_out(conversation)


@router.delete("/conversations/{conversation_id}", response={204: None})
def conversation_remove(request: HttpRequest, conversation_id: uuid.UUID) -> Status[None]:
    conversation = conversation_get(user=current_user(request), conversation_id=conversation_id)
    conversation_delete(conversation=conversation)
    return Status(204, None)


@router.get("/conversations/{conversation_id}/pins", response=list[ClaimOut])
def conversation_pins(request: HttpRequest, conversation_id: uuid.UUID) -> list[ClaimOut]:
    conversation = conversation_get(user=current_user(request), conversation_id=conversation_id)
    return [_claim_out(claim) for claim in conversation.pinned_claims.order_by("number")]


@router.post("/conversations/{conversation_id}/pins", response={201: ClaimOut})
def conversation_pin(
    request: HttpRequest, conversation_id: uuid.UUID, payload: PinIn
) -> Status[ClaimOut]:
    user = current_user(request)
    conversation = conversation_get(user=user, conversation_id=conversation_id)
    claim = claim_get(user=user, claim_id=payload.claim_id)
    conversation_pin_claim(conversation=conversation, claim=claim)
    return Status(201, _claim_out(claim))


@router.delete("/conversations/{conversation_id}/pins/{claim_id}", response={204: None})
def conversation_unpin(
    request: HttpRequest, conversation_id: uuid.UUID, claim_id: uuid.UUID
) -> Status[None]:
    user = current_user(request)
    conversation = conversation_get(user=user, conversation_id=conversation_id)
    conversation_unpin_claim(
        conversation=conversation, claim=claim_get(user=user, claim_id=claim_id)
    )
    return Status(204, None)


@router.post("/claims/{claim_id}/pin", response=ClaimOut)
def claim_pin(request: HttpRequest, claim_id: uuid.UUID, payload: GlobalPinIn) -> ClaimOut:
    """Pin a claim globally: it is used in every answer of every conversation."""
    claim = claim_get(user=current_user(request), claim_id=claim_id)
    return _claim_out(memory_pin(claim=claim, pinned=payload.pinned).claim)


@router.post("/messages/{message_id}/remember", response={200: RememberOut, 201: RememberOut})
def message_remember(
    request: HttpRequest, message_id: uuid.UUID, payload: RememberIn
) -> Status[RememberOut]:
    """Save a message (or the user's edit of it) as a memory, linked to the message; a
    statement Cairn already knows reinforces that claim instead (200, created false)."""
    user = current_user(request)
    message = message_get(user=user, message_id=message_id)
    statement = (payload.statement or "").strip() or remember_default(message)
    remembered = memory_remember_message(user=user, message=message, statement=statement)
    claim, created = remembered.claim, remembered.created
    return Status(
        201 if created else 200,
        RememberOut(
            claim_id=claim.id,
            number=claim.number,
            friendly_id=claim.friendly_id,
            statement=claim.statement,
            created=created,
            url=reverse("knowledge:claim", args=[claim.id]),
        ),
    )


class ReadIn(Schema):
    text: str = Field(max_length=MAX_MESSAGE_CHARS)


class ReadOut(Schema):
    """The spans of the text that are ranks, as code-point offsets (the page's parser
    takes them and leaves those ``#N`` alone), and the pending-claims count."""

    ranks: list[tuple[int, int]]


@router.post("/references/read", response=ReadOut)
def references_read(request: HttpRequest, payload: ReadIn) -> ReadOut:
    """What the composer's chips need to read ``#N`` as the server will (issue 18)."""
    return ReadOut(ranks=[(start, end) for start, end in message_rank_spans(payload.text)])


class PendingOut(Schema):
    pending: int


@router.get("/claims/pending-count", response=PendingOut)
def pending_count(request: HttpRequest) -> PendingOut:
    """The navigation's badge, refreshed after a turn may have suggested claims."""
    return PendingOut(pending=claims_pending(user=current_user(request)).count())
