"""The knowledge document's records: what an export holds and an import reads back.

On the wire the document is JSON with these field names; ids are document-local keys
(an export writes the rows' UUIDs) that links (``supersedes``, ``parent``, ``claims``)
refer to. Embeddings are not part of it: they are recomputed after an import.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

FORMAT_NAME = "cairn-knowledge"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class ClaimRecord:
    id: str
    number: int
    friendly_id: str
    statement: str
    claim_types: list[str]
    domains: list[str]
    status: str
    possible_questions: list[str]
    pinned: bool
    confidence: float
    valid_from: datetime | None
    valid_until: datetime | None
    supersedes: str | None
    origin: str
    # The API token's name when it was added over MCP (provenance); blank otherwise.
    origin_token_name: str
    # The chat message a claim came from; conversations are not exported, so an import
    # leaves the link empty. Written for reference only.
    source_message: str | None
    metadata: dict[str, Any]
    reinforced_count: int
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class MembershipRecord:
    claim: str
    added_at: datetime


@dataclass(frozen=True)
class ContextRecord:
    id: str
    friendly_id: str
    name: str
    description: str
    parent: str | None
    claims: list[MembershipRecord]
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class TagRecord:
    id: str
    friendly_id: str
    name: str
    parent: str | None
    claims: list[str]
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class EntityRecord:
    id: str
    friendly_id: str
    name: str
    entity_type: str
    description: str
    claims: list[str]
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class KnowledgeDocument:
    # The user's claim counter: at least the highest number, higher when the newest claims
    # were deleted, so numbers are never reused after an import either.
    last_claim_number: int
    claims: list[ClaimRecord] = field(default_factory=list)
    contexts: list[ContextRecord] = field(default_factory=list)
    tags: list[TagRecord] = field(default_factory=list)
    entities: list[EntityRecord] = field(default_factory=list)


def _wire(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, list):
        return [_wire(item) for item in value]
    if isinstance(value, dict):
        return {key: _wire(item) for key, item in value.items()}
    return value


def document_to_wire(document: KnowledgeDocument, *, exported_at: datetime) -> dict[str, Any]:
    """The JSON-ready form of ``document``."""
    body = _wire(dataclasses.asdict(document))
    return {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "exported_at": exported_at.isoformat(),
        **body,
    }
