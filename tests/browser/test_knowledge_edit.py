"""Issue 18, editing memory without the admin: a new user builds contexts, adds a claim,
gives it a new version (the old one shown as history), pins it, moves it between
contexts, reviews pending claims (edit then approve, dismiss) and empties a context — all
on the Knowledge pages, at desktop size and at 390 px."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from apps.claims.models import Claim, ClaimStatus
from apps.claims.services import claim_create
from apps.contexts.models import Context
from tests.browser.helpers import log_in

pytestmark = pytest.mark.browser


def no_sideways_scroll(page: Page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


@pytest.mark.parametrize("width", [1366, 390])
def test_claims_and_contexts_are_edited_in_place(
    page: Page, server: str, shot: Any, width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900 if width > 400 else 844})
    user = log_in(page, server, email=f"editor{width}@example.com")

    # Contexts: created, nested under a parent chosen from the list, renamed.
    page.goto(f"{server}/knowledge/contexts/")
    page.get_by_label("Name").fill("Health")
    page.get_by_role("button", name="Create the context").click()
    expect(page.get_by_text("Created the context “Health”.")).to_be_visible()
    page.goto(f"{server}/knowledge/contexts/")
    page.get_by_label("Name").fill("Sleep")
    page.get_by_label("Inside").select_option(label="Health")
    page.get_by_role("button", name="Create the context").click()
    expect(page.get_by_role("navigation", name="Breadcrumb")).to_contain_text("Health › Sleep")
    page.get_by_text("Rename, describe or move it").click()
    page.get_by_label("Name").fill("Sleep and rest")
    page.get_by_role("button", name="Save the context").click()
    expect(page.get_by_text("Saved the context “Sleep and rest”.")).to_be_visible()
    shot(f"context-{width}")

    # A claim added here, in a context.
    page.goto(f"{server}/knowledge/")
    page.get_by_role("link", name="Add a claim").first.click()
    page.get_by_label("Statement").fill("I sleep seven hours a night")
    page.get_by_label("Fact").check()
    page.locator("#id_contexts").get_by_label("Health", exact=True).check()
    shot(f"add-claim-{width}")
    page.get_by_role("button", name="Save the claim").click()
    expect(page.get_by_text(re.compile(r"Saved #1 “I sleep seven hours"))).to_be_visible()
    no_sideways_scroll(page)
    shot(f"claim-{width}")

    # A new version keeps the number: the old wording stays, as history.
    page.get_by_role("link", name="Edit", exact=True).click()
    page.get_by_label("Statement").fill("I sleep eight hours a night")
    page.get_by_role("button", name="Save as a new version").click()
    expect(
        page.get_by_text(
            "Saved a new version of #1 “I sleep eight hours a night”; the earlier one is in "
            "its history."
        )
    ).to_be_visible()
    history = page.locator("ol.k-chain")
    expect(history).to_contain_text("#1 I sleep seven hours a night")
    expect(history).to_contain_text("earlier version")

    # Pinned, then moved from Health to Sleep and rest.
    page.get_by_role("button", name="Pin", exact=True).click()
    expect(page.get_by_text("Pinned #1")).to_be_visible()
    page.get_by_text(re.compile("Contexts: Health — change")).click()
    page.locator("#id_contexts").get_by_label("Health", exact=True).uncheck()
    page.locator("#id_contexts").get_by_label(re.compile("Sleep and rest")).check()
    page.get_by_role("button", name="Save contexts").click()
    expect(page.get_by_text(re.compile("is now in Sleep and rest"))).to_be_visible()
    shot(f"claim-moved-{width}")
    new = Claim.objects.exclude(status=ClaimStatus.SUPERSEDED).get(user=user, number=1)
    assert new.pinned
    assert [c.name for c in new.contexts.all()] == ["Sleep and rest"]

    # Review: edit the wording then approve; dismiss another.
    claim_create(user=user, statement="User drinks cofee", status=ClaimStatus.PENDING)
    claim_create(user=user, statement="User is a robot", status=ClaimStatus.PENDING)
    page.goto(f"{server}/knowledge/pending/")
    expect(page.locator(".mainnav [data-pending-count]")).to_have_text("2")
    item = page.locator("[data-review-item]").filter(has_text="User drinks cofee")
    item.get_by_text("Edit", exact=True).click()
    item.get_by_label("Wording to keep").fill("I drink coffee every morning")
    shot(f"review-edit-{width}")
    item.get_by_role("button", name="Save and approve").click()
    expect(
        page.get_by_text(re.compile("Approved #2 “I drink coffee every morning”"))
    ).to_be_visible()
    page.locator("[data-review-item]").filter(has_text="User is a robot").get_by_role(
        "button", name="Dismiss"
    ).click()
    expect(page.get_by_text("Nothing waiting for review")).to_be_visible()
    expect(page.locator(".mainnav [data-pending-count]")).to_be_hidden()
    assert Claim.objects.get(user=user, number=2).status == ClaimStatus.ACTIVE
    assert not Claim.objects.filter(user=user, number=3).exists()

    # Retract the claim; empty the context (the claim itself stays).
    page.goto(f"{server}/knowledge/claims/{new.pk}/")
    page.get_by_role("button", name="Retract").click()
    expect(page.get_by_text(re.compile("Retracted #1"))).to_be_visible()
    sleep = Context.objects.get(user=user, name="Sleep and rest")
    page.goto(f"{server}/knowledge/contexts/{sleep.pk}/")
    page.get_by_role("button", name=re.compile("Empty it")).click()
    expect(page.get_by_text(re.compile("Took 1 claim out of “Sleep and rest”"))).to_be_visible()
    no_sideways_scroll(page)
    shot(f"context-emptied-{width}")
    assert not sleep.claims.exists()
    assert Claim.objects.filter(pk=new.pk).exists()


def test_the_admin_claim_list_is_readable(page: Page, server: str, shot: Any) -> None:
    """For power users the admin stays: at 1366 px the statement has room, the index's
    chunks are not listed, and no breadcrumb reads "Contexts › Contexts"."""
    page.set_viewport_size({"width": 1366, "height": 768})
    user = log_in(page, server, email="admin-reader@example.com")
    claim_create(
        user=user,
        statement="I want to run a half marathon in under two hours before next autumn",
        claim_types=["goal"],
    )

    page.goto(f"{server}/admin/claims/claim/")
    statement = page.locator("#result_list td.field-excerpt").first
    expect(statement).to_contain_text("half marathon in under two hours before next autumn")
    box = statement.bounding_box()
    assert box is not None
    assert box["width"] >= 380
    # Every column is in view: the list does not scroll sideways inside its box.
    assert page.evaluate(
        "(() => { const t = document.querySelector('#result_list');"
        " return t.getBoundingClientRect().right <= window.innerWidth; })()"
    )
    expect(page.locator("#result_list th.column-updated_at")).to_be_in_viewport()
    shot("admin-claims")
    page.goto(f"{server}/admin/")
    expect(page.locator("#content-main")).not_to_contain_text("Chunks")
    page.goto(f"{server}/admin/contexts/context/")
    expect(page.locator(".breadcrumbs")).to_contain_text("Context tree › Contexts")
