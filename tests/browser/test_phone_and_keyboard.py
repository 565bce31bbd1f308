"""Every page at desktop and phone size (390×844): nothing scrolls sideways, the
navigation folds into a menu on the phone, the skip link and the focus ring are visible
(issue 18)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from apps.accounts.models import User
from apps.claims.services import claim_create
from apps.contexts.services import context_add_claims, context_create
from apps.facts.services import fact_store
from apps.indexing.models import Document, DocumentStatus, Source, SourceKind, SourceStatus
from apps.projects.services import project_ensure_personal
from tests.browser.helpers import DESKTOP, PHONE, assert_fits_width, log_in, start_conversation

pytestmark = pytest.mark.browser

LONG_WORD = "https://example.com/" + "a-very-long-path-segment/" * 6


def _knowledge(user: User) -> dict[str, str]:
    """A little of everything, with the long unbroken words that push pages sideways."""
    claim = claim_create(
        user=user,
        statement=f"I keep my hiking notes at {LONG_WORD}",
        friendly_id="hiking_notes_location_kept_in_the_long_address",
    )
    context = context_create(user=user, name="Mountain trips and the gear for each season")
    context_add_claims(context=context, claims=[claim])
    project = project_ensure_personal(user=user)
    fact_store(project=project, key="user.favorites.crypto.1", value="BTC")
    fact_store(project=project, key="user.profile.homepage", value=LONG_WORD)
    source = Source.objects.create(
        project=project, kind=SourceKind.UPLOAD, name="Uploads", status=SourceStatus.READY
    )
    document = Document.objects.create(
        source=source,
        path="a-rather-long-file-name-for-the-spring-expedition-budget-2026.pdf",
        status=DocumentStatus.FAILED,
        error="not a readable PDF (Failed to load document (PDFium: Data format error).)",
    )
    return {
        "claim": f"/knowledge/claims/{claim.pk}/",
        "context": f"/knowledge/contexts/{context.pk}/",
        "document": f"/files/documents/{document.pk}/",
    }


PAGES = [
    "/",
    "/knowledge/",
    "/knowledge/contexts/",
    "/knowledge/pending/",
    "claim",
    "context",
    "/facts/",
    "/files/",
    "document",
    "/accounts/settings/",
    "/accounts/tokens/",
    "/accounts/password/",
    "/imports/",
]


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_no_page_scrolls_sideways(
    page: Page, server: str, shot: Any, viewport: dict[str, int]
) -> None:
    page.set_viewport_size(viewport)
    for path in ("/", "/login/", "/accounts/signup/"):
        page.goto(f"{server}{path}")
        assert_fits_width(page)
        shot("visitor-" + (path.strip("/").replace("/", "-") or "front"))

    user = log_in(page, server, email="phone@example.com")
    urls = _knowledge(user)
    start_conversation(page)
    page.locator("#composer-input").fill(f"Where are my notes? {LONG_WORD}")
    page.locator("#composer-input").press("Enter")
    expect(page.locator("article.msg-assistant.status-complete")).to_have_count(1, timeout=20_000)
    assert_fits_width(page)
    shot("chat-conversation")
    conversation = page.url.removeprefix(server)
    urls["rename"] = f"{conversation}rename/"
    urls["delete"] = f"{conversation}delete/"
    urls["missing"] = "/knowledge/claims/00000000-0000-4000-8000-000000000000/"

    for path in [*PAGES, "rename", "delete", "missing"]:
        page.goto(server + urls.get(path, path))
        assert_fits_width(page)
        shot(urls.get(path, path).strip("/").replace("/", "-")[:40] or "chat")


def test_the_phone_menu_folds_and_opens_with_the_keyboard(
    page: Page, server: str, shot: Any
) -> None:
    page.set_viewport_size(PHONE)
    log_in(page, server, email="phone@example.com")
    toggle = page.get_by_role("button", name="Menu")
    knowledge = page.get_by_role("link", name="Knowledge")

    # Folded: one short bar, not four rows of links.
    expect(toggle).to_be_visible()
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(knowledge).to_be_hidden()
    bar = page.locator("header.topbar").bounding_box()
    assert bar is not None
    assert bar["height"] < 70
    shot("menu-folded")

    toggle.focus()
    page.keyboard.press("Enter")
    expect(toggle).to_have_attribute("aria-expanded", "true")
    expect(knowledge).to_be_visible()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()
    assert_fits_width(page)
    shot("menu-open")

    page.keyboard.press("Escape")
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(knowledge).to_be_hidden()
    expect(toggle).to_be_focused()

    page.keyboard.press("Space")
    page.keyboard.press("Tab")  # the focus is on the first link: move to Knowledge
    expect(knowledge).to_be_focused()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile("/knowledge/$"))
    expect(page.get_by_role("button", name="Menu")).to_have_attribute("aria-expanded", "false")


def test_desktop_shows_the_navigation_without_a_menu_button(page: Page, server: str) -> None:
    page.set_viewport_size(DESKTOP)
    log_in(page, server, email="desk@example.com")

    expect(page.get_by_role("button", name="Menu")).to_be_hidden()
    expect(page.get_by_role("link", name="Knowledge")).to_be_visible()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_skip_link_and_the_focus_ring_are_visible(
    page: Page, server: str, shot: Any, viewport: dict[str, int]
) -> None:
    page.set_viewport_size(viewport)
    log_in(page, server, email="keys@example.com")
    page.goto(f"{server}/knowledge/")

    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to content")
    expect(skip).to_be_focused()
    expect(skip).to_be_in_viewport()
    skip_box = skip.bounding_box()
    logo_box = page.locator(".brand").bounding_box()
    assert skip_box is not None
    assert logo_box is not None
    overlaps = (
        skip_box["x"] < logo_box["x"] + logo_box["width"]
        and logo_box["x"] < skip_box["x"] + skip_box["width"]
        and skip_box["y"] < logo_box["y"] + logo_box["height"]
        and logo_box["y"] < skip_box["y"] + skip_box["height"]
    )
    assert not overlaps, f"the skip link {skip_box} covers the logo {logo_box}"
    shot("skip-link")

    page.keyboard.press("Tab")  # the logo
    expect(page.locator(".brand")).to_be_focused()
    outline = page.locator(".brand").evaluate(
        "el => { const s = getComputedStyle(el); return [s.outlineStyle, s.outlineWidth]; }"
    )
    assert outline[0] != "none"
    assert float(outline[1].removesuffix("px")) >= 2
    shot("focus-ring")


def test_without_javascript_the_phone_navigation_still_works_and_fits(
    browser: Any, server: str
) -> None:
    context = browser.new_context(viewport=PHONE, java_script_enabled=False)
    page = context.new_page()
    try:
        log_in(page, server, email="nojs@example.com")
        for path in ("/knowledge/", "/files/", "/facts/"):
            page.goto(server + path)
            assert_fits_width(page)
        # No menu button without a script to run it: the links are one scrolling row.
        expect(page.get_by_role("button", name="Menu")).to_be_hidden()
        page.get_by_role("link", name="Settings").click()
        expect(page).to_have_url(re.compile("/accounts/settings/$"))
    finally:
        context.close()
