"""The admin as every user's knowledge editor (DESIGN §3): claims, entities and tags, each
scoped to the requesting user and written through the services."""

from .claims import ClaimAdmin
from .labels import EntityAdmin, TagAdmin

__all__ = ["ClaimAdmin", "EntityAdmin", "TagAdmin"]
