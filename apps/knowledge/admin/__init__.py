"""The claim admin: claims with their tags, entities and contexts, scoped to the requesting
user and written through the services (DESIGN §3)."""

from .claims import ClaimAdmin

__all__ = ["ClaimAdmin"]
