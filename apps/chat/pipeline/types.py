from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from apps.chat.error_codes import ErrorCode
from apps.chat.llm import ChatTurn
from apps.chat.models import Conversation, Message
from apps.chat.pipeline.prompt import ChunkLine, FactLine, ListSection
from apps.chat.pipeline.sources import SourceRegistry
from apps.chat.services import StoredFactCounts, StoredMemoryItem
from apps.claims.selectors import LeanClaim
from apps.contexts.references import ReferenceResolution

MAX_MESSAGE_CHARS = 32 * 1024
WAITING_LABEL = "WAITING"


class TurnRejected(ValueError):
    """The input cannot start a turn; the message says why, for the user."""

    def __init__(self, message: str, code: ErrorCode) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class TurnRequest:
    text: str
    attached_claim_ids: tuple[uuid.UUID, ...] = ()
    # The list a ranked fact belongs to, when the user answered a clarifying question.
    fact_topic: str | None = None


@dataclass
class MemoryItem:
    """One claim brought into the turn, with the label of the strongest reason it is here."""

    claim: LeanClaim
    label: str
    priority: int
    score: float | None = None
    source_number: int | None = None
    # A pinned claim the question is not about: in the prompt as standing context, never
    # a numbered source of the answer (issue 28).
    background: bool = False

    @property
    def waiting(self) -> bool:
        """A statement of the user's in this conversation still waiting for review."""
        return self.label == WAITING_LABEL

    @property
    def is_referenced(self) -> bool:
        return self.priority == 0

    def as_dict(self) -> StoredMemoryItem:
        return {
            "claim_id": str(self.claim.id),
            "number": self.claim.number,
            "friendly_id": self.claim.friendly_id,
            "statement": self.claim.statement,
            "claim_types": list(self.claim.claim_types),
            "label": self.label,
            "source": self.source_number,
            "background": self.background,
        }


@dataclass(frozen=True)
class FactCounts:
    stored: int = 0
    updated: int = 0
    retrieved: int = 0
    ambiguous_topics: tuple[str, ...] = ()
    unresolved: tuple[str, ...] = ()  # ranked items of no known list: not saved
    # Each write in words: "Saved #1 crypto = BTC", "Updated #1 crypto: BTC → SOL".
    changes: tuple[str, ...] = ()

    def as_dict(self) -> StoredFactCounts:
        return {
            "changes": list(self.changes),
            "stored": self.stored,
            "updated": self.updated,
            "retrieved": self.retrieved,
            "ambiguous_topics": list(self.ambiguous_topics),
            "unresolved": list(self.unresolved),
        }


@dataclass
class PreparedTurn:
    """Everything the streaming step needs, built before the first token is asked for."""

    conversation: Conversation
    user_message: Message
    clean_text: str
    resolutions: list[ReferenceResolution]
    memory: list[MemoryItem]
    registry: SourceRegistry
    system_prompt: str
    history: list[ChatTurn]
    fact_counts: FactCounts
    index_status: str
    fact_lines: list[FactLine] = field(default_factory=list)
    chunk_lines: list[ChunkLine] = field(default_factory=list)
    list_sections: list[ListSection] = field(default_factory=list)
    distilled: bool = False
    notices: list[str] = field(default_factory=list)
