"""A chat page whose session ends elsewhere (issue 29): logging out in another tab closes
its socket, and the page says "You were signed out" and opens the login page, instead of
reconnecting forever or going on answering."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import log_in, start_conversation

pytestmark = pytest.mark.browser


def test_logging_out_in_another_tab_signs_the_chat_page_out(page: Page, server: str) -> None:
    log_in(page, server, email="tabs@example.com")
    start_conversation(page)
    chat_url = page.url

    other_tab = page.context.new_page()
    other_tab.goto(f"{server}/knowledge/")
    other_tab.locator("form[action='/logout/'] button").first.click()
    expect(other_tab).to_have_url(re.compile("/login/|/$"))

    expect(page.get_by_role("alert")).to_have_text("You were signed out. Opening the login page…")
    expect(page.locator("#conn-state")).to_have_text("you were signed out")
    # Back to this conversation once signed in again.
    path = re.sub(r"^https?://[^/]+", "", chat_url)
    expect(page).to_have_url(re.compile(r"/login/\?next=" + re.escape(path.replace("/", "%2F"))))
