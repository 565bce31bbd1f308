"""A user brings their ChatGPT history in from the Import page and finds it (issue 16)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from apps.chat.models import Conversation
from tests.browser.helpers import log_in
from tests.chat.test_exports import chatgpt_export, zipped
from tests.indexing.conftest import fake_provider  # noqa: F401 - fixture

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("fake_provider")]


@pytest.mark.parametrize("viewport", [(1366, 900), (390, 844)], ids=["desktop", "phone"])
def test_an_export_is_uploaded_and_becomes_searchable(
    page: Page, server: str, shot: Any, tmp_path: Path, viewport: tuple[int, int]
) -> None:
    page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
    log_in(page, server, email=f"importer-{viewport[0]}@example.com")
    if viewport[0] >= 700:
        page.get_by_role("link", name="Import from ChatGPT or Claude").click()
    else:  # the conversation sidebar, where the link is, is folded away on a phone
        page.goto(f"{server}/imports/")
    expect(page.get_by_role("heading", name="Import your chat history")).to_be_visible()
    expect(page.get_by_text("No imports yet")).to_be_visible()
    shot("empty")

    export = tmp_path / "chatgpt-export.zip"
    export.write_bytes(zipped(chatgpt_export()))
    page.get_by_label("Export file").set_input_files(str(export))
    page.get_by_role("button", name="Import").click()

    card = page.locator("article.import").first
    expect(card).to_contain_text("chatgpt-export.zip")
    expect(card.locator("[data-status-text]")).to_have_text("Searchable", timeout=20_000)
    expect(card.get_by_role("progressbar")).to_have_attribute("aria-valuenow", "100")
    expect(card).to_contain_text("2 of 2 conversations stored (2 new), 4 of 4 messages searchable")
    shot("searchable")

    sailing = Conversation.objects.get(external_id="c-sailing")
    page.goto(f"{server}/c/{sailing.pk}/")
    expect(page.get_by_text("Imported from ChatGPT · searchable")).to_be_visible()
    expect(page.locator("article.msg")).to_have_count(4)
    shot("conversation")


@pytest.mark.parametrize("viewport", [(1366, 900), (390, 844)], ids=["desktop", "phone"])
def test_a_failed_import_says_why_and_is_retried_then_deleted_with_its_conversations(
    page: Page,
    server: str,
    shot: Any,
    tmp_path: Path,
    viewport: tuple[int, int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from apps.chat.exports import tasks
    from apps.chat.exports.parse import ExportError

    def damaged(handle: Any) -> int:
        raise ExportError("The export is damaged: conversations.json ends early.")

    monkeypatch.setattr(tasks, "count_conversations", damaged)
    page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
    log_in(page, server, email=f"retrier-{viewport[0]}@example.com")
    page.goto(f"{server}/imports/")
    export = tmp_path / "chatgpt-export.zip"
    export.write_bytes(zipped(chatgpt_export()))
    page.get_by_label("Export file").set_input_files(str(export))
    page.get_by_role("button", name="Import").click()

    card = page.locator("article.import").first
    expect(card.locator("[data-status-text]")).to_have_text("Failed", timeout=20_000)
    expect(card).to_contain_text("The export is damaged: conversations.json ends early.")
    shot("failed")

    monkeypatch.undo()  # the file reads again
    card.get_by_role("button", name="Retry").click()
    card = page.locator("article.import").first
    expect(card.locator("[data-status-text]")).to_have_text("Searchable", timeout=20_000)
    assert (
        Conversation.objects.filter(user__email=f"retrier-{viewport[0]}@example.com").count() == 2
    )

    card.get_by_label("with the conversations it stored").check()
    card.get_by_role("button", name="Delete import").click()
    expect(
        page.get_by_text("Deleted the import of chatgpt-export.zip and 2 conversations.")
    ).to_be_visible()
    expect(page.get_by_text("No imports yet")).to_be_visible()
    shot("deleted")
    assert not Conversation.objects.filter(
        user__email=f"retrier-{viewport[0]}@example.com"
    ).exists()
