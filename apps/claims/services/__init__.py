"""Writes to the knowledge model. Every function takes keyword-only, typed arguments."""

from .claims import (
    claim_create,
    claim_delete,
    claim_pin,
    claim_reinforce,
    claim_retract,
    claim_review,
    claim_set_pinned,
    claim_supersede,
    claim_update,
    create_with_friendly_id,
)
from .labels import (
    claim_tags_set,
    entity_create,
    entity_link_claims,
    entity_update,
    tag_create,
    tag_link_claims,
    tag_update,
)
from .lists import CompletionAction, claim_complete, claim_restore
from .numbering import claim_number_allocate

__all__ = [
    "CompletionAction",
    "claim_complete",
    "claim_create",
    "claim_delete",
    "claim_number_allocate",
    "claim_pin",
    "claim_reinforce",
    "claim_restore",
    "claim_retract",
    "claim_review",
    "claim_set_pinned",
    "claim_supersede",
    "claim_tags_set",
    "claim_update",
    "create_with_friendly_id",
    "entity_create",
    "entity_link_claims",
    "entity_update",
    "tag_create",
    "tag_link_claims",
    "tag_update",
]
