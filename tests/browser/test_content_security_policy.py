"""A strict Content-Security-Policy on every page, and nothing of the site violates it."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import ConsoleMessage, Page

from tests.browser.helpers import log_in, start_conversation

pytestmark = pytest.mark.browser

PAGES = [
    "/",
    "/knowledge/",
    "/knowledge/contexts/",
    "/knowledge/pending/",
    "/files/",
    "/facts/",
    "/accounts/settings/",
    "/accounts/tokens/",
    "/admin/",
    "/admin/claims/claim/",
    "/admin/claims/claim/add/",
    "/admin/contexts/context/add/",
    "/api/v1/docs/",
    "/no/such/page/",
]


def test_no_page_violates_the_policy(page: Page, server: str, shot: Any) -> None:
    violations: list[str] = []

    def watch(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text:
            violations.append(f"{page.url}: {message.text}")

    page.on("console", watch)
    log_in(page, server, email="csp@example.com")
    start_conversation(page)  # the websocket connects under connect-src 'self'
    page.locator("#composer-input").fill("Hello there")
    page.keyboard.press("Enter")
    page.wait_for_selector(".msg-assistant.status-complete", timeout=30000)

    for path in PAGES:
        response = page.goto(f"{server}{path}")
        assert response is not None
        policy = response.headers.get("content-security-policy", "")
        assert "script-src 'self'" in policy, path
        page.wait_for_load_state("networkidle")

    shot("api-docs-under-csp")
    assert violations == [], "\n".join(violations)
