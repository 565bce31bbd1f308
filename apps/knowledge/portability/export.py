"""Everything a user knows, as one KnowledgeDocument: claims, contexts, tags, entities."""

from __future__ import annotations

import uuid
from collections import defaultdict
from typing import TYPE_CHECKING, Any

from django.utils import timezone

from apps.claims.models import Claim, ClaimCounter, Entity, Tag
from apps.claims.selectors import claim_list, entity_list, tag_list
from apps.contexts.selectors import context_memberships, context_tree

from .records import (
    ClaimRecord,
    ContextRecord,
    EntityRecord,
    KnowledgeDocument,
    MembershipRecord,
    TagRecord,
    document_to_wire,
)

if TYPE_CHECKING:
    from apps.accounts.models import User


def knowledge_export(*, user: User) -> dict[str, Any]:
    """The user's whole knowledge as one JSON-ready document (see ``records``)."""
    return document_to_wire(knowledge_document(user=user), exported_at=timezone.now())


def knowledge_document(*, user: User) -> KnowledgeDocument:
    claims = list(claim_list(user=user).order_by("number"))
    highest = claims[-1].number if claims else 0
    counter = ClaimCounter.objects.filter(user=user).values_list("last_number", flat=True)
    return KnowledgeDocument(
        last_claim_number=max(highest, counter.first() or 0),
        claims=[_claim(claim) for claim in claims],
        contexts=_contexts(user),
        tags=_tags(user),
        entities=_entities(user),
    )


def _id(value: uuid.UUID | None) -> str | None:
    return str(value) if value is not None else None


def _claim(claim: Claim) -> ClaimRecord:
    return ClaimRecord(
        id=str(claim.id),
        number=claim.number,
        friendly_id=claim.friendly_id,
        statement=claim.statement,
        claim_types=list(claim.claim_types),
        domains=list(claim.domains),
        status=claim.status,
        possible_questions=list(claim.possible_questions),
        pinned=claim.pinned,
        confidence=claim.confidence,
        valid_from=claim.valid_from,
        valid_until=claim.valid_until,
        supersedes=_id(claim.supersedes_id),
        origin=claim.origin,
        origin_token_name=claim.origin_token_name,
        source_message=_id(claim.source_message_id),
        metadata=claim.metadata,
        reinforced_count=claim.reinforced_count,
        created_at=claim.created_at,
        updated_at=claim.updated_at,
    )


def _contexts(user: User) -> list[ContextRecord]:
    memberships: dict[uuid.UUID, list[MembershipRecord]] = defaultdict(list)
    for link in context_memberships(user=user):
        memberships[link.context_id].append(
            MembershipRecord(claim=str(link.claim_id), added_at=link.added_at)
        )
    return [
        ContextRecord(
            id=str(context.id),
            friendly_id=context.friendly_id,
            name=context.name,
            description=context.description,
            parent=_id(context.parent_id),
            claims=memberships[context.id],
            created_at=context.created_at,
            updated_at=context.updated_at,
        )
        for context, _depth in context_tree(user=user)  # parents before children
    ]


def _claim_ids_by(through: Any, owner_field: str, user: User) -> dict[uuid.UUID, list[str]]:
    linked: dict[uuid.UUID, list[str]] = defaultdict(list)
    rows = (
        through.objects.filter(**{f"{owner_field}__user": user, "claim__user": user})
        .order_by("claim__number")
        .values_list(f"{owner_field}_id", "claim_id")
    )
    for owner_id, claim_id in rows:
        linked[owner_id].append(str(claim_id))
    return linked


def _tags(user: User) -> list[TagRecord]:
    tags = list(tag_list(user=user).order_by("created_at", "id"))
    parent_of = {tag.id: tag.parent_id for tag in tags}

    def depth(tag_id: uuid.UUID | None) -> int:
        levels = 0
        while tag_id is not None and levels <= len(parent_of):
            tag_id, levels = parent_of.get(tag_id), levels + 1
        return levels

    claims = _claim_ids_by(Tag.claims.through, "tag", user)
    return [
        TagRecord(
            id=str(tag.id),
            friendly_id=tag.friendly_id,
            name=tag.name,
            parent=_id(tag.parent_id),
            claims=claims[tag.id],
            created_at=tag.created_at,
            updated_at=tag.updated_at,
        )
        for tag in sorted(tags, key=lambda tag: depth(tag.id))  # parents before children
    ]


def _entities(user: User) -> list[EntityRecord]:
    claims = _claim_ids_by(Entity.claims.through, "entity", user)
    return [
        EntityRecord(
            id=str(entity.id),
            friendly_id=entity.friendly_id,
            name=entity.name,
            entity_type=entity.entity_type,
            description=entity.description,
            claims=claims[entity.id],
            created_at=entity.created_at,
            updated_at=entity.updated_at,
        )
        for entity in entity_list(user=user).order_by("created_at", "id")
    ]
