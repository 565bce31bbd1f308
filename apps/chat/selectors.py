"""Reads of conversations and messages, always scoped to the requesting user."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING

from django.db.models import Q, QuerySet
from django.http import Http404

from .models import Conversation, Message

if TYPE_CHECKING:
    from apps.accounts.models import User


def conversation_list(
    *, user: User, archived: bool | None = False, query: str = ""
) -> QuerySet[Conversation]:
    conversations = Conversation.objects.filter(user=user).select_related("project")
    if archived is not None:
        conversations = conversations.filter(archived=archived)
    query = query.strip()[:200]
    if query:
        conversations = conversations.filter(
            Q(title__icontains=query) | Q(messages__content__icontains=query)
        ).distinct()
    return conversations.order_by("-updated_at")


def conversation_get(*, user: User, conversation_id: uuid.UUID | str) -> Conversation:
    """The user's conversation, or 404: another user's is indistinguishable from none."""
    try:
        return Conversation.objects.select_related("project").get(
            user=user, id=uuid.UUID(str(conversation_id))
        )
    except (ValueError, Conversation.DoesNotExist) as exc:
        raise Http404("No such conversation.") from exc


def conversation_messages(*, conversation: Conversation) -> QuerySet[Message]:
    return conversation.messages.order_by("order")


def conversation_recent_messages(
    *, conversation: Conversation, limit: int = 20, before_order: int | None = None
) -> list[Message]:
    """The last ``limit`` complete or partial messages, oldest first: the model's history,
    who said what (every turn reads it: the rest of a message, its sources and notices, cost
    more to load than the query)."""
    messages = conversation.messages.exclude(status=Message.Status.FAILED).only(
        "id", "conversation_id", "role", "content", "status", "order"
    )
    if before_order is not None:
        messages = messages.filter(order__lt=before_order)
    return list(reversed(messages.order_by("-order")[:limit]))


def message_get(*, user: User, message_id: uuid.UUID | str) -> Message:
    try:
        return Message.objects.select_related("conversation").get(
            conversation__user=user, id=uuid.UUID(str(message_id))
        )
    except (ValueError, Message.DoesNotExist) as exc:
        raise Http404("No such message.") from exc


def conversation_import_state(*, conversation: Conversation) -> str | None:
    """For an imported conversation (an export or a transcript): "searchable" once every
    imported message is indexed, "indexing" before; None for one that was not imported.
    Imported messages wait as "pending" (messages typed live say "accepted")."""
    if not conversation.external_source:
        return None
    waiting = conversation.messages.filter(index_status="pending")
    return "indexing" if waiting.exists() else "searchable"


def messages_as_evidence(
    *, user: User, message_ids: Sequence[uuid.UUID]
) -> dict[uuid.UUID, Message]:
    """The user's messages among ``message_ids`` (role, status, time and text only), to
    judge whether a search hit on each is evidence for an answer."""
    messages = Message.objects.filter(pk__in=list(message_ids), conversation__user=user).only(
        "id", "role", "status", "created_at", "content", "conversation_id"
    )
    return {message.pk: message for message in messages}


def message_surroundings(
    *, user: User, message_id: uuid.UUID, before: int = 3, after: int = 3
) -> list[Message]:
    """The user's message with the turns around it, in order (a past chat read on)."""
    message = Message.objects.filter(pk=message_id, conversation__user=user).first()
    if message is None:
        return []
    return list(
        Message.objects.filter(
            conversation_id=message.conversation_id,
            order__gte=message.order - before,
            order__lte=message.order + after,
        )
        .exclude(status=Message.Status.FAILED)
        .select_related("conversation")
        .order_by("order")
    )
