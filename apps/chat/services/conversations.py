from __future__ import annotations

from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.db import transaction

from apps.chat.models import Conversation
from apps.claims.models import Claim
from apps.indexing.services import message_chunks_set_archived
from apps.projects.models import Project
from apps.projects.services import project_ensure_personal

if TYPE_CHECKING:
    from apps.accounts.models import User

TITLE_MAX_LENGTH = 200


def _clean_title(title: str) -> str:
    title = " ".join((title or "").split())
    if len(title) > TITLE_MAX_LENGTH:
        raise ValidationError({"title": f"A title has at most {TITLE_MAX_LENGTH} characters."})
    return title


def conversation_create(
    *, user: User, project: Project | None = None, title: str = ""
) -> Conversation:
    if project is None:
        project = project_ensure_personal(user=user)
    elif project.owner_id != user.pk:
        raise ValidationError({"project": "No such project."})
    return Conversation.objects.create(user=user, project=project, title=_clean_title(title))


def conversation_start(
    *, user: User, project: Project | None = None, title: str = ""
) -> tuple[Conversation, bool]:
    """A conversation to write in, and whether it is new: the newest one is given again
    while it is still empty, untitled and in the project asked for (the Personal one when
    none is), so pressing "New conversation" twice, on any door, leaves no blank ones."""
    if project is None:
        project = project_ensure_personal(user=user)
    if not _clean_title(title):
        newest = Conversation.objects.filter(user=user, archived=False).order_by("-updated_at")
        reusable = newest.first()
        if (
            reusable is not None
            and reusable.project_id == project.pk
            and not reusable.title
            and not reusable.messages.exists()
        ):
            return reusable, False
    return conversation_create(user=user, project=project, title=title), True


def conversation_update(*, conversation: Conversation, title: str) -> Conversation:
    conversation.title = _clean_title(title)
    conversation.save(update_fields=["title", "updated_at"])
    return conversation


@transaction.atomic
def conversation_set_archived(*, conversation: Conversation, archived: bool) -> Conversation:
    """Archive (or restore) a conversation; its indexed passages leave search with it."""
    conversation.archived = archived
    conversation.save(update_fields=["archived", "updated_at"])
    message_chunks_set_archived(
        message_ids=list(conversation.messages.values_list("pk", flat=True)), archived=archived
    )
    return conversation


def conversation_delete(*, conversation: Conversation) -> None:
    conversation.delete()


def _own_claim(conversation: Conversation, claim: Claim) -> Claim:
    if claim.user_id != conversation.user_id:
        raise ValidationError({"claim": "No such claim."})
    return claim


def conversation_pin_claim(*, conversation: Conversation, claim: Claim) -> None:
    conversation.pinned_claims.add(_own_claim(conversation, claim))


def conversation_unpin_claim(*, conversation: Conversation, claim: Claim) -> None:
    conversation.pinned_claims.remove(claim)


def claim_superseded_receiver(*, old: Claim, new: Claim, **kwargs: object) -> None:
    """A conversation's pin is on the memory: it moves to the new version (claims'
    ``claim_superseded`` signal, inside the superseding transaction)."""
    pins = Conversation.pinned_claims.through.objects
    conversation_ids = list(pins.filter(claim=old).values_list("conversation_id", flat=True))
    if not conversation_ids:
        return
    pins.bulk_create(
        [pins.model(conversation_id=cid, claim=new) for cid in conversation_ids],
        ignore_conflicts=True,
    )
    pins.filter(claim=old).delete()
