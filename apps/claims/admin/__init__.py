"""The admin as every user's knowledge editor (DESIGN §3): entities and tags, each scoped to
the requesting user and written through the services. The claim admin, whose forms and
filters name contexts, lives a layer up in apps/knowledge/admin/."""

from .labels import EntityAdmin, TagAdmin

__all__ = ["EntityAdmin", "TagAdmin"]
