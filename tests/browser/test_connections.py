"""Issue 30 in the browser: a staff user adds a local OpenAI-compatible server on the
connections page, tests it, picks one of its models in a conversation and gets an answer
streamed through it, labelled with the model; the test then finds the server gone, in
words. At 1280 and 390 px, with screenshots."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from apps.accounts.models import User
from tests.browser.helpers import DESKTOP, PHONE, assert_fits_width, log_in, start_conversation
from tests.chat.model_server import OpenAIServer

pytestmark = pytest.mark.browser

KEY = "test-only-not-a-key-0c41"  # what a user pastes; its last four show


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_staff_connect_a_model_server_and_a_chat_is_answered_through_it(
    page: Page, server: str, shot: Any, settings: Any, viewport: dict[str, int]
) -> None:
    settings.ANTHROPIC_API_KEY = ""
    settings.CAIRN_LLM_BASE_URL = ""
    page.set_viewport_size(viewport)
    user = log_in(page, server, email="admin@example.com")
    User.objects.filter(pk=user.pk).update(is_staff=True)

    with OpenAIServer(api_key=KEY, reply="Your tea is oolong, as you said.") as models:
        page.goto(f"{server}/connections/")
        expect(page.get_by_role("heading", name="Model connections")).to_be_visible()
        expect(page.locator("#no-connections")).to_be_visible()
        page.get_by_label("OpenAI-compatible server").check()
        page.get_by_label("Name").fill("Lab")
        page.get_by_label("Base URL").fill(models.url)
        page.get_by_label("API key").fill(KEY)
        page.get_by_role("button", name="Add and test").click()

        expect(page.get_by_text("Added Lab. Connected: 2 models offered.")).to_be_visible()
        lab = page.locator("article.connection")
        expect(lab.locator("[data-models]")).to_contain_text("mistral-small")
        expect(lab).to_contain_text("…0c41")
        expect(page.locator("body")).not_to_contain_text(KEY)
        page.get_by_role("button", name="Test Lab").click()
        expect(page.get_by_text("Lab: Connected: 2 models offered.")).to_be_visible()
        expect(page.locator("[data-default-now]")).to_contain_text("llama-test")
        assert_fits_width(page)
        shot("connections-page")

        page.goto(f"{server}/")
        start_conversation(page)
        expect(page.locator("#offline-banner")).to_have_count(0)
        # The choice posts its form and the page comes back with it: wait for that page,
        # or the question would be typed into the one that is leaving.
        with page.expect_navigation():
            page.locator("#model-choice").select_option(label="mistral-small · Lab")
        expect(page.locator("#model-choice")).to_have_value(re.compile(r":mistral-small$"))
        expect(page.locator("#conn-state")).to_have_text(re.compile("connected"))
        page.locator("#composer-input").fill("What tea do I drink?")
        page.locator("#composer-input").press("Enter")

        answer = page.locator("article.msg-assistant.status-complete").last
        expect(answer).to_contain_text("Your tea is oolong, as you said.", timeout=20_000)
        expect(answer.locator(".msg-model")).to_have_text("Answered by mistral-small")
        assert ("/v1/chat/completions", "mistral-small") in models.requests
        assert_fits_width(page)
        shot("answered-by-the-picked-model")
        page.reload()  # the choice and the label stay
        expect(page.locator("#model-choice")).to_have_value(re.compile(r":mistral-small$"))
        expect(page.locator("article.msg-assistant .msg-model").last).to_have_text(
            "Answered by mistral-small"
        )

    page.goto(f"{server}/connections/")
    page.get_by_role("button", name="Test Lab").click()
    expect(
        page.get_by_text(re.compile(r"^Lab: Cannot reach http://127\.0\.0\.1:\d+/v1: "))
    ).to_be_visible()
    expect(page.locator("article.connection .badge.err")).to_have_text("Not working")
    assert_fits_width(page)
    shot("server-gone")


def test_people_who_are_not_staff_are_told_to_ask_their_administrator(
    page: Page, server: str, settings: Any
) -> None:
    settings.ANTHROPIC_API_KEY = ""
    settings.CAIRN_LLM_BASE_URL = ""
    log_in(page, server, email="member@example.com")
    start_conversation(page)
    expect(page.locator("#offline-banner")).to_contain_text("ask your administrator")
    expect(page.locator("#model-picker").get_by_role("link", name="Connections")).to_have_count(0)
    response = page.goto(f"{server}/connections/")
    assert response is not None
    assert response.status == 404
