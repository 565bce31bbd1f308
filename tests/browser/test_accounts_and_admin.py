from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from apps.claims.models import Claim
from apps.contexts.models import Context

pytestmark = pytest.mark.browser

PASSWORD = "a quiet pebble 42 river"


def sign_up(page: Page, server: str, email: str = "new@example.com") -> None:
    page.goto(f"{server}/accounts/signup/")
    page.locator("#id_email").fill(email)
    page.locator("#id_password1").fill(PASSWORD)
    page.locator("#id_password2").fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()


def test_sign_up_lands_on_the_chat_page(page: Page, server: str, shot: Any) -> None:
    page.goto(server)
    # A visitor's / is the front page (issue 18), whose Sign up leads to the form.
    page.get_by_role("banner").get_by_role("link", name="Sign up").click()
    expect(page).to_have_url(re.compile(r"/accounts/signup/$"))
    shot("signup")

    sign_up(page, server)

    expect(page.get_by_role("link", name="Chat", exact=True)).to_have_attribute(
        "aria-current", "page"
    )
    shot("signed-up")


def test_claims_and_a_context_tree_in_the_admin(page: Page, server: str, shot: Any) -> None:
    sign_up(page, server, "admin-user@example.com")
    page.goto(f"{server}/admin/claims/claim/add/")
    page.locator("#id_statement").fill("I prefer morning workouts")
    page.get_by_role("checkbox", name="Preference").check()
    page.get_by_role("button", name=re.compile("^Save$")).click()
    expect(page.locator(".messagelist")).to_contain_text("was added successfully")
    shot("claim-added")

    page.goto(f"{server}/admin/contexts/context/add/")
    page.locator("#id_name").fill("Health")
    page.get_by_role("button", name=re.compile("^Save$")).click()
    page.goto(f"{server}/admin/contexts/context/add/")
    page.locator("#id_name").fill("Running")
    page.locator("#id_parent").select_option(label="Health")
    page.get_by_role("button", name=re.compile("^Save$")).click()
    shot("context-tree")

    claim = Claim.objects.get(statement="I prefer morning workouts")
    assert claim.claim_types == ["preference"]
    assert Context.objects.get(name="Running").parent == Context.objects.get(name="Health")
