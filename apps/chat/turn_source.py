"""The chat's side of indexing (DESIGN §2): indexing asks for a message by id and gets a
typed ``TurnToIndex``, never the chat's models. Registered in ``ChatConfig.ready``."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from django.db import connection
from django.db.models import Max, Min, Subquery
from django.db.models.functions import Coalesce

from apps.indexing.turns import TurnSaid, TurnToIndex

from .models import Conversation, Message
from .pipeline.sources import without_footer


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
            text=without_footer(message.content),
            speaker=message.role,
            created_at=message.created_at,
            previous_turn=_shown(previous),
            following_turn=_shown(following),
            user_id=conversation.user_id,
            project_id=conversation.project_id,
            archived=conversation.archived,
            previous_message_id=previous.pk if previous else None,
        )

    def turns(self, *, message_ids: Sequence[uuid.UUID | str]) -> list[TurnToIndex]:
        wanted = {str(message_id) for message_id in message_ids}
        orders = (
            Message.objects.filter(pk__in=wanted)
            .order_by()
            .values("conversation_id")
            .annotate(first=Min("order"), last=Max("order"))
        )
        spans = {row["conversation_id"]: (row["first"], row["last"]) for row in orders}
        found: list[TurnToIndex] = []
        for conversation in Conversation.objects.filter(pk__in=list(spans)):
            # One read of the wanted stretch of each conversation and the turn either side
            # of it gives every wanted message its neighbours: a window refresh of one turn
            # of a long chat reads three messages, not the whole history.
            first, last = spans[conversation.pk]
            siblings = Message.objects.filter(conversation=conversation)
            before = siblings.filter(order__lt=first).order_by("-order").values("order")[:1]
            after = siblings.filter(order__gt=last).order_by("order").values("order")[:1]
            history = list(
                siblings.filter(
                    order__gte=Coalesce(Subquery(before), first),
                    order__lte=Coalesce(Subquery(after), last),
                )
                .order_by("order")
                .only("id", "role", "content", "created_at", "order")
            )
            for index, message in enumerate(history):
                if str(message.pk) not in wanted:
                    continue
                found.append(
                    TurnToIndex(
                        message_id=message.pk,
                        text=without_footer(message.content),
                        speaker=message.role,
                        created_at=message.created_at,
                        previous_turn=_shown(history[index - 1] if index > 0 else None),
                        following_turn=_shown(
                            history[index + 1] if index + 1 < len(history) else None
                        ),
                        user_id=conversation.user_id,
                        project_id=conversation.project_id,
                        archived=conversation.archived,
                        previous_message_id=history[index - 1].pk if index > 0 else None,
                    )
                )
        return found

    def lock_many(self, *, message_ids: Sequence[uuid.UUID | str]) -> dict[uuid.UUID, bool]:
        locked = (
            Message.objects.select_related("conversation")
            .select_for_update(of=("self", "conversation"))
            .filter(pk__in=list(message_ids))
            .only("id", "conversation__archived")
        )
        return {message.pk: message.conversation.archived for message in locked}

    def lock(self, *, message_id: uuid.UUID | str) -> bool | None:
        locked = (
            Message.objects.select_related("conversation")
            .select_for_update(of=("self", "conversation"))
            .filter(pk=message_id)
            .only("id", "conversation__archived")
            .first()
        )
        return None if locked is None else locked.conversation.archived

    def said(self, *, message_ids: Sequence[uuid.UUID | str]) -> dict[uuid.UUID, TurnSaid]:
        # Every search asks this of its hits: one plain statement, what a hit shows and no
        # more (compiling a queryset and building models cost more than running it).
        with connection.cursor() as cursor:
            cursor.execute(_SAID_SQL, ["{" + ",".join(map(str, message_ids)) + "}"])
            rows = cursor.fetchall()
        return {row[0]: TurnSaid(**dict(zip(_SAID_COLUMNS, row, strict=True))) for row in rows}


_SAID_COLUMNS = (
    *("message_id", "conversation_id", "role", "content", "status", "created_at"),
    "external_source",
)
_SAID_SQL = (
    "SELECT m.id, m.conversation_id, m.role, m.content, m.status, m.created_at, "  # noqa: S608 - tables from code, values as parameters
    f"c.external_source FROM {Message._meta.db_table} AS m "
    f"JOIN {Conversation._meta.db_table} AS c ON c.id = m.conversation_id "
    "WHERE m.id = ANY(%s::uuid[])"
)


def _shown(message: Message | None) -> str | None:
    if message is None or not message.content.strip():
        return None
    return f"{message.role}: {without_footer(message.content)}"
