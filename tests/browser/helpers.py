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
    # By CSS, not role: on a phone the navigation is folded (hidden) behind its menu.
    expect(page.locator('.mainnav a[aria-current="page"]')).to_have_text("Chat")
    return user


def start_conversation(page: Page) -> None:
    """From the chat page: a new conversation, its websocket connected."""
    page.get_by_role("button", name="Start a conversation").click()
    expect(page.locator("#conn-state")).to_have_text(re.compile("connected"))


DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

# The widest elements sticking out past the right edge, to name the culprit in a failure.
_OVERFLOWING = """() => {
    const width = window.innerWidth;
    return [...document.querySelectorAll("body *")]
        .filter(el => el.getBoundingClientRect().right > width + 1)
        .slice(0, 5)
        .map(el => `${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}.${el.className}`);
}"""


def assert_fits_width(page: Page) -> None:
    """The page does not scroll sideways at the current viewport (issue 18: phone)."""
    page.wait_for_load_state("load")
    scroll_width, inner_width = page.evaluate(
        "() => [document.documentElement.scrollWidth, window.innerWidth]"
    )
    assert scroll_width <= inner_width, (
        f"{page.url} scrolls sideways at {inner_width}px ({scroll_width}px wide): "
        f"{page.evaluate(_OVERFLOWING)}"
    )


def open_page(page: Page, url: str) -> None:
    """Go to ``url`` and check it fits the viewport's width."""
    page.goto(url)
    assert_fits_width(page)
