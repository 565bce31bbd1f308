"""Edits made on the Knowledge page that take more than one app's service: a claim with
its contexts, a new version that keeps the old one's place in its contexts. Each is one
transaction, so a rejected value never leaves half a change behind."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone

from apps.claims.models import Claim, ClaimOrigin, Tag
from apps.claims.services import claim_create, claim_tags_set, claim_update
from apps.contexts.models import Context
from apps.contexts.services import claim_contexts_set
from apps.memory.actions import memory_edit

if TYPE_CHECKING:
    from apps.accounts.models import User


@transaction.atomic
def knowledge_claim_add(
    *,
    user: User,
    statement: str,
    claim_types: Sequence[str],
    domains: Sequence[str],
    possible_questions: Sequence[str],
    pinned: bool,
    contexts: Sequence[Context],
) -> Claim:
    claim = claim_create(
        user=user,
        statement=statement,
        claim_types=claim_types,
        domains=domains,
        possible_questions=possible_questions,
        pinned=pinned,
        origin=ClaimOrigin.MANUAL,
    )
    return claim_contexts_set(claim=claim, contexts=contexts)


@transaction.atomic
def knowledge_claim_edit(
    *,
    claim: Claim,
    statement: str,
    claim_types: Sequence[str],
    domains: Sequence[str],
    possible_questions: Sequence[str],
    pinned: bool,
    contexts: Sequence[Context],
    as_new_version: bool,
) -> Claim:
    """Correct ``claim`` in place (a typo, its labels), or (``as_new_version``) edit it:
    a new claim supersedes it and the old one stays, marked superseded, in its history."""
    if as_new_version:  # the memory action "edit", as every other door does it
        new = memory_edit(
            claim=claim,
            statement=statement,
            claim_types=claim_types,
            domains=domains,
            possible_questions=possible_questions,
            pinned=pinned,
        ).claim
        return claim_contexts_set(claim=new, contexts=contexts)
    claim_update(
        claim=claim,
        statement=statement,
        claim_types=claim_types,
        domains=domains,
        possible_questions=possible_questions,
        pinned=pinned,
    )
    return claim_contexts_set(claim=claim, contexts=contexts)


@transaction.atomic
def knowledge_claim_details_set(
    *,
    claim: Claim,
    confidence: float,
    valid_from: date | None,
    valid_until: date | None,
    tags: Sequence[Tag],
    new_tag_names: Sequence[str],
) -> Claim:
    """Tags, validity dates and confidence from the claim's page, in one transaction. A
    date is a whole day in the site's time zone: "true until 30 Nov" holds through it."""
    claim_update(
        claim=claim,
        confidence=confidence,
        valid_from=_day_start(valid_from) if valid_from else None,
        valid_until=(
            _day_start(valid_until + timedelta(days=1)) - timedelta(microseconds=1)
            if valid_until
            else None
        ),
    )
    return claim_tags_set(claim=claim, tags=tags, new_tag_names=new_tag_names)


def _day_start(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))
