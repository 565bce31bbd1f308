"""One identity per memory: the ``@name`` space claims and contexts share, and the names
they were known by before (aliases), so a reference written once keeps finding its object."""

from __future__ import annotations

from collections.abc import Callable

from django.db import models

from apps.claims.models import Claim, ClaimAlias

# (user id, friendly ID, the object being named or None) → is the name someone else's?
FriendlyIdHolder = Callable[[int, str, models.Model | None], bool]

# Kinds whose IDs carry no suffix and so share one ``@name`` space; the resolver tries
# claims before contexts, so a claim named like a context would hide it.
SHARED_KINDS = frozenset({"claim", "context"})
_HOLDERS: list[FriendlyIdHolder] = []


def friendly_id_space_register(holder: FriendlyIdHolder) -> None:
    """Contexts sit above claims in the dependency order (DESIGN §2), so they add their
    names to the shared space from their AppConfig instead of claims importing them."""
    if holder not in _HOLDERS:
        _HOLDERS.append(holder)


def _claims_hold(user_id: int, friendly_id: str, owner: models.Model | None) -> bool:
    rows = Claim.objects.filter(user_id=user_id, friendly_id=friendly_id)
    aliases = ClaimAlias.objects.filter(user_id=user_id, friendly_id=friendly_id)
    if isinstance(owner, Claim) and owner.number:
        # A memory's own versions share its number: its old names are still its own.
        rows = rows.exclude(number=owner.number)
        aliases = aliases.exclude(claim__number=owner.number)
    return rows.exists() or aliases.exists()


def friendly_id_taken(*, user_id: int, friendly_id: str, owner: models.Model | None = None) -> bool:
    """Whether ``friendly_id`` already names another claim or context of this user, now or
    in the past (a superseded version, an alias)."""
    if _claims_hold(user_id, friendly_id, owner):
        return True
    return any(holder(user_id, friendly_id, owner) for holder in _HOLDERS)


def claim_alias_record(*, claim: Claim, old_friendly_id: str) -> None:
    """Keep ``old_friendly_id`` pointing at ``claim`` after a rename; the new name, now
    live, no longer needs an alias."""
    ClaimAlias.objects.filter(user_id=claim.user_id, friendly_id=claim.friendly_id).delete()
    if old_friendly_id and old_friendly_id != claim.friendly_id:
        ClaimAlias.objects.update_or_create(
            user_id=claim.user_id, friendly_id=old_friendly_id, defaults={"claim": claim}
        )
