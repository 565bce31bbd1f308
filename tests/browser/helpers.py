"""Steps several browser tests take: signing in and starting a conversation."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from apps.accounts.models import User
from tests.factories import DEFAULT_PASSWORD, UserFactory


def log_in(page: Page, server: str, *, email: str) -> User:
    """A new user signs in through the login form and lands on the chat page."""
    user: User = UserFactory.create(email=email)
    page.goto(f"{server}/login/")
    page.locator("#id_username").fill(user.email)
    page.locator("#id_password").fill(DEFAULT_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("link", name="Chat", exact=True)).to_have_attribute(
        "aria-current", "page"
    )
    return user


def start_conversation(page: Page) -> None:
    """From the chat page: a new conversation, its websocket connected."""
    page.get_by_role("button", name="Start a conversation").click()
    expect(page.locator("#conn-state")).to_have_text(re.compile("connected"))
