"""The front page a visitor sees at / (issue 18): what Cairn is, a screenshot, sign up and
log in; logged in, / stays the chat."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from playwright.sync_api import Page, expect

from apps.claims.services import claim_create
from tests.browser.helpers import DESKTOP, PHONE, assert_fits_width, log_in, start_conversation

pytestmark = pytest.mark.browser

SCREENSHOT = Path(settings.BASE_DIR) / "static" / "img" / "front-chat.png"


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_visitor_learns_what_cairn_is_and_can_sign_up_or_log_in(
    page: Page, server: str, shot: Any, viewport: dict[str, int]
) -> None:
    page.set_viewport_size(viewport)
    page.goto(f"{server}/")

    expect(page).to_have_url(f"{server}/")  # not sent to a bare login form
    expect(page.get_by_role("heading", level=1)).to_have_text("A chat with a memory you can see.")
    expect(page.locator(".w-features article")).to_have_count(4)
    picture = page.get_by_role("img", name=re.compile("A Cairn chat"))
    expect(picture).to_be_visible()
    assert picture.evaluate("img => img.complete && img.naturalWidth > 0")
    assert_fits_width(page)
    shot("front-page")

    page.get_by_role("main").get_by_role("link", name=re.compile("^Sign up")).click()
    expect(page).to_have_url(re.compile("/accounts/signup/$"))
    page.go_back()
    page.get_by_role("main").get_by_role("link", name="Log in").click()
    expect(page).to_have_url(re.compile("/login/$"))

    log_in(page, server, email="visitor@example.com")
    page.goto(f"{server}/")
    expect(page.get_by_role("button", name="Start a conversation")).to_be_visible()
    expect(page.locator(".w-hero")).to_have_count(0)


@pytest.mark.skipif(
    not os.environ.get("CAIRN_REFRESH_FRONT_PAGE_SHOT"),
    reason="regenerates static/img/front-chat.png: set CAIRN_REFRESH_FRONT_PAGE_SHOT=1",
)
def test_refresh_the_front_page_screenshot(page: Page, server: str, tmp_path: Path) -> None:
    """The front page's picture is a real answer of this app, taken here."""
    page.set_viewport_size({"width": 1200, "height": 750})
    user = log_in(page, server, email="maya@example.com")
    user.display_name = "Maya"
    user.save(update_fields=["display_name"])
    page.reload()
    claim_create(
        user=user,
        statement="I prefer morning workouts, before work",
        friendly_id="prefer_morning",
        claim_types=["preference"],
    )
    claim_create(user=user, statement="My knee gets sore after long runs", friendly_id="knee")
    start_conversation(page)
    page.locator("#composer-input").fill("When do I like to train? @prefer_morning")
    page.locator("#composer-input").press("Enter")
    answer = page.locator("article.msg-assistant.status-complete").last
    expect(answer).to_be_visible(timeout=20_000)
    page.evaluate("document.activeElement && document.activeElement.blur()")
    taken = tmp_path / "front-chat.png"
    page.screenshot(path=str(taken))
    shutil.copyfile(taken, SCREENSHOT)
    assert SCREENSHOT.stat().st_size > 10_000
