"""Issue 17 in the browser: a doubted citation is marked with its reason, live and after a
reload, with one sources list; the Knowledge page's lists tick an item off and restore it."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from apps.claims.services import claim_create
from tests.browser.helpers import log_in, start_conversation
from tests.chat.test_llm_anthropic import FakeAnthropic
from tests.chat.test_pipeline_distill_align import message
from tests.chat.test_typed_lists import _claude, _text_turn

pytestmark = pytest.mark.browser


def test_a_doubted_citation_is_marked_with_its_reason_live_and_after_reload(
    page: Page, server: str, shot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    verdict = {
        "pass": False,
        "issues": [{"type": "unsupported", "ref": 1, "claim": "You swim every evening"}],
    }
    claude = FakeAnthropic(
        _text_turn("Your shoes are Hoka Cliftons [2]. You swim every evening [1]."),
        message(json.dumps(verdict)),
    )
    monkeypatch.setattr(
        "apps.chat.consumers.provider_for_running_loop", lambda _answerer: _claude(claude)
    )
    user = log_in(page, server, email="honest@example.com")
    claim_create(user=user, statement="I train three mornings a week", friendly_id="mornings")
    claim_create(user=user, statement="My running shoes are Hoka Clifton", friendly_id="shoes")
    start_conversation(page)

    page.locator("#composer-input").fill("@mornings @shoes what should I wear?")
    page.locator("#composer-input").press("Enter")

    answer = page.locator("article.msg-assistant.status-complete").last
    expect(answer).to_be_visible(timeout=20_000)
    reason = "Not supported by source 2 — unsupported: You swim every evening"
    for _ in range(2):  # as it arrives, and as the page is served after a reload
        answer = page.locator("article.msg-assistant.status-complete").last
        doubted = answer.locator("sup.cite.unsupported a")
        expect(doubted).to_have_attribute("title", reason)
        expect(doubted).to_contain_text("[2]")
        expect(answer.locator("sup.cite:not(.unsupported) a").first).to_have_text("[1]")
        expect(
            answer.get_by_text(re.compile("Checked against its sources: 1 doubt"))
        ).to_be_visible()
        expect(answer.get_by_text("Sources:", exact=True)).to_have_count(1)
        expect(answer.get_by_text(re.compile("All sources"))).to_have_count(0)
        shot("doubted-citation")
        page.reload()


def test_the_shopping_list_is_ticked_off_and_restored_on_the_knowledge_page(
    page: Page, server: str, shot: Any
) -> None:
    user = log_in(page, server, email="lists@example.com")
    milk = claim_create(user=user, statement="Oat milk", claim_types=["shopping_item"])
    claim_create(user=user, statement="Run a marathon", claim_types=["goal"])

    page.get_by_role("link", name="Knowledge", exact=True).click()
    page.get_by_role("link", name="Lists", exact=True).click()
    shopping = page.get_by_role("region", name=re.compile("Shopping list"))
    expect(shopping).to_contain_text("Oat milk")
    expect(page.get_by_role("region", name=re.compile("Goals"))).to_contain_text("Run a marathon")

    shopping.get_by_role("checkbox", name=f"Tick off #{milk.number}: Oat milk").click()

    expect(page.get_by_text(f"Done: #{milk.number} “Oat milk”.")).to_be_visible()
    shopping = page.get_by_role("region", name=re.compile("Shopping list"))
    shopping.get_by_text(re.compile(r"Done \(1\)")).click()
    shot("lists-done")
    shopping.get_by_role("checkbox", name=f"Restore #{milk.number}: Oat milk").click()
    expect(page.get_by_text(f"Restored #{milk.number} “Oat milk”.")).to_be_visible()
    shopping = page.get_by_role("region", name=re.compile("Shopping list"))
    expect(
        shopping.get_by_role("checkbox", name=f"Tick off #{milk.number}: Oat milk")
    ).not_to_be_checked()
