"""Issue 28 in the browser, as a person reads the answers (offline provider, real model):
a receipt headed "18 May 2024" answers "What did I buy in May 2024?" whenever it was
uploaded, and an undated note does not; a statement that waits for review is used in its
conversation and the answer says it waits — at desktop and phone size."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from apps.indexing.models import Document
from tests.browser.helpers import DESKTOP, PHONE, log_in, start_conversation

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("media_root")]

RECEIPT = (
    "Kitchen Corner — receipt\nDate: 18 May 2024\n\n"
    "1 × cast-iron bread pan, 34.90 EUR\nPaid by card.\n"
)
NOTE = "Router notes\n\nThe router forwards DNS to the Pi-hole at 192.168.8.53.\n"


def _ask(page: Page, question: str) -> Locator:
    answers = page.locator("article.msg-assistant.status-complete")
    before = answers.count()
    page.locator("#composer-input").fill(question)
    page.locator("#composer-input").press("Enter")
    expect(answers).to_have_count(before + 1, timeout=30_000)
    return answers.last.locator(".msg-body")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_named_month_finds_the_file_written_then(
    page: Page, server: str, shot: Any, viewport: dict[str, int]
) -> None:
    page.set_viewport_size(viewport)
    log_in(page, server, email="baker@example.com")
    page.goto(f"{server}/files/")
    page.get_by_label("Files", exact=True).set_input_files(
        [
            {"name": "receipt.txt", "mimeType": "text/plain", "buffer": RECEIPT.encode()},
            {"name": "router.txt", "mimeType": "text/plain", "buffer": NOTE.encode()},
        ]
    )
    page.get_by_role("button", name="Upload").click()
    expect(page.get_by_text("2 files uploaded")).to_be_visible()
    card = page.locator("[data-source-id]", has=page.get_by_role("link", name="receipt.txt"))
    expect(card.locator("[data-progress-status]")).to_have_text("Up to date", timeout=20_000)
    receipt = Document.objects.get(path="receipt.txt")

    page.goto(f"{server}/")
    start_conversation(page)
    body = _ask(page, "What did I buy in May 2024?")

    expect(body).to_contain_text("bread pan")
    footer = body.locator("p", has=page.locator("strong", has_text="Sources:"))
    expect(footer).to_contain_text("receipt.txt")
    expect(footer).not_to_contain_text("router.txt")
    expect(footer.locator(f'a[href^="/files/documents/{receipt.pk}/"]')).not_to_have_count(0)
    shot("may-2024")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_statement_waiting_for_review_is_used_and_said_to_wait(
    page: Page, server: str, shot: Any, viewport: dict[str, int]
) -> None:
    page.set_viewport_size(viewport)
    log_in(page, server, email="runner@example.com")
    start_conversation(page)
    _ask(page, "I prefer morning workouts, usually before 7am.")

    body = _ask(page, "When do I like to work out?")

    expect(body).to_contain_text(
        re.compile(r"Waiting for your review: “I prefer morning workouts, usually before 7am")
    )
    expect(body.locator("sup.cite a").first).to_have_text(re.compile(r"^\[\d+\]$"))
    shot("waiting")
