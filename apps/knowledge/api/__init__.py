"""The knowledge part of the integration API (``/api/v1/``): claims, entities, tags,
and export / import of a whole account."""

from .claims import ClaimViewSet
from .knowledge import KnowledgeExportApi, KnowledgeImportApi
from .labels import EntityViewSet, TagViewSet

__all__ = [
    "ClaimViewSet",
    "EntityViewSet",
    "KnowledgeExportApi",
    "KnowledgeImportApi",
    "TagViewSet",
]
