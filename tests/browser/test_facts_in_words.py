"""Issue 18: fact keys are words a person reads and types ("crypto list, #1"), on the
Facts page's "Set a fact" form, in its list and in its notices — not dotted keys."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from apps.facts.models import ProjectFact
from tests.browser.helpers import log_in

pytestmark = pytest.mark.browser


def test_a_fact_is_set_and_read_in_words(page: Page, server: str, shot: Any) -> None:
    user = log_in(page, server, email="facts-words@example.com")
    page.goto(f"{server}/facts/")

    page.get_by_label("What it is about").fill("crypto list, #1")
    page.get_by_label("Value").fill("BTC")
    page.get_by_role("button", name="Save fact").click()
    expect(page.get_by_text("Stored “crypto list, #1”.")).to_be_visible()
    page.get_by_label("What it is about").fill("#1 crypto")
    page.get_by_label("Value").fill("SOL")
    page.get_by_role("button", name="Save fact").click()

    expect(
        page.get_by_text("Updated “crypto list, #1”; the previous value is in its history.")
    ).to_be_visible()
    expect(page.locator(".f-key").first).to_have_text("crypto list, #1")
    expect(page.locator("main")).not_to_contain_text("user.favorites.crypto.1")
    shot("facts-in-words")
    fact = ProjectFact.objects.get(project__owner=user, is_current=True)
    assert (fact.fact_key, fact.value_text) == ("user.favorites.crypto.1", "SOL")
