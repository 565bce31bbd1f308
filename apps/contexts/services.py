from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.db import transaction

from apps.claims.models import Claim
from apps.claims.services import create_with_friendly_id
from apps.claims.services.identity import friendly_id_taken
from apps.claims.services.validation import clean_friendly_id
from apps.core.validation import required_text

from .models import MAX_CONTEXT_DEPTH, Context, ContextAlias, ContextClaim
from .selectors import context_depth, context_subtree_height

if TYPE_CHECKING:
    from apps.accounts.models import User


def _clean_name(name: str) -> str:
    name = required_text(name, field="name", what="A context's name")
    if len(name) > 200:
        raise ValidationError({"name": "A context name has at most 200 characters."})
    return name


def _check_parent(*, user: User, context: Context | None, parent: Context | None) -> None:
    """No cycles, and the whole moved subtree must stay within MAX_CONTEXT_DEPTH levels."""
    if parent is None:
        return
    if parent.user_id != user.pk:
        raise ValidationError({"parent": "No such context."})
    parent_depth = context_depth(context=parent)  # 1 for a root
    if context is not None:
        ancestor: Context | None = parent
        while ancestor is not None:
            if ancestor.pk == context.pk:
                raise ValidationError(
                    {"parent": "A context cannot be moved under itself or one of its children."}
                )
            ancestor = ancestor.parent
    height = context_subtree_height(context=context) if context is not None else 1
    if parent_depth + height > MAX_CONTEXT_DEPTH:
        raise ValidationError(
            {
                "parent": f"Contexts nest at most {MAX_CONTEXT_DEPTH} levels deep; this move "
                f"would make {parent_depth + height}."
            }
        )


@transaction.atomic
def context_create(
    *,
    user: User,
    name: str,
    description: str = "",
    parent: Context | None = None,
    friendly_id: str | None = None,
) -> Context:
    name = _clean_name(name)
    _check_parent(user=user, context=None, parent=parent)
    return create_with_friendly_id(
        model=Context,
        user=user,
        text=name,
        kind="context",
        chosen=friendly_id,
        build=lambda fid: Context(
            user=user, name=name, description=description, parent=parent, friendly_id=fid
        ),
    )


def context_update(
    *,
    context: Context,
    name: str | None = None,
    description: str | None = None,
    friendly_id: str | None = None,
) -> Context:
    if name is not None:
        context.name = _clean_name(name)
    if description is not None:
        context.description = description
    old_fid = context.friendly_id
    if friendly_id is not None and friendly_id != context.friendly_id:
        friendly_id = clean_friendly_id(friendly_id, kind="context")
        if friendly_id_taken(user_id=context.user_id, friendly_id=friendly_id, owner=context):
            raise ValidationError({"friendly_id": f"'{friendly_id}' is already taken."})
        context.friendly_id = friendly_id
    with transaction.atomic():
        context.save()
        if context.friendly_id != old_fid:
            # An ``@old_name`` in an earlier message still finds the context.
            ContextAlias.objects.filter(
                user_id=context.user_id, friendly_id=context.friendly_id
            ).delete()
            ContextAlias.objects.update_or_create(
                user_id=context.user_id, friendly_id=old_fid, defaults={"context": context}
            )
    return context


def contexts_hold_friendly_id(user_id: int, friendly_id: str, owner: object | None) -> bool:
    """Whether a context of the user is, or was, called ``friendly_id`` (the shared
    ``@name`` space, apps.claims.services.identity)."""
    rows = Context.objects.filter(user_id=user_id, friendly_id=friendly_id)
    aliases = ContextAlias.objects.filter(user_id=user_id, friendly_id=friendly_id)
    if isinstance(owner, Context):
        rows = rows.exclude(pk=owner.pk)
        aliases = aliases.exclude(context=owner)
    return rows.exists() or aliases.exists()


@transaction.atomic
def context_move(*, context: Context, parent: Context | None) -> Context:
    # Lock the user's contexts so two concurrent moves cannot build a cycle together.
    list(Context.objects.select_for_update().filter(user_id=context.user_id).values_list("id"))
    context.refresh_from_db()
    if parent is not None:
        parent.refresh_from_db()
    _check_parent(user=context.user, context=context, parent=parent)
    context.parent = parent
    context.save(update_fields=["parent", "updated_at"])
    return context


def context_add_claims(*, context: Context, claims: Iterable[Claim]) -> int:
    claims = list(claims)
    if any(claim.user_id != context.user_id for claim in claims):
        raise ValidationError({"claims": "Only your own claims can be added."})
    created = ContextClaim.objects.bulk_create(
        [ContextClaim(context=context, claim=claim) for claim in claims], ignore_conflicts=True
    )
    Context.objects.filter(pk=context.pk).update(updated_at=context.updated_at)
    return len(created)


def context_remove_claims(*, context: Context, claims: Iterable[Claim]) -> int:
    deleted, _ = ContextClaim.objects.filter(context=context, claim__in=list(claims)).delete()
    return deleted


@transaction.atomic
def claim_contexts_set(*, claim: Claim, contexts: Iterable[Context]) -> Claim:
    """Put ``claim`` in exactly ``contexts`` (the user's own): moving it between contexts
    is one replacement, so it is never in neither nor in both halfway."""
    chosen = {context.pk: context for context in contexts}
    if any(context.user_id != claim.user_id for context in chosen.values()):
        raise ValidationError({"contexts": "No such context."})
    ContextClaim.objects.filter(claim=claim).exclude(context_id__in=chosen).delete()
    ContextClaim.objects.bulk_create(
        [ContextClaim(context_id=pk, claim=claim) for pk in chosen], ignore_conflicts=True
    )
    return claim


def context_empty(*, context: Context) -> int:
    """Take every claim out of ``context`` (not out of its sub-contexts); the claims stay."""
    deleted, _ = ContextClaim.objects.filter(context=context).delete()
    return deleted


def context_transfer_memberships(*, old: Claim, new: Claim) -> None:
    """A superseding claim takes the place of the old one in its contexts (run by
    claim_supersede's signal; calling it again changes nothing)."""
    ids = ContextClaim.objects.filter(claim=old).values_list("context_id", flat=True)
    ContextClaim.objects.bulk_create(
        [ContextClaim(context_id=cid, claim=new) for cid in ids], ignore_conflicts=True
    )


def claim_superseded_receiver(*, old: Claim, new: Claim, **kwargs: object) -> None:
    context_transfer_memberships(old=old, new=new)


def context_delete(*, context: Context) -> None:
    """Deleting a context deletes its sub-contexts, never the claims in them."""
    context.delete()
