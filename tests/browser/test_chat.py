from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from apps.claims.models import Claim
from apps.claims.services import claim_create
from tests.browser.helpers import log_in, start_conversation

pytestmark = pytest.mark.browser


def test_chat_with_autocomplete_citations_sources_and_memory(
    page: Page, server: str, shot: Any
) -> None:
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
    expect(composer).to_have_value(re.compile(r"@claim_1\s*$"))
    composer.press("Enter")

    answer = page.locator("article.msg-assistant.status-complete").last
    expect(answer).to_be_visible(timeout=20_000)
    expect(answer.locator("sup.cite a").first).to_have_text("[1]")
    expect(answer).to_contain_text("Sources")
    expect(answer).to_contain_text("I prefer morning workouts")
    answer.get_by_text(re.compile(r"Memory used \(1\)")).click()
    expect(answer).to_contain_text("REFERENCED @claim_1")
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
