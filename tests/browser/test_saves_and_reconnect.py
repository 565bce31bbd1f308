"""The chat page when things fail (issue 26): the server drops the socket mid-answer and
the page reconnects and shows the answer from the database; a message that did not commit
is said "not saved" and resent; an answer whose save failed is kept and saved again."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.db import OperationalError
from playwright.sync_api import Page, expect

from apps.chat.consumers import ChatConsumer
from apps.chat.events import Delta, TurnEvent
from apps.chat.models import Message
from apps.chat.services import message_append
from tests.browser.helpers import log_in, start_conversation

pytestmark = pytest.mark.browser


def failing(times: int) -> Callable[..., Message]:
    calls = {"n": 0}

    def append(**kwargs: Any) -> Message:
        calls["n"] += 1
        if calls["n"] <= times:
            raise OperationalError("server closed the connection unexpectedly")
        return message_append(**kwargs)

    return append


def test_the_page_reconnects_after_the_server_drops_the_socket_and_shows_the_answer(
    page: Page, server: str, shot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = ChatConsumer.emit
    dropped: list[int] = []

    async def emit_then_drop(self: ChatConsumer, event: TurnEvent) -> None:
        await original(self, event)
        if isinstance(event, Delta) and not dropped:
            dropped.append(1)
            await self.close(code=1012)  # "service restart", as a redeploy closes it

    monkeypatch.setattr(ChatConsumer, "emit", emit_then_drop)
    log_in(page, server, email="reconnect@example.com")
    start_conversation(page)

    page.locator("#composer-input").fill("We moved the boat to the north harbour.")
    page.locator("#composer-input").press("Enter")

    answer = page.locator("article.msg-assistant.status-complete")
    expect(answer).to_have_count(1, timeout=30_000)
    expect(page.locator("#conn-state")).to_have_text("connected")
    assert dropped == [1]
    saved = Message.objects.get(role="assistant", conversation__user__email="reconnect@example.com")
    expect(answer).to_contain_text(saved.content.split("\n")[0][:40])
    expect(page.locator("article.msg-user")).to_have_count(1)
    shot("reconnected")


def test_a_message_not_saved_is_said_so_and_resent(
    page: Page, server: str, shot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("apps.chat.pipeline.prepare.message_append", failing(1))
    log_in(page, server, email="unsaved@example.com")
    start_conversation(page)
    composer = page.locator("#composer-input")

    composer.fill("My locker is number 42.")
    composer.press("Enter")

    bubble = page.locator("article.msg-user.msg-unsaved")
    expect(bubble).to_contain_text("Your message was not saved: the database could not be reached.")
    expect(composer).to_have_value("My locker is number 42.")
    shot("not-saved")
    composer.fill("")
    bubble.get_by_role("button", name="Resend").click()

    expect(page.locator("article.msg-assistant.status-complete")).to_have_count(1, timeout=20_000)
    expect(page.locator("article.msg-unsaved")).to_have_count(0)
    assert list(Message.objects.values_list("role", flat=True).order_by("order")) == [
        "user",
        "assistant",
    ]


def test_an_answer_not_saved_is_kept_and_saved_again(
    page: Page, server: str, shot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("apps.chat.pipeline.saving.ANSWER_SAVE_DELAYS", (0.01, 0.01))
    monkeypatch.setattr("apps.chat.pipeline.finish.message_append", failing(3))
    log_in(page, server, email="unsaved-answer@example.com")
    start_conversation(page)

    page.locator("#composer-input").fill("Where is the boat?")
    page.locator("#composer-input").press("Enter")

    kept = page.locator("article.msg-assistant.msg-unsaved")
    expect(kept).to_contain_text(re.compile("Not saved"), timeout=20_000)
    streamed = kept.locator(".msg-body").inner_text()
    assert streamed.strip()
    shot("answer-not-saved")
    kept.get_by_role("button", name="Save again").click()

    answer = page.locator("article.msg-assistant.status-complete")
    expect(answer).to_have_count(1, timeout=20_000)
    expect(page.locator("article.msg-unsaved")).to_have_count(0)
    saved = Message.objects.get(role="assistant")
    assert saved.content.split("\n")[0] in streamed
