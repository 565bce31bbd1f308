"""One identity per memory, read side: a number, friendly ID or id that named an earlier
version (or an old name) leads to the memory's current version, with a note saying so.

A memory's versions share its number and friendly ID (claim_supersede); only the current
one is not superseded. Chains made before that rule carry other numbers on their older
versions, and renamed claims leave aliases: both still find the current version."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .models import Claim, ClaimAlias, ClaimStatus

if TYPE_CHECKING:
    from apps.accounts.models import User

MAX_CHAIN = 25


@dataclass(frozen=True)
class ClaimFound:
    """The current version of the memory a key named, and why, when the key named an
    earlier version or an old name ("" when it named the current version itself)."""

    claim: Claim
    note: str = ""


def claim_current(*, claim: Claim) -> Claim:
    """The newest version of ``claim``'s memory (``claim`` itself when it is current)."""
    current = claim
    for _ in range(MAX_CHAIN):
        if current.status != ClaimStatus.SUPERSEDED:
            break
        newer = Claim.objects.filter(supersedes_id=current.pk, user_id=claim.user_id).first()
        if newer is None:
            break
        current = newer
    return current


def _redirected(name: str, old: Claim) -> ClaimFound:
    current = claim_current(claim=old)
    if current.pk == old.pk:
        return ClaimFound(current)
    if current.number == old.number:
        return ClaimFound(current, f"{name} was edited; showing the current version.")
    return ClaimFound(
        current, f"{name} was replaced by #{current.number}; showing the current version."
    )


def claim_found_by_number(*, user: User, number: int) -> ClaimFound | None:
    rows = Claim.objects.filter(user=user, number=number)
    current = rows.exclude(status=ClaimStatus.SUPERSEDED).first()
    if current is not None:
        return ClaimFound(current)
    old = rows.order_by("-created_at").first()
    return _redirected(f"#{number}", old) if old is not None else None


def claim_found_by_friendly_id(*, user: User, friendly_id: str) -> ClaimFound | None:
    rows = Claim.objects.filter(user=user, friendly_id=friendly_id)
    current = rows.exclude(status=ClaimStatus.SUPERSEDED).first()
    if current is not None:
        return ClaimFound(current)
    old = rows.order_by("-created_at").first()
    if old is not None:
        return _redirected(f"@{friendly_id}", old)
    alias = ClaimAlias.objects.filter(user=user, friendly_id=friendly_id).select_related("claim")
    found = alias.first()
    if found is None:
        return None
    current = claim_current(claim=found.claim)
    return ClaimFound(current, f"@{friendly_id} is now #{current.number} (@{current.friendly_id}).")


def claim_found_by_id(*, user: User, claim_id: uuid.UUID) -> ClaimFound | None:
    old = Claim.objects.filter(user=user, id=claim_id).first()
    if old is None:
        return None
    return _redirected(f"#{old.number}", old)
