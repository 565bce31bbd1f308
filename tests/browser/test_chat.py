from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from apps.claims.models import Claim
from apps.claims.services import claim_create
from tests.browser.helpers import DESKTOP, PHONE, assert_fits_width, log_in, start_conversation

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_chat_with_autocomplete_citations_sources_and_memory(
    page: Page, server: str, shot: Any, viewport: dict[str, int]
) -> None:
    page.set_viewport_size(viewport)
    user = log_in(page, server, email="chatter@example.com")
    claim_create(
        user=user,
        statement="I prefer morning workouts",
        friendly_id="prefer_morning",
        claim_types=["preference"],
    )
    start_conversation(page)
    composer = page.locator("#composer-input")

    composer.type("What time should I train? @prefer")
    expect(page.locator("#ref-popup")).to_be_visible()
    shot("autocomplete")
    composer.press("ArrowDown")
    composer.press("ArrowUp")
    composer.press("Enter")  # inserts the highlighted suggestion, does not send
    # What the list showed is what went in (issue 18: once "@claim_1").
    expect(composer).to_have_value(re.compile(r"@prefer_morning\s*$"))
    assert_fits_width(page)
    composer.press("Enter")

    answer = page.locator("article.msg-assistant.status-complete").last
    expect(answer).to_be_visible(timeout=20_000)
    expect(answer.locator("sup.cite a").first).to_have_text("[1]")
    expect(answer).to_contain_text("Sources")
    expect(answer).to_contain_text("I prefer morning workouts")
    answer.get_by_text(re.compile(r"Memory used \(1\)")).click()
    expect(answer).to_contain_text(re.compile("REFERENCED @(prefer_morning|claim_1)"))
    assert_fits_width(page)
    shot("answer")


def test_a_ranked_list_says_what_it_saved(page: Page, server: str, shot: Any) -> None:
    log_in(page, server, email="chatter@example.com")
    start_conversation(page)

    page.locator("#composer-input").fill("my #1 crypto is BTC")
    page.locator("#composer-input").press("Enter")

    answer = page.locator("article.msg-assistant").last
    expect(answer).to_contain_text("Saved #1 crypto = BTC", timeout=20_000)
    expect(answer).not_to_contain_text("facts +1")
    shot("saved-fact")


def test_a_suggested_memory_is_approved_from_the_knowledge_page(
    page: Page, server: str, shot: Any
) -> None:
    user = log_in(page, server, email="chatter@example.com")
    start_conversation(page)
    page.locator("#composer-input").fill("I prefer green tea. What should I cook tonight?")
    page.locator("#composer-input").press("Enter")
    expect(page.locator("article.msg-assistant.status-complete")).to_have_count(1, timeout=20_000)

    page.goto(f"{server}/knowledge/pending/")
    expect(page.get_by_role("link", name="I prefer green tea")).to_be_visible()
    shot("pending")
    page.get_by_role("button", name="Approve").first.click()
    expect(page.get_by_text(re.compile("Approved #"))).to_be_visible(timeout=10_000)
    expect(page.get_by_role("button", name="Approve")).to_have_count(0)
    shot("approved")

    assert Claim.objects.get(user=user, statement="I prefer green tea").status == "active"


def test_a_claim_used_in_an_answer_is_pinned_here_and_globally(
    page: Page, server: str, shot: Any
) -> None:
    user = log_in(page, server, email="chatter@example.com")
    claim = claim_create(user=user, statement="I drink green tea", friendly_id="green_tea")
    start_conversation(page)

    page.locator("#composer-input").fill("What do I drink? @green_tea")
    page.locator("#composer-input").press("Enter")
    answer = page.locator("article.msg-assistant.status-complete").last
    expect(answer).to_be_visible(timeout=20_000)
    answer.get_by_text(re.compile(r"Memory used \(1\)")).click()

    answer.locator(f'[data-pin-here="{claim.pk}"]').click()
    expect(page.locator(f'#pinned-list [data-claim-id="{claim.pk}"]')).to_contain_text("#1")
    answer.locator(f'[data-pin-global="{claim.pk}"]').click()
    expect(answer.locator(f'[data-pin-global="{claim.pk}"]')).to_have_attribute(
        "aria-pressed", "true"
    )
    answer.locator(f'[data-pin-here="{claim.pk}"]').click()  # pressed: unpins
    expect(page.locator(f'#pinned-list [data-claim-id="{claim.pk}"]')).to_have_count(0)

    claim.refresh_from_db()
    assert claim.pinned is True
    assert not claim.pinned_in_conversations.exists()


def test_a_bare_at_lists_pinned_and_recent_memory_and_inserts_what_it_shows(
    page: Page, server: str, shot: Any
) -> None:
    user = log_in(page, server, email="chatter@example.com")
    claim_create(user=user, statement="I drink green tea", friendly_id="green_tea")
    claim_create(user=user, statement="I run at dawn", friendly_id="run_at_dawn", pinned=True)
    start_conversation(page)
    composer = page.locator("#composer-input")

    composer.type("Remind me of @")
    options = page.locator("#ref-options [role=option]")
    expect(options.first).to_contain_text("pinned claim")
    expect(options.first.locator(".ref-text")).to_have_text("@run_at_dawn")
    expect(options.nth(1).locator(".ref-text")).to_have_text("@green_tea")
    expect(options.nth(1)).to_contain_text("#1")
    shot("bare-at")

    shown = options.nth(1).locator(".ref-text").inner_text()
    options.nth(1).click()
    expect(composer).to_have_value(f"Remind me of {shown} ")


def test_a_reference_being_typed_gets_no_verdict_until_the_caret_moves_on(
    page: Page, server: str, shot: Any
) -> None:
    user = log_in(page, server, email="chatter@example.com")
    claim_create(user=user, statement="I prefer morning workouts", friendly_id="prefer_morning")
    start_conversation(page)
    composer = page.locator("#composer-input")
    chip = page.locator("#ref-chips .ref-chip")

    composer.type("What about @pre")
    page.wait_for_timeout(600)  # longer than the chips' debounce and the preview's round trip
    expect(chip).to_have_count(1)
    expect(chip).not_to_have_class(re.compile("missing"))
    expect(chip).not_to_contain_text("not found")
    expect(chip).to_have_class(re.compile("ref-typing"))
    shot("typing")

    composer.press("Escape")  # closes the suggestions; the identifier stays as typed
    composer.type("x ")  # "@prex" is finished, and matches nothing
    expect(chip).to_have_class(re.compile("missing"))
    expect(chip).to_contain_text("not found")
    shot("not-found-after-typing")
