from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from enum import Enum, auto
from typing import TYPE_CHECKING, Any, TypeVar

from django.core.exceptions import ValidationError
from django.db import IntegrityError, models, transaction
from django.db.models import F
from django.utils import timezone

from apps.claims.friendly_ids import friendly_id_candidates
from apps.claims.models import Claim, ClaimOrigin, ClaimStatus
from apps.claims.signals import claim_superseded, claims_content_changed

from .identity import SHARED_KINDS, claim_alias_record, friendly_id_taken
from .numbering import claim_number_allocate
from .validation import (
    clean_claim_types,
    clean_confidence,
    clean_domains,
    clean_friendly_id,
    clean_questions,
    clean_statement,
    clean_status,
)

if TYPE_CHECKING:
    from apps.accounts.models import User
    from apps.chat.models import Message

FRIENDLY_ID_ATTEMPTS = 8
ModelT = TypeVar("ModelT", bound=models.Model)


def create_with_friendly_id(
    *,
    model: type[ModelT],
    user: User,
    text: str,
    kind: str,
    chosen: str | None,
    build: Callable[[str], ModelT],
) -> ModelT:
    """Save a new row with a friendly ID: the user's choice, or a generated one — the plain
    words first, a short random hash only on a collision. Each attempt runs in a savepoint
    so a collision never spoils the caller's transaction."""

    def taken(candidate: str) -> bool:
        if kind in SHARED_KINDS:
            return friendly_id_taken(user_id=user.pk, friendly_id=candidate)
        return model._default_manager.filter(user=user, friendly_id=candidate).exists()

    if chosen:
        friendly_id = clean_friendly_id(chosen, kind=kind)
        if taken(friendly_id):
            raise ValidationError({"friendly_id": f"'{friendly_id}' is already taken."})
        candidates: Iterable[str] = [friendly_id]
    else:
        candidates = (
            candidate
            for candidate in friendly_id_candidates(text, kind=kind, attempts=FRIENDLY_ID_ATTEMPTS)
            if not taken(candidate)
        )
    for candidate in candidates:
        try:
            with transaction.atomic():
                row = build(candidate)
                row.save(force_insert=True)
                return row
        except IntegrityError as error:
            if "friendly_id" not in str(error):
                raise
            if chosen:
                raise ValidationError(
                    {"friendly_id": f"'{candidate}' is already taken."}
                ) from error
    raise ValidationError({"friendly_id": "Could not generate a free friendly ID; choose one."})


def _content_changed(claim_ids: Sequence[Any]) -> None:
    # Sent inside the caller's transaction: the embedding owed is written with the claim
    # (the ledger of work, apps/core/work.py), so a crash after the commit loses nothing.
    claims_content_changed.send(sender=Claim, claim_ids=list(claim_ids))


@transaction.atomic
def claim_create(
    *,
    user: User,
    statement: str,
    claim_types: Sequence[str] | None = None,
    domains: Sequence[str] | None = None,
    status: str = ClaimStatus.ACTIVE,
    possible_questions: Sequence[str] | None = None,
    pinned: bool = False,
    confidence: float | None = None,
    valid_from: datetime | None = None,
    valid_until: datetime | None = None,
    origin: str = ClaimOrigin.MANUAL,
    origin_token_name: str = "",
    source_message: Message | None = None,
    metadata: dict[str, Any] | None = None,
    friendly_id: str | None = None,
    supersedes: Claim | None = None,
) -> Claim:
    if status == ClaimStatus.SUPERSEDED:
        raise ValidationError({"status": "A claim becomes superseded only by a new version."})
    row = _claim_row(
        user=user,
        statement=statement,
        claim_types=claim_types,
        domains=domains,
        status=status,
        possible_questions=possible_questions,
        pinned=pinned,
        confidence=confidence,
        valid_from=valid_from,
        valid_until=valid_until,
        origin=origin,
        origin_token_name=origin_token_name,
        source_message=source_message,
        metadata=metadata,
        supersedes=supersedes,
    )
    row.number = claim_number_allocate(user_id=user.pk)

    def build(fid: str) -> Claim:
        row.friendly_id = fid
        return row

    claim = create_with_friendly_id(
        model=Claim, user=user, text=row.statement, kind="claim", chosen=friendly_id, build=build
    )
    _content_changed([claim.id])
    return claim


def _claim_row(
    *,
    user: User,
    statement: str,
    claim_types: Sequence[str] | None,
    domains: Sequence[str] | None,
    status: str,
    possible_questions: Sequence[str] | None,
    pinned: bool,
    confidence: float | None,
    valid_from: datetime | None,
    valid_until: datetime | None,
    origin: str,
    origin_token_name: str,
    source_message: Message | None,
    metadata: dict[str, Any] | None,
    supersedes: Claim | None,
) -> Claim:
    """An unsaved claim with every field cleaned; number and friendly ID are the caller's."""
    statement = clean_statement(statement)
    fields = {
        "claim_types": clean_claim_types(claim_types),
        "domains": clean_domains(domains),
        "status": clean_status(status),
        "possible_questions": clean_questions(possible_questions),
        "confidence": clean_confidence(confidence),
    }
    if valid_from and valid_until and valid_until < valid_from:
        raise ValidationError({"valid_until": "A claim cannot stop being valid before it starts."})
    if origin not in ClaimOrigin.values:
        raise ValidationError({"origin": f"Unknown origin '{origin}'."})
    return Claim(
        user=user,
        statement=statement,
        pinned=pinned,
        valid_from=valid_from,
        valid_until=valid_until,
        origin=origin,
        origin_token_name=origin_token_name[:100],
        source_message=source_message,
        metadata=metadata or {},
        supersedes=supersedes,
        **fields,
    )


EMBEDDED_FIELDS = frozenset({"statement", "possible_questions"})


class Unset(Enum):
    """A parameter left out of ``claim_update``, which leaves that field alone (None is a
    value some fields take)."""

    UNSET = auto()


UNSET = Unset.UNSET


@transaction.atomic
def claim_update(
    *,
    claim: Claim,
    statement: str | Unset = UNSET,
    friendly_id: str | Unset = UNSET,
    claim_types: Sequence[str] | Unset | None = UNSET,
    domains: Sequence[str] | Unset | None = UNSET,
    status: str | Unset = UNSET,
    possible_questions: Sequence[str] | Unset | None = UNSET,
    pinned: bool | Unset = UNSET,
    confidence: float | Unset | None = UNSET,
    valid_from: datetime | Unset | None = UNSET,
    valid_until: datetime | Unset | None = UNSET,
    metadata: dict[str, Any] | Unset | None = UNSET,
) -> Claim:
    """Change the fields given (CLAIM_EDITABLE_FIELDS), each cleaned; the others stay."""
    cleaned: dict[str, Any] = {}
    if not isinstance(statement, Unset):
        cleaned["statement"] = clean_statement(statement)
    if not isinstance(friendly_id, Unset):
        cleaned["friendly_id"] = clean_friendly_id(friendly_id, kind="claim")
    if not isinstance(claim_types, Unset):
        cleaned["claim_types"] = clean_claim_types(claim_types)
    if not isinstance(domains, Unset):
        cleaned["domains"] = clean_domains(domains)
    if not isinstance(status, Unset):
        cleaned["status"] = clean_status(status)
    if not isinstance(possible_questions, Unset):
        cleaned["possible_questions"] = clean_questions(possible_questions)
    if not isinstance(pinned, Unset):
        cleaned["pinned"] = bool(pinned)
    if not isinstance(confidence, Unset):
        cleaned["confidence"] = clean_confidence(confidence)
    if not isinstance(valid_from, Unset):
        cleaned["valid_from"] = valid_from
    if not isinstance(valid_until, Unset):
        cleaned["valid_until"] = valid_until
    if not isinstance(metadata, Unset):
        cleaned["metadata"] = metadata or {}
    new_status = cleaned.get("status", claim.status)
    if (new_status == ClaimStatus.SUPERSEDED) != (claim.status == ClaimStatus.SUPERSEDED):
        # Superseded versions share the memory's number; only claim_supersede moves a
        # claim into that state, and an old version never becomes current again.
        raise ValidationError(
            {
                "status": f"#{claim.number} is an earlier version; edit the current one."
                if claim.status == ClaimStatus.SUPERSEDED
                else "A claim becomes superseded only by saving a new version."
            }
        )
    old_fid = claim.friendly_id
    new_fid: str = cleaned.get("friendly_id") or old_fid
    renamed = new_fid != old_fid
    if renamed and claim.status == ClaimStatus.SUPERSEDED:
        raise ValidationError(
            {"friendly_id": f"#{claim.number} is an earlier version; rename the current one."}
        )
    if renamed and friendly_id_taken(user_id=claim.user_id, friendly_id=new_fid, owner=claim):
        raise ValidationError({"friendly_id": f"'{new_fid}' is already taken."})
    for name, value in cleaned.items():
        setattr(claim, name, value)
    if claim.valid_from and claim.valid_until and claim.valid_until < claim.valid_from:
        raise ValidationError({"valid_until": "A claim cannot stop being valid before it starts."})
    claim.save()
    if renamed:
        claim_alias_record(claim=claim, old_friendly_id=old_fid)
    if EMBEDDED_FIELDS & set(cleaned):
        _content_changed([claim.id])
    return claim


def claim_retract(*, claim: Claim) -> Claim:
    """The claim leaves every answer — and so does the chat turn it was taken from
    (``apps.indexing.search``); ``claim_restore`` undoes it, pin and all."""
    metadata = {
        **claim.metadata,
        "retracted_at": timezone.now().isoformat(),
        "pinned_before_retraction": claim.pinned,
    }
    return claim_update(claim=claim, status=ClaimStatus.RETRACTED, pinned=False, metadata=metadata)


def claim_pin(*, claim: Claim, pinned: bool) -> Claim:
    """Pin one claim globally (every answer uses it) or unpin it."""
    return claim_update(claim=claim, pinned=pinned)


def claim_set_pinned(*, claims: Iterable[Claim], pinned: bool) -> int:
    ids = [claim.pk for claim in claims]
    return Claim.objects.filter(pk__in=ids).update(pinned=pinned)


@transaction.atomic
def claim_supersede(
    *,
    claim: Claim,
    statement: str,
    claim_types: Sequence[str] | None = None,
    domains: Sequence[str] | None = None,
    status: str = ClaimStatus.ACTIVE,
    possible_questions: Sequence[str] | None = None,
    pinned: bool | None = None,
    confidence: float | None = None,
    valid_from: datetime | None = None,
    valid_until: datetime | None = None,
    origin: str | None = None,
    metadata: dict[str, Any] | None = None,
    friendly_id: str | None = None,
) -> Claim:
    """A new version replaces ``claim``: it keeps the memory's number and friendly ID (or
    takes ``friendly_id``, the old one staying resolvable), and ``claim`` stays linked as a
    superseded version holding the old text. Types, domains, questions, pin and origin not
    given are the old claim's. Returns the new, current version."""
    old = Claim.objects.select_for_update().get(pk=claim.pk)
    if old.status == ClaimStatus.SUPERSEDED:
        raise ValidationError({"status": f"#{old.number} was already superseded."})
    if status == ClaimStatus.SUPERSEDED:
        raise ValidationError({"status": "The new version cannot itself be superseded."})
    new = _claim_row(
        user=old.user,
        statement=statement,
        supersedes=old,
        claim_types=old.claim_types if claim_types is None else claim_types,
        domains=old.domains if domains is None else domains,
        status=status,
        possible_questions=old.possible_questions
        if possible_questions is None
        else possible_questions,
        pinned=old.pinned if pinned is None else pinned,
        confidence=confidence,
        valid_from=valid_from,
        valid_until=valid_until,
        origin=old.origin if origin is None else origin,
        origin_token_name=old.origin_token_name if origin is None else "",
        source_message=None,
        metadata=metadata,
    )
    new.number = old.number
    new.friendly_id = old.friendly_id
    if friendly_id is not None and friendly_id != old.friendly_id:
        new.friendly_id = clean_friendly_id(friendly_id, kind="claim")
        if friendly_id_taken(user_id=old.user_id, friendly_id=new.friendly_id, owner=old):
            raise ValidationError({"friendly_id": f"'{new.friendly_id}' is already taken."})
    # The old version leaves the unique (user, number) and (user, friendly ID) of current
    # claims before the new one takes them.
    Claim.objects.filter(pk=old.pk).update(status=ClaimStatus.SUPERSEDED, pinned=False)
    new.save(force_insert=True)
    new.tags.set(old.tags.all())
    new.entities.set(old.entities.all())
    claim_superseded.send(sender=Claim, old=old, new=new)
    _content_changed([new.id])
    claim.refresh_from_db()
    return new


@transaction.atomic
def claim_review(*, claim: Claim, approve: bool, statement: str | None = None) -> Claim | None:
    """A pending claim becomes active, or is deleted (dismissed); None when it was deleted.
    ``statement`` is the user's corrected wording when they edit before approving: one
    step, so a bad edit leaves the claim pending rather than approved as it was."""
    if claim.status != ClaimStatus.PENDING:
        raise ValidationError({"status": f"#{claim.number} is not waiting for review."})
    if not approve:
        claim.delete()
        return None
    if statement is not None:
        return claim_update(claim=claim, statement=statement, status=ClaimStatus.ACTIVE)
    return claim_update(claim=claim, status=ClaimStatus.ACTIVE)


def claim_reinforce(*, claim: Claim, confidence_step: float = 0.05) -> Claim:
    """Seen again: count it and raise the confidence a little instead of duplicating it."""
    Claim.objects.filter(pk=claim.pk).update(
        reinforced_count=F("reinforced_count") + 1,
        confidence=models.functions.Least(F("confidence") + confidence_step, 1.0),
    )
    claim.refresh_from_db()
    return claim


def claim_delete(*, claim: Claim) -> None:
    claim.delete()
