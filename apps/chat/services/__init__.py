"""Writes to conversations and messages."""

from .conversations import (
    conversation_create,
    conversation_delete,
    conversation_pin_claim,
    conversation_set_archived,
    conversation_start,
    conversation_unpin_claim,
    conversation_update,
)
from .messages import (
    StoredFactCounts,
    StoredFinding,
    StoredMemoryItem,
    StoredSource,
    TokenUsage,
    TurnOutcome,
    message_append,
)
from .rate_limit import TurnsExhausted, turn_rate_limit_take

__all__ = [
    "StoredFactCounts",
    "StoredFinding",
    "StoredMemoryItem",
    "StoredSource",
    "TokenUsage",
    "TurnOutcome",
    "TurnsExhausted",
    "conversation_create",
    "conversation_delete",
    "conversation_pin_claim",
    "conversation_set_archived",
    "conversation_start",
    "conversation_unpin_claim",
    "conversation_update",
    "message_append",
    "turn_rate_limit_take",
]
