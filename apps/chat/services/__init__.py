"""Writes to conversations and messages."""

from .conversations import (
    conversation_create,
    conversation_delete,
    conversation_pin_claim,
    conversation_set_archived,
    conversation_unpin_claim,
    conversation_update,
)
from .messages import message_append

__all__ = [
    "conversation_create",
    "conversation_delete",
    "conversation_pin_claim",
    "conversation_set_archived",
    "conversation_unpin_claim",
    "conversation_update",
    "message_append",
]
