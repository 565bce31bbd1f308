"""The chat's side of facts (DESIGN §2): facts gets a message as a typed ``MessageToRead``
(``message_to_read``) and asks the ``MessageSource`` registered in ``ChatConfig.ready``
about a conversation, never the chat's models."""

from __future__ import annotations

import uuid

from apps.facts.messages import MessageToRead

from .models import Message


class ChatMessageSource:
    def conversation_message_ids(self, *, conversation_id: uuid.UUID) -> list[uuid.UUID]:
        ids = Message.objects.filter(conversation_id=conversation_id).order_by("order")
        return list(ids.values_list("id", flat=True))


def message_to_read(message: Message) -> MessageToRead:
    """``message`` as facts reads it (no query when its conversation is loaded, as it is
    in a chat turn: facts of a turn that states none cost nothing)."""
    return MessageToRead(
        message_id=message.pk,
        conversation_id=message.conversation_id,
        project_id=message.conversation.project_id,
        role=message.role,
        content=message.content,
        created_at=message.created_at,
    )
