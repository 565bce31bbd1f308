"""Editing on the Knowledge page without the admin (issue 18): claims added, corrected,
given a new version, retracted, pinned, moved between contexts and reviewed; contexts
created, renamed, nested and emptied. Plain POSTs, as a browser without JavaScript sends."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from apps.accounts.models import User
from apps.claims.models import Claim, ClaimStatus
from apps.contexts.models import Context
from tests.knowledge_factories import ClaimFactory, ContextFactory


def test_adding_a_claim_saves_it_with_its_contexts(page_client: Client, user: User) -> None:
    health = ContextFactory(user=user, name="Health")

    response = page_client.post(
        reverse("knowledge:claim-add"),
        {
            "statement": "I am allergic to peanuts",
            "claim_types": ["fact"],
            "domains": ["health"],
            "possible_questions": "What am I allergic to?\n\n",
            "contexts": [str(health.pk)],
            "pinned": "on",
        },
    )

    claim = Claim.objects.get(user=user, statement="I am allergic to peanuts")
    assert response.status_code == 302
    assert response["Location"] == reverse("knowledge:claim", args=[claim.pk])
    assert claim.pinned
    assert claim.domains == ["health"]
    assert claim.possible_questions == ["What am I allergic to?"]
    assert list(claim.contexts.all()) == [health]
    page = page_client.get(response["Location"]).text
    assert f"Saved #{claim.number}" in page


def test_a_blank_statement_is_a_form_error_and_saves_nothing(
    page_client: Client, user: User
) -> None:
    response = page_client.post(reverse("knowledge:claim-add"), {"statement": "   "})

    assert response.status_code == 400
    assert response.context["form"].errors["statement"]
    assert not Claim.objects.filter(user=user).exists()


def test_another_users_context_cannot_be_chosen(
    page_client: Client, user: User, other_user: User
) -> None:
    theirs = ContextFactory(user=other_user, name="Theirs")

    response = page_client.post(
        reverse("knowledge:claim-add"), {"statement": "Mine", "contexts": [str(theirs.pk)]}
    )

    assert response.status_code == 400
    assert "contexts" in response.context["form"].errors
    assert not Claim.objects.filter(user=user).exists()


def test_editing_in_place_corrects_the_same_claim(page_client: Client, user: User) -> None:
    claim = ClaimFactory(user=user, statement="I live in Pariss")

    response = page_client.post(
        reverse("knowledge:claim-edit", args=[claim.pk]),
        {"statement": "I live in Paris", "claim_types": ["fact"], "save": "in_place"},
    )

    claim.refresh_from_db()
    assert response.status_code == 302
    assert claim.statement == "I live in Paris"
    assert claim.status == ClaimStatus.ACTIVE
    assert Claim.objects.filter(user=user).count() == 1


def test_a_new_version_keeps_the_old_one_as_history(page_client: Client, user: User) -> None:
    home = ContextFactory(user=user, name="Home")
    claim = ClaimFactory(user=user, statement="I live in Paris")
    home.claims.add(claim)

    response = page_client.post(
        reverse("knowledge:claim-edit", args=[claim.pk]),
        {
            "statement": "I live in Lyon",
            "claim_types": ["fact"],
            "contexts": [str(home.pk)],
            "save": "new_version",
        },
    )

    new = Claim.objects.get(user=user, statement="I live in Lyon")
    claim.refresh_from_db()
    assert response["Location"] == reverse("knowledge:claim", args=[new.pk])
    assert claim.status == ClaimStatus.SUPERSEDED
    assert new.supersedes == claim
    assert list(new.contexts.all()) == [home]
    page = page_client.get(response["Location"]).text
    assert "History" in page
    assert "I live in Paris" in page
    assert reverse("knowledge:claim", args=[claim.pk]) in page


def test_retract_and_pin(page_client: Client, user: User) -> None:
    claim = ClaimFactory(user=user, statement="I drink coffee")

    page_client.post(reverse("knowledge:claim-pin", args=[claim.pk]), {"pinned": "on"})
    claim.refresh_from_db()
    assert claim.pinned

    page_client.post(reverse("knowledge:claim-pin", args=[claim.pk]), {})
    claim.refresh_from_db()
    assert not claim.pinned

    response = page_client.post(reverse("knowledge:claim-retract", args=[claim.pk]))
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.RETRACTED
    assert "Retracted" in page_client.get(response["Location"]).text


def test_moving_a_claim_between_contexts(page_client: Client, user: User) -> None:
    work, home = ContextFactory(user=user, name="Work"), ContextFactory(user=user, name="Home")
    claim = ClaimFactory(user=user)
    work.claims.add(claim)

    page_client.post(reverse("knowledge:claim-contexts", args=[claim.pk]), {"contexts": [home.pk]})

    assert list(claim.contexts.all()) == [home]


@pytest.mark.parametrize(
    "name", ["claim-edit", "claim-retract", "claim-pin", "claim-contexts", "review"]
)
def test_another_users_claim_answers_404(page_client: Client, other_user: User, name: str) -> None:
    theirs = ClaimFactory(user=other_user, statement="Bob's secret", status=ClaimStatus.PENDING)

    response = page_client.post(
        reverse(f"knowledge:{name}", args=[theirs.pk]), {"decision": "reject", "pinned": "on"}
    )

    assert response.status_code == 404
    theirs.refresh_from_db()
    assert theirs.status == ClaimStatus.PENDING
    assert not theirs.pinned


def test_edit_then_approve_a_pending_claim(page_client: Client, user: User) -> None:
    waiting = ClaimFactory(user=user, statement="User likes tee", status=ClaimStatus.PENDING)

    page_client.post(
        reverse("knowledge:review", args=[waiting.pk]),
        {"decision": "approve", "statement": "I like tea"},
    )

    waiting.refresh_from_db()
    assert waiting.status == ClaimStatus.ACTIVE
    assert waiting.statement == "I like tea"


def test_an_empty_edit_leaves_the_claim_pending(page_client: Client, user: User) -> None:
    waiting = ClaimFactory(user=user, statement="User likes tee", status=ClaimStatus.PENDING)

    response = page_client.post(
        reverse("knowledge:review", args=[waiting.pk]),
        {"decision": "approve", "statement": "  "},
        headers={"Accept": "application/json"},
    )

    waiting.refresh_from_db()
    assert response.status_code == 400
    assert waiting.status == ClaimStatus.PENDING
    assert waiting.statement == "User likes tee"


def test_dismissing_deletes_a_pending_claim(page_client: Client, user: User) -> None:
    waiting = ClaimFactory(user=user, status=ClaimStatus.PENDING)

    page_client.post(reverse("knowledge:review", args=[waiting.pk]), {"decision": "reject"})

    assert not Claim.objects.filter(pk=waiting.pk).exists()


def test_contexts_are_created_nested_renamed_and_emptied(page_client: Client, user: User) -> None:
    page_client.post(reverse("knowledge:context-add"), {"name": "Health", "parent": ""})
    health = Context.objects.get(user=user, name="Health")
    page_client.post(reverse("knowledge:context-add"), {"name": "Sleep", "parent": str(health.pk)})
    sleep = Context.objects.get(user=user, name="Sleep")
    assert sleep.parent == health

    claim = ClaimFactory(user=user)
    sleep.claims.add(claim)
    page_client.post(
        reverse("knowledge:context-edit", args=[sleep.pk]),
        {"name": "Sleep & rest", "description": "Nights", "parent": ""},
    )
    sleep.refresh_from_db()
    assert (sleep.name, sleep.description, sleep.parent) == ("Sleep & rest", "Nights", None)

    page_client.post(reverse("knowledge:context-empty", args=[sleep.pk]))
    assert not sleep.claims.exists()
    assert Claim.objects.filter(pk=claim.pk).exists()

    page_client.post(reverse("knowledge:context-delete", args=[health.pk]))
    assert not Context.objects.filter(pk=health.pk).exists()


def test_a_context_cannot_move_under_its_own_child(page_client: Client, user: User) -> None:
    root = ContextFactory(user=user, name="Root")
    child = ContextFactory(user=user, name="Child", parent=root)

    response = page_client.post(
        reverse("knowledge:context-edit", args=[root.pk]),
        {"name": "Renamed", "parent": str(child.pk)},
    )

    root.refresh_from_db()
    assert root.parent is None
    assert root.name == "Root"
    assert response.status_code == 400
    assert "cannot be moved under itself" in str(response.context["edit_form"].errors["parent"])


def test_a_context_without_a_name_is_a_form_error(page_client: Client, user: User) -> None:
    response = page_client.post(reverse("knowledge:context-add"), {"name": ""})

    assert response.status_code == 400
    assert response.context["new_form"].errors["name"]


def test_another_users_context_answers_404(page_client: Client, other_user: User) -> None:
    theirs = ContextFactory(user=other_user, name="Theirs")

    for name in ("context-edit", "context-empty", "context-delete"):
        response = page_client.post(reverse(f"knowledge:{name}", args=[theirs.pk]), {"name": "x"})
        assert response.status_code == 404
    assert Context.objects.filter(pk=theirs.pk, name="Theirs").exists()


def test_add_a_claim_here_preselects_the_context(page_client: Client, user: User) -> None:
    health = ContextFactory(user=user, name="Health")

    response = page_client.get(reverse("knowledge:claim-add"), {"context": str(health.pk)})
    stray = page_client.get(reverse("knowledge:claim-add"), {"context": "not-a-context"})

    assert response.context["form"]["contexts"].value() == [str(health.pk)]
    assert stray.status_code == 200


def test_moving_into_another_users_context_is_a_400(
    page_client: Client, user: User, other_user: User
) -> None:
    mine = ContextFactory(user=user, name="Mine")
    claim = ClaimFactory(user=user)
    mine.claims.add(claim)
    theirs = ContextFactory(user=other_user, name="Theirs")

    response = page_client.post(
        reverse("knowledge:claim-contexts", args=[claim.pk]), {"contexts": [theirs.pk]}
    )

    assert response.status_code == 400
    assert "contexts:" in response.text
    assert list(claim.contexts.all()) == [mine]


def test_a_blank_rename_is_shown_on_the_form(page_client: Client, user: User) -> None:
    context = ContextFactory(user=user, name="Health")

    response = page_client.post(reverse("knowledge:context-edit", args=[context.pk]), {"name": " "})

    context.refresh_from_db()
    assert response.status_code == 400
    assert response.context["edit_form"].errors["name"]
    assert context.name == "Health"
    assert "<details open>" in response.text
