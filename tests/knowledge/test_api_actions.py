"""``/api/v1/claims/{key}/…`` actions: supersede, retract, pin, unpin, review, done, restore."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.claims.models import Claim
from apps.contexts.models import ContextClaim
from tests.knowledge_factories import ClaimFactory, ContextFactory, TagFactory

pytestmark = pytest.mark.django_db

URL = "/api/v1/claims/"


def post(client: APIClient, url: str, data: dict[str, Any] | None = None) -> Any:
    return client.post(url, data or {}, format="json")


def test_supersede_creates_the_new_claim_and_links_both(
    token_client: APIClient, user: User
) -> None:
    old = ClaimFactory(user=user, statement="I work at Acme", domains=["work"])
    context = ContextFactory(user=user, claims=[old])
    tag = TagFactory(user=user, claims=[old])

    response = post(
        token_client,
        f"{URL}{old.number}/supersede/",
        {"statement": "I work at Globex", "confidence": 0.9},
    )

    assert response.status_code == 201
    new = response.json()
    # The new version keeps the memory's number (issue 30).
    assert (new["number"], new["statement"], new["origin"]) == (1, "I work at Globex", "api")
    assert new["supersedes"] == {"id": str(old.id), "number": 1}
    assert (new["domains"], new["confidence"]) == (["work"], 0.9)
    assert new["contexts"] == [str(context.id)]
    assert new["tags"] == [str(tag.id)]
    assert token_client.get(f"{URL}1/").json()["id"] == new["id"]
    old_body = token_client.get(f"{URL}{old.id}/").json()
    assert old_body["status"] == "superseded"
    assert old_body["superseded_by"] == {"id": new["id"], "number": 1}
    assert old_body["contexts"] == [str(context.id)]  # the old claim keeps its history


@pytest.mark.parametrize("data", [{"statement": ""}, {"statement": "ok", "domains": ["x"]}])
def test_bad_supersede_writes_nothing(
    token_client: APIClient, user: User, data: dict[str, Any]
) -> None:
    old = ClaimFactory(user=user, statement="I work at Acme")
    ContextFactory(user=user, claims=[old])

    response = post(token_client, f"{URL}{old.number}/supersede/", data)

    assert response.status_code == 400
    old.refresh_from_db()
    assert old.status == "active"
    assert Claim.objects.count() == 1
    assert ContextClaim.objects.count() == 1


def test_superseding_twice_is_refused(token_client: APIClient, user: User) -> None:
    old = ClaimFactory(user=user)
    post(token_client, f"{URL}{old.number}/supersede/", {"statement": "Second"})

    # The number now names the new version; the old one, by its id, is history.
    response = post(token_client, f"{URL}{old.id}/supersede/", {"statement": "Third"})

    assert response.status_code == 400
    assert "status" in response.json()
    assert Claim.objects.count() == 2


def test_retract_pin_unpin_delete(token_client: APIClient, user: User) -> None:
    claim = ClaimFactory(user=user)
    url = f"{URL}{claim.friendly_id}/"

    assert post(token_client, f"{url}pin/").json()["pinned"] is True
    assert post(token_client, f"{url}unpin/").json()["pinned"] is False
    post(token_client, f"{url}pin/")
    retracted = post(token_client, f"{url}retract/").json()
    assert (retracted["status"], retracted["pinned"]) == ("retracted", False)
    assert token_client.delete(url).status_code == 204
    assert not Claim.objects.exists()


def test_review_approves_or_deletes_a_pending_claim(token_client: APIClient, user: User) -> None:
    keep = ClaimFactory(user=user, status="pending")
    drop = ClaimFactory(user=user, status="pending")

    approved = post(token_client, f"{URL}{keep.number}/review/", {"approve": True})
    rejected = post(token_client, f"{URL}{drop.number}/review/", {"approve": False})
    again = post(token_client, f"{URL}{keep.number}/review/", {"approve": True})
    missing = post(token_client, f"{URL}{keep.number}/review/", {})

    assert (approved.status_code, approved.json()["status"]) == (200, "active")
    assert rejected.status_code == 204
    assert list(Claim.objects.values_list("number", flat=True)) == [keep.number]
    assert (again.status_code, missing.status_code) == (400, 400)
    assert "status" in again.json()
    assert "approve" in missing.json()


def test_review_can_correct_the_wording_while_approving(
    token_client: APIClient, user: User
) -> None:
    """Issue 18: edit then approve, as on the Knowledge page; a blank wording is a 400 on
    ``statement`` and the claim stays pending."""
    waiting = ClaimFactory(user=user, status="pending", statement="User likes tee")

    blank = post(
        token_client, f"{URL}{waiting.number}/review/", {"approve": True, "statement": " "}
    )
    waiting.refresh_from_db()
    assert blank.status_code == 400
    assert "statement" in blank.json()
    assert waiting.status == "pending"

    done = post(
        token_client, f"{URL}{waiting.number}/review/", {"approve": True, "statement": "I like tea"}
    )
    assert (done.status_code, done.json()["statement"], done.json()["status"]) == (
        200,
        "I like tea",
        "active",
    )


def test_an_item_is_done_and_restored_and_another_users_answers_404(
    token_client: APIClient, user: User, other_user: User
) -> None:
    item = ClaimFactory(user=user, statement="Oat milk", claim_types=["shopping_item"])
    theirs = ClaimFactory(user=other_user, statement="Caviar", claim_types=["shopping_item"])
    url = f"{URL}{item.number}/"

    done = post(token_client, f"{url}done/")
    again = post(token_client, f"{url}done/")
    restored = post(token_client, f"{url}restore/")
    restored_again = post(token_client, f"{url}restore/")

    assert (done.status_code, done.json()["status"]) == (200, "done")
    assert again.status_code == 400
    assert "already done" in again.json()["status"][0]
    assert (restored.status_code, restored.json()["status"]) == (200, "active")
    assert restored_again.status_code == 400
    assert "not done" in restored_again.json()["status"][0]
    assert post(token_client, f"{URL}{theirs.pk}/done/").status_code == 404
    assert post(token_client, f"{URL}999/done/").status_code == 404
    theirs.refresh_from_db()
    assert theirs.status == "active"
