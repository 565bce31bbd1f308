"""The Knowledge page's Lists tab (issue 17): goals, tasks and the shopping list, with the
same actions as the chat (tick off, restore), the user's own only."""

from __future__ import annotations

from django.test import Client
from django.urls import reverse

from apps.accounts.models import User
from apps.claims.models import Claim, ClaimStatus
from apps.claims.services import claim_create

LISTS = reverse("knowledge:lists")


def action_url(claim: Claim) -> str:
    return reverse("knowledge:list_item", args=[claim.pk])


def test_each_list_shows_its_open_items_and_ticking_off_moves_one_to_done(
    page_client: Client, user: User
) -> None:
    goal = claim_create(user=user, statement="Run a marathon", claim_types=["goal"])
    milk = claim_create(user=user, statement="Oat milk", claim_types=["shopping_item"])
    claim_create(user=user, statement="Call the plumber", claim_types=["task"])
    claim_create(user=user, statement="I like tea", claim_types=["preference"])

    page = page_client.get(LISTS).content.decode()
    for heading in ("Goals", "Tasks", "Shopping list"):
        assert f">{heading} <" in page
    assert "Run a marathon" in page
    assert "Call the plumber" in page
    assert "I like tea" not in page
    assert f'aria-label="Tick off #{milk.number}: Oat milk"' in page

    response = page_client.post(action_url(milk), {"action": "done"}, follow=True)

    milk.refresh_from_db()
    assert milk.status == ClaimStatus.DONE
    page = response.content.decode()
    assert f"Done: #{milk.number}" in page
    assert "<del>Oat milk</del>" in page
    assert f'aria-label="Restore #{milk.number}: Oat milk"' in page
    goal.refresh_from_db()
    assert goal.status == ClaimStatus.ACTIVE


def test_a_done_item_is_restored_and_a_second_restore_says_why_not(
    page_client: Client, user: User
) -> None:
    milk = claim_create(user=user, statement="Oat milk", claim_types=["shopping_item"])
    page_client.post(action_url(milk), {"action": "done"})

    page_client.post(action_url(milk), {"action": "restore"})
    milk.refresh_from_db()
    assert milk.status == ClaimStatus.ACTIVE

    again = page_client.post(
        action_url(milk), {"action": "restore"}, headers={"Accept": "application/json"}
    )
    assert again.status_code == 400
    assert "not done" in again.json()["message"]


def test_a_bad_action_is_a_400_naming_the_field(page_client: Client, user: User) -> None:
    milk = claim_create(user=user, statement="Oat milk", claim_types=["shopping_item"])

    response = page_client.post(action_url(milk), {"action": "delete"})
    as_json = page_client.post(
        action_url(milk), {"action": "delete"}, headers={"Accept": "application/json"}
    )

    assert response.status_code == 400
    assert "action: Select a valid choice." in response.content.decode()
    assert as_json.status_code == 400
    assert "action" in as_json.json()["errors"]
    milk.refresh_from_db()
    assert milk.status == ClaimStatus.ACTIVE


def test_a_bad_action_is_not_echoed_as_html(page_client: Client, user: User) -> None:
    """Issue 29: the unknown action came back unescaped in a text/html 400."""
    milk = claim_create(user=user, statement="Oat milk", claim_types=["shopping_item"])
    hostile = '<img src=x onerror="alert(1)"><script>alert(2)</script>'

    response = page_client.post(action_url(milk), {"action": hostile})

    page = response.content.decode()
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/html")
    assert "<img src=x" not in page
    assert "<script>alert(2)" not in page
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in page


def test_another_users_item_answers_like_a_missing_one(
    page_client: Client, other_user: User
) -> None:
    theirs = claim_create(user=other_user, statement="Caviar", claim_types=["shopping_item"])

    response = page_client.post(action_url(theirs), {"action": "done"})
    missing = page_client.post(
        reverse("knowledge:list_item", args=["00000000-0000-0000-0000-000000000000"]),
        {"action": "done"},
    )

    assert response.status_code == missing.status_code == 404
    theirs.refresh_from_db()
    assert theirs.status == ClaimStatus.ACTIVE
    assert "Caviar" not in page_client.get(LISTS).content.decode()


def test_the_lists_page_requires_login(client: Client) -> None:
    response = client.get(LISTS)
    assert response.status_code == 302
