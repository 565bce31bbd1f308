"""Edits made on the Knowledge page that take more than one app's service: a claim with
its contexts, a new version that keeps the old one's place in its contexts. Each is one
transaction, so a rejected value never leaves half a change behind."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from django.db import transaction

from apps.claims.models import Claim, ClaimOrigin
from apps.claims.services import claim_create, claim_update
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
