"""The chat's side of indexing (DESIGN §2): indexing asks for a message by id and gets a
typed ``TurnToIndex``, never the chat's models. Registered in ``ChatConfig.ready``."""

from __future__ import annotations

import uuid

from apps.indexing.turns import TurnToIndex

from .models import Message


class ChatTurnSource:
    def turn(self, *, message_id: uuid.UUID | str) -> TurnToIndex | None:
        message = Message.objects.select_related("conversation").filter(pk=message_id).first()
        if message is None:
            return None
        conversation = message.conversation
        siblings = Message.objects.filter(conversation=conversation)
        previous = siblings.filter(order__lt=message.order).order_by("-order").first()
        following = siblings.filter(order__gt=message.order).order_by("order").first()
        return TurnToIndex(
            message_id=message.pk,
            text=message.content,
            speaker=message.role,
            created_at=message.created_at,
            previous_turn=_shown(previous),
            following_turn=_shown(following),
            user_id=conversation.user_id,
            project_id=conversation.project_id,
            archived=conversation.archived,
        )

    def lock(self, *, message_id: uuid.UUID | str) -> bool | None:
        locked = (
            Message.objects.select_related("conversation")
            .select_for_update(of=("self", "conversation"))
            .filter(pk=message_id)
            .only("id", "conversation__archived")
            .first()
        )
        return None if locked is None else locked.conversation.archived


def _shown(message: Message | None) -> str | None:
    if message is None or not message.content.strip():
        return None
    return f"{message.role}: {message.content}"
