"""Issue 18 in the chat: each answer says in words what the turn stored or suggested,
with working review buttons; the navigation counts pending claims; notices survive a
reload; and ``#N`` reads the same in the composer, the transcript and the answer."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from apps.claims.models import Claim, ClaimStatus
from apps.claims.services import claim_create
from tests.browser.helpers import log_in, start_conversation

pytestmark = pytest.mark.browser


def send(page: Page, text: str) -> Any:
    """Send ``text`` and wait for the saved answer (the server-rendered one)."""
    before = page.locator("article.msg-assistant.status-complete[id]").count()
    page.locator("#composer-input").fill(text)
    page.locator("#composer-input").press("Enter")
    answers = page.locator("article.msg-assistant.status-complete[id]")
    expect(answers).to_have_count(before + 1, timeout=20_000)
    return answers.last


@pytest.mark.parametrize("width", [1366, 390])
def test_an_answer_says_what_changed_and_keeps_it(
    page: Page, server: str, shot: Any, width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900 if width > 400 else 844})
    user = log_in(page, server, email=f"changes{width}@example.com")
    start_conversation(page)

    first = send(page, "my #1 crypto is BTC")
    expect(first.locator(".turn-changes")).to_contain_text("Saved #1 crypto = BTC")
    expect(first).not_to_contain_text("facts +")
    second = send(page, "actually my #1 crypto is SOL")
    expect(second.locator(".turn-changes")).to_contain_text("Updated #1 crypto: BTC → SOL")

    third = send(page, "I prefer green tea. What about @nothing_here?")
    suggestion = third.locator("[data-suggestion]")
    expect(suggestion).to_contain_text("Suggested for memory:")
    expect(suggestion).to_contain_text("I prefer green tea")
    expect(suggestion.get_by_role("button", name="Approve")).to_be_visible()
    expect(suggestion.get_by_text("Edit", exact=True)).to_be_visible()
    expect(suggestion.get_by_role("button", name="Dismiss")).to_be_visible()
    # On a phone the navigation folds behind Menu, so the count shows on the button.
    where = ".mainnav" if width > 700 else ".nav-toggle"
    badge = page.locator(f"{where} [data-pending-count]")
    expect(badge).to_be_visible()
    expect(badge).to_have_text("1")
    question = page.locator("article.msg-user").last
    expect(question.locator(".msg-notice")).to_contain_text("nothing_here")
    shot(f"suggested-{width}")

    # After a reload everything is still there: it was stored with the messages.
    page.reload()
    expect(page.locator("article.msg-user").last.locator(".msg-notice")).to_contain_text(
        "nothing_here"
    )
    answers = page.locator("article.msg-assistant")
    expect(answers.nth(0)).to_contain_text("Saved #1 crypto = BTC")
    expect(answers.nth(1)).to_contain_text("Updated #1 crypto: BTC → SOL")
    suggestion = answers.nth(2).locator("[data-suggestion]")

    # Edit the wording, then approve, without leaving the chat.
    suggestion.get_by_text("Edit", exact=True).click()
    suggestion.get_by_label("Wording to keep").fill("I prefer green tea in the morning")
    suggestion.get_by_role("button", name="Save and approve").click()
    expect(answers.nth(2)).to_contain_text(
        re.compile(r"Approved #\d+ “I prefer green tea in the morning”")
    )
    expect(badge).to_be_hidden()
    claim = Claim.objects.get(user=user, statement="I prefer green tea in the morning")
    assert claim.status == ClaimStatus.ACTIVE
    page.reload()
    expect(page.locator("article.msg-assistant").nth(2)).to_contain_text("Saved to memory: #")
    shot(f"approved-{width}")


def test_dismissing_a_suggestion_from_the_chat(page: Page, server: str) -> None:
    user = log_in(page, server, email="dismiss@example.com")
    start_conversation(page)

    answer = send(page, "I love loud karaoke.")
    answer.locator("[data-suggestion]").get_by_role("button", name="Dismiss").click()

    expect(answer).to_contain_text("Dismissed #")
    assert not Claim.objects.filter(user=user, status=ClaimStatus.PENDING).exists()


def test_hash_n_reads_as_a_rank_or_a_claim_everywhere(page: Page, server: str, shot: Any) -> None:
    user = log_in(page, server, email="ranks@example.com")
    claim_create(user=user, statement="I hold crypto long term")
    start_conversation(page)
    composer = page.locator("#composer-input")
    chips = page.locator("#ref-chips .ref-chip")

    composer.fill("my #1 crypto is BTC")
    page.wait_for_timeout(700)  # the chips are drawn after the server read the ranks
    expect(chips).to_have_count(0)
    shot("rank-no-chip")
    composer.fill("what about #1?")
    expect(chips).to_have_count(1)
    expect(chips.first).to_have_attribute("data-ref", "claim_1")
    composer.fill("tell me about #3")
    expect(chips).to_have_count(1)
    expect(chips.first).to_have_attribute("data-ref", "claim_3")
    shot("claim-chip")

    send(page, "my #1 crypto is BTC")
    asked = send(page, "what about #1?")
    questions = page.locator("article.msg-user")
    expect(questions.nth(0).locator(".ref-chip")).to_have_count(0)
    expect(questions.nth(1).locator('.ref-chip[data-ref="claim_1"]')).to_have_count(1)
    asked.get_by_text(re.compile(r"Memory used")).click()
    expect(asked).to_contain_text("REFERENCED @claim_1")
    page.reload()
    expect(page.locator("article.msg-user").nth(0).locator(".ref-chip")).to_have_count(0)
    expect(page.locator("article.msg-user").nth(1).locator(".ref-chip")).to_have_count(1)
