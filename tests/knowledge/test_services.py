"""The services behind editing on the Knowledge page (issue 18): each is one transaction,
so a refused value leaves nothing half-written; the admin and the API use the same ones."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from apps.accounts.models import User
from apps.claims.models import Claim, ClaimStatus
from apps.claims.services import claim_review
from apps.contexts.models import ContextClaim
from apps.contexts.services import claim_contexts_set, context_empty
from apps.knowledge.services import knowledge_claim_add, knowledge_claim_edit
from tests.knowledge_factories import ClaimFactory, ContextFactory

pytestmark = pytest.mark.django_db


def edit(claim: Claim, **changes: object) -> Claim:
    values: dict[str, object] = {
        "statement": claim.statement,
        "claim_types": claim.claim_types,
        "domains": claim.domains,
        "possible_questions": claim.possible_questions,
        "pinned": claim.pinned,
        "contexts": list(claim.contexts.all()),
        "as_new_version": False,
        **changes,
    }
    return knowledge_claim_edit(claim=claim, **values)  # type: ignore[arg-type]


def test_a_claim_is_added_with_its_contexts_or_not_at_all(user: User) -> None:
    home = ContextFactory(user=user, name="Home")
    added = knowledge_claim_add(
        user=user,
        statement="I live in Lyon",
        claim_types=["fact"],
        domains=[],
        possible_questions=[],
        pinned=False,
        contexts=[home],
    )
    assert list(added.contexts.all()) == [home]

    with pytest.raises(ValidationError):
        knowledge_claim_add(
            user=user,
            statement="I live in Nice",
            claim_types=["no such type"],
            domains=[],
            possible_questions=[],
            pinned=False,
            contexts=[home],
        )
    assert Claim.objects.filter(user=user).count() == 1


def test_a_new_version_supersedes_and_keeps_its_place(user: User) -> None:
    home = ContextFactory(user=user, name="Home")
    old = ClaimFactory(user=user, statement="I live in Lyon")
    home.claims.add(old)

    new = edit(old, statement="I live in Nice", as_new_version=True)

    old.refresh_from_db()
    assert (old.status, new.supersedes_id) == (ClaimStatus.SUPERSEDED, old.pk)
    assert list(new.contexts.all()) == [home]


def test_a_failed_edit_changes_nothing(user: User) -> None:
    home, work = ContextFactory(user=user, name="Home"), ContextFactory(user=user, name="Work")
    claim = ClaimFactory(user=user, statement="I live in Lyon")
    home.claims.add(claim)

    with pytest.raises(ValidationError):
        edit(claim, statement="  ", contexts=[work])

    claim.refresh_from_db()
    assert claim.statement == "I live in Lyon"
    assert list(claim.contexts.all()) == [home]


def test_moving_refuses_another_users_context(user: User, other_user: User) -> None:
    claim = ClaimFactory(user=user)
    mine = ContextFactory(user=user)
    mine.claims.add(claim)

    with pytest.raises(ValidationError):
        claim_contexts_set(claim=claim, contexts=[ContextFactory(user=other_user)])

    assert list(claim.contexts.all()) == [mine]


def test_emptying_keeps_the_claims_and_the_subcontexts(user: User) -> None:
    root = ContextFactory(user=user)
    child = ContextFactory(user=user, parent=root)
    first, second = ClaimFactory(user=user), ClaimFactory(user=user)
    root.claims.add(first, second)
    child.claims.add(first)

    assert context_empty(context=root) == 2

    assert not root.claims.exists()
    assert list(child.claims.all()) == [first]
    assert Claim.objects.filter(user=user).count() == 2
    assert ContextClaim.objects.count() == 1


def test_review_keeps_the_corrected_wording_or_stays_pending(user: User) -> None:
    waiting = ClaimFactory(user=user, statement="User likes tee", status=ClaimStatus.PENDING)

    with pytest.raises(ValidationError):
        claim_review(claim=waiting, approve=True, statement="")
    waiting.refresh_from_db()
    assert waiting.status == ClaimStatus.PENDING

    approved = claim_review(claim=waiting, approve=True, statement="I like tea")
    assert approved is not None
    assert (approved.statement, approved.status) == ("I like tea", ClaimStatus.ACTIVE)
