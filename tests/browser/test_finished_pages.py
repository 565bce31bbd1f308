"""Pages that look finished (issue 30), at desktop and phone size: list items ticked off
with a checkbox beside the text, an empty state per list, status badges that never break
mid-word, "Save as memory" only in the menu of the user's own messages, no blank band
above the first phone screen, keyboard hints only where there is a keyboard, kinds in
words, one date format, developer tools in the user's menu (the admin for staff) and the
API docs inside the site's frame."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import Locator, Page, expect

from apps.accounts.models import User
from apps.accounts.services import api_token_create
from apps.chat.models import Conversation
from apps.chat.services import conversation_create
from apps.claims.models import Claim
from apps.claims.services import claim_create
from apps.indexing.models import Document, DocumentStatus, Source, SourceKind, SourceStatus
from apps.projects.services import project_ensure_personal
from tests.browser.conftest import ARTIFACTS
from tests.browser.helpers import DESKTOP, PHONE, assert_fits_width, log_in, start_conversation

pytestmark = pytest.mark.browser
VIEWPORTS = pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])

# How many lines a node's text takes: one rectangle per line box it lies on.
TEXT_LINES = """el => { const range = document.createRange(); range.selectNodeContents(el);
    return range.getClientRects().length; }"""


def _box(locator: Locator) -> dict[str, float]:
    box = locator.bounding_box()
    assert box is not None
    return box


def _open_user_menu(page: Page) -> None:
    # On a phone the menu is folded behind "Menu", which the page's script shows once it
    # has run: wait for it rather than read the button's visibility before.
    page.wait_for_load_state("load")
    summary = page.locator(".user-menu > summary")
    if not summary.is_visible():
        page.get_by_role("button", name="Menu").click()
    summary.click()


@VIEWPORTS
def test_list_items_are_ticked_with_a_checkbox_beside_the_text(
    page: Page, server: str, shot: Any, viewport: dict[str, int]
) -> None:
    page.set_viewport_size(viewport)
    user = log_in(page, server, email="ticks@example.com")
    milk = claim_create(user=user, statement="Oat milk", claim_types=["shopping_item"])
    claim_create(user=user, statement="Coffee beans", claim_types=["shopping_item"])

    page.goto(f"{server}/knowledge/lists/")
    shopping = page.get_by_role("region", name=re.compile("Shopping list"))
    box = shopping.get_by_role("checkbox", name=f"Tick off #{milk.number}: Oat milk")
    text = shopping.locator("label", has_text="Oat milk")
    checkbox, label = _box(box), _box(text)
    # Beside, on the text's first line: not a button on a line of its own above it.
    assert checkbox["x"] + checkbox["width"] <= label["x"]
    assert label["y"] <= checkbox["y"] + checkbox["height"] / 2 <= label["y"] + 30
    expect(shopping.get_by_role("button", name=re.compile("Tick off"))).to_have_count(0)
    # An empty list says what goes in it, not the shopping example.
    tasks = page.get_by_role("region", name=re.compile("Tasks"))
    expect(tasks).to_contain_text("No tasks yet")
    expect(tasks).not_to_contain_text("shopping")
    expect(page.get_by_role("region", name=re.compile("Goals"))).to_contain_text("No goals yet")
    assert_fits_width(page)
    shot("lists")

    box.click()

    expect(page.get_by_text(f"Done: #{milk.number} “Oat milk”.")).to_be_visible()
    shopping = page.get_by_role("region", name=re.compile("Shopping list"))
    shopping.get_by_text("Done (1)").click()
    expect(
        shopping.get_by_role("checkbox", name=f"Restore #{milk.number}: Oat milk")
    ).to_be_checked()
    shot("ticked")


@VIEWPORTS
def test_file_status_badges_never_break_inside_a_word(
    page: Page, server: str, shot: Any, viewport: dict[str, int]
) -> None:
    page.set_viewport_size(viewport)
    user = log_in(page, server, email="badges@example.com")
    source = Source.objects.create(
        project=project_ensure_personal(user=user),
        kind=SourceKind.UPLOAD,
        name="Uploads",
        status=SourceStatus.READY,
    )
    Document.objects.create(
        source=source,
        path="quarterly-expedition-budget-with-a-rather-long-name-for-spring-2026.pdf",
        status=DocumentStatus.INDEXED,
    )
    Document.objects.create(
        source=source,
        path="scanned-receipts-from-the-hardware-shop-in-the-valley-town.pdf",
        status=DocumentStatus.FAILED,
        error="not a readable PDF (Failed to load document (PDFium: Data format error).) " * 3,
    )

    page.goto(f"{server}/files/")

    badges = page.locator("td.f-status .badge")
    expect(badges).to_have_count(2)
    for badge in badges.all():
        assert badge.evaluate(TEXT_LINES) == 1, f"“{badge.inner_text()}” breaks across lines"
        # ...and stays inside its cell, clear of the size beside it.
        cell = _box(badge.locator("xpath=.."))
        size = _box(badge.locator("xpath=ancestor::tr").locator("td[data-label=Size]"))
        right = _box(badge)["x"] + _box(badge)["width"]
        assert right <= cell["x"] + cell["width"] + 1
        assert right <= size["x"] + 1 or _box(badge)["y"] + 1 >= size["y"] + size["height"]
    assert_fits_width(page)
    shot("files")


@VIEWPORTS
def test_save_as_memory_is_in_the_menu_of_your_own_messages_only(
    page: Page, server: str, shot: Any, viewport: dict[str, int]
) -> None:
    page.set_viewport_size(viewport)
    log_in(page, server, email="menus@example.com")
    start_conversation(page)
    page.locator("#composer-input").fill("My bike is a green Brompton")
    page.locator("#composer-input").press("Enter")
    answer = page.locator("article.msg-assistant.status-complete").last
    expect(answer).to_be_visible(timeout=20_000)
    mine = page.locator("article.msg-user[data-message-id]").last
    expect(mine).to_be_visible()

    expect(answer.locator(".msg-menu")).to_have_count(0)
    expect(page.get_by_text("Save as memory")).to_be_hidden()
    expect(page.locator("details.msg-menu")).to_have_count(1)
    shot("folded")

    mine.locator(".msg-menu > summary").click()
    form = mine.locator("form[data-remember]")
    expect(form.get_by_label("Save as memory")).to_have_value("My bike is a green Brompton")
    assert_fits_width(page)
    shot("menu-open")
    form.get_by_role("button", name="Save").click()
    expect(form.locator("[data-remember-result]")).to_contain_text(
        re.compile("Saved as|Already known")
    )


def test_no_blank_band_above_the_first_phone_screen(page: Page, server: str, shot: Any) -> None:
    page.set_viewport_size(PHONE)
    log_in(page, server, email="band@example.com")
    bar = _box(page.locator("header.topbar"))

    page.goto(f"{server}/")
    first = _box(page.get_by_role("button", name="Conversations"))
    assert first["y"] - (bar["y"] + bar["height"]) < 48, f"blank band above: {first}"
    expect(page.locator("#chat-empty")).to_be_in_viewport()
    shot("chat-start")
    for path in ("/knowledge/lists/", "/files/", "/accounts/settings/"):
        page.goto(f"{server}{path}")
        heading = _box(page.locator("main h1").first)
        assert heading["y"] - (bar["y"] + bar["height"]) < 48, f"{path}: blank band"


@pytest.mark.parametrize("machine", ["desktop", "touch-phone"])
def test_keyboard_hints_show_only_where_there_is_a_keyboard(
    page: Page, server: str, machine: str
) -> None:
    touch = machine == "touch-phone"
    if touch:  # a phone: touch screen, no hover, no fine pointer
        browser = page.context.browser
        assert browser is not None
        page = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    else:
        page.set_viewport_size(DESKTOP)
    log_in(page, server, email="hints@example.com")
    start_conversation(page)

    hint = page.locator("#composer-help").get_by_text(re.compile(r"Shift\+Enter new line"))
    popup_help = page.locator(".ref-popup-help").evaluate("el => getComputedStyle(el).display")
    if touch:
        expect(hint).to_be_hidden()
        assert popup_help == "none"
    else:
        expect(hint).to_be_visible()
        assert popup_help == "block"
    expect(page.locator("#conn-state")).to_be_visible()
    folder = ARTIFACTS / f"test_keyboard_hints_{machine}"
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / "composer.png"))


@VIEWPORTS
def test_dates_read_one_way_with_the_year_when_not_this_one(
    page: Page, server: str, shot: Any, viewport: dict[str, int]
) -> None:
    page.set_viewport_size(viewport)
    user = log_in(page, server, email="dates@example.com")
    now = timezone.localtime()
    last_year = now.replace(year=now.year - 1, month=3, day=14, hour=6, minute=5)
    old = conversation_create(user=user, title="Packing for the coast")
    Conversation.objects.filter(pk=old.pk).update(updated_at=last_year)
    claim = claim_create(user=user, statement="I packed a tent", claim_types=["shopping_item"])
    Claim.objects.filter(pk=claim.pk).update(created_at=last_year)
    api_token_create(user=user, name="Laptop")
    year_ago = timezone.localtime(last_year)
    said = f"{year_ago.day} {year_ago:%b} {year_ago.year}"

    page.goto(f"{server}/")
    expect(page.locator(".conv-time").first).to_have_text(said)
    page.goto(f"{server}/knowledge/claims/{claim.pk}/")
    expect(page.get_by_text(re.compile(f"added {said}, 06:05"))).to_be_visible()
    # Kinds in words: "Shopping item", never "shopping_item".
    expect(page.locator("main")).to_contain_text("Shopping item")
    expect(page.locator("main")).not_to_contain_text("shopping_item")
    shot("claim")
    for path in ("/accounts/tokens/", "/accounts/settings/", f"/knowledge/claims/{claim.pk}/"):
        page.goto(f"{server}{path}")
        text = page.locator("main").inner_text()
        assert not re.search(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}|[ap]\.m\.", text), path
        assert re.search(r"\b\d{1,2} [A-Z][a-z]{2}(?: \d{4})?, \d{2}:\d{2}\b", text), path


@VIEWPORTS
def test_developer_tools_are_in_the_user_menu_and_the_admin_only_for_staff(
    page: Page, server: str, shot: Any, viewport: dict[str, int]
) -> None:
    page.set_viewport_size(viewport)
    user = log_in(page, server, email="dev@example.com")

    expect(page.locator(".mainnav").get_by_role("link", name="API docs")).to_have_count(0)
    expect(page.get_by_role("link", name="Admin", exact=True)).to_have_count(0)
    _open_user_menu(page)
    menu = page.locator(".user-menu-items")
    expect(menu.get_by_role("link", name="API tokens")).to_be_visible()
    expect(menu.get_by_role("link", name="Admin", exact=True)).to_have_count(0)
    shot("menu")
    menu.get_by_role("link", name="API docs").click()

    # The API docs inside the site's frame, with the way back.
    expect(page.locator("#swagger-ui .opblock").first).to_be_visible(timeout=20_000)
    expect(page.locator("header.topbar .brand")).to_be_visible()
    assert_fits_width(page)
    shot("api-docs")
    page.get_by_role("link", name="← Back to Cairn").click()
    expect(page).to_have_url(f"{server}/accounts/settings/")

    User.objects.filter(pk=user.pk).update(is_staff=True)
    page.reload()
    _open_user_menu(page)
    expect(page.locator(".user-menu-items").get_by_role("link", name="Admin")).to_be_visible()
    shot("staff-menu")


def test_a_user_who_asks_sees_the_admin_in_the_menu(page: Page, server: str) -> None:
    page.set_viewport_size(DESKTOP)
    log_in(page, server, email="editor@example.com")
    page.goto(f"{server}/accounts/settings/")

    page.get_by_label("Show the admin in my Developer menu").check()
    page.get_by_role("button", name="Save settings").click()
    _open_user_menu(page)

    expect(page.locator(".user-menu-items").get_by_role("link", name="Admin")).to_be_visible()


@VIEWPORTS
def test_tags_dates_and_confidence_are_edited_on_the_claim_page(
    page: Page, server: str, shot: Any, viewport: dict[str, int]
) -> None:
    page.set_viewport_size(viewport)
    user = log_in(page, server, email="details@example.com")
    claim = claim_create(user=user, statement="I train for the spring marathon")

    page.goto(f"{server}/knowledge/claims/{claim.pk}/")
    page.get_by_label("Confidence (%)").fill("70")
    page.get_by_label("True until").fill("2026-04-30")
    page.get_by_label("New tags").fill("Running, Health")
    assert_fits_width(page)
    page.get_by_role("button", name="Save details").click()

    expect(page.get_by_text(f"Saved the details of #{claim.number}")).to_be_visible()
    expect(page.locator(".k-dl")).to_contain_text("70%")
    expect(page.locator(".k-dl")).to_contain_text("#Health")
    expect(page.get_by_label("Running")).to_be_checked()
    shot("claim-details")
    claim.refresh_from_db()
    assert claim.confidence == pytest.approx(0.7)
    assert sorted(claim.tags.values_list("name", flat=True)) == ["Health", "Running"]
