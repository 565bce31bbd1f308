"""The typed lists a person keeps in memory: goals, tasks, the shopping list.

Finishing an item (a goal reached, a task done, an item bought) marks it ``done``, which is
not ``retracted``: it was true, and it is history now (issue 17). A done item can be
restored when it was ticked off by mistake or is wanted again.
"""

from __future__ import annotations

from typing import Literal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from apps.claims.models import USABLE_STATUSES, Claim, ClaimStatus

from .claims import claim_update

CompletionAction = Literal["complete", "tick_off"]


@transaction.atomic
def claim_complete(*, claim: Claim, action: CompletionAction = "complete", note: str = "") -> Claim:
    """A goal or task completed, or a shopping item ticked off: it leaves the answers'
    memory but keeps its record, done, on the Knowledge page and in ``memory_list``."""
    if claim.status == ClaimStatus.DONE:
        raise ValidationError({"status": f"#{claim.number} is already done."})
    if claim.status not in USABLE_STATUSES:
        raise ValidationError(
            {"status": f"#{claim.number} is {claim.status}; only a current item can be done."}
        )
    metadata = {
        **claim.metadata,
        "done_at": timezone.now().isoformat(),
        "done_action": action,
        "note": note,
    }
    return claim_update(claim=claim, metadata=metadata, status=ClaimStatus.DONE, pinned=False)


@transaction.atomic
def claim_restore(*, claim: Claim) -> Claim:
    """A done item back on its list, or a retracted claim back in the answers (with the
    turn it was taken from, and pinned again if it was), active again; when it was done
    or retracted stays in its history."""
    if claim.status not in (ClaimStatus.DONE, ClaimStatus.RETRACTED):
        raise ValidationError(
            {"status": f"#{claim.number} is {claim.status}, not done (nor retracted)."}
        )
    metadata = {key: value for key, value in claim.metadata.items() if key != "note"}
    metadata["restored_at"] = timezone.now().isoformat()
    pinned = bool(metadata.pop("pinned_before_retraction", False))
    if claim.status == ClaimStatus.RETRACTED:
        return claim_update(
            claim=claim, metadata=metadata, status=ClaimStatus.ACTIVE, pinned=pinned
        )
    return claim_update(claim=claim, metadata=metadata, status=ClaimStatus.ACTIVE)
