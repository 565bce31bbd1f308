"""Account recovery end to end (issue 30), desktop and phone: "Forgot password?" on the
login page, the reset e-mail sent through a real SMTP server the test starts (aiosmtpd)
and configured by an EMAIL_URL, its link followed, a new password set and used to log
in; the API token made before the reset is refused."""

from __future__ import annotations

import email
import queue
import re
import socket
from collections.abc import Iterator
from email.message import Message
from typing import Any

import environ
import pytest
from aiosmtpd.controller import Controller
from playwright.sync_api import Page, expect

from apps.accounts.models import User
from apps.accounts.services import api_token_create
from tests.browser.helpers import DESKTOP, PHONE, assert_fits_width
from tests.factories import UserFactory

pytestmark = pytest.mark.browser
NEW_PASSWORD = "a brand new harbour light 42"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Inbox:
    """What the SMTP server received, one parsed message at a time."""

    def __init__(self) -> None:
        self.received: queue.Queue[Message] = queue.Queue()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.received.put(email.message_from_bytes(envelope.content))
        return "250 Message accepted for delivery"

    def next_message(self) -> Message:
        return self.received.get(timeout=20)


@pytest.fixture
def smtp_inbox(settings: Any) -> Iterator[Inbox]:
    """A real SMTP server on a free port, and the site's mail settings pointing at it
    through EMAIL_URL's parser, as a deployment would set them."""
    inbox = Inbox()
    port = _free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    for name, value in environ.Env.email_url_config(f"smtp://127.0.0.1:{port}").items():
        setattr(settings, name, value)
    try:
        yield inbox
    finally:
        controller.stop()


def _body(message: Message) -> str:
    part = message.get_payload(decode=True)
    assert isinstance(part, bytes)
    return part.decode()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_forgotten_password_is_reset_by_mail(
    page: Page, server: str, shot: Any, smtp_inbox: Inbox, viewport: dict[str, int]
) -> None:
    page.set_viewport_size(viewport)
    user: User = UserFactory.create(email="forgetful@example.com")
    _, old_key = api_token_create(user=user, name="Laptop")

    page.goto(f"{server}/accounts/login/?next=/knowledge/")
    expect(page).to_have_url(f"{server}/login/?next=/knowledge/")
    page.get_by_role("link", name="Forgot password?").click()
    page.locator("#id_email").fill("forgetful@example.com")
    assert_fits_width(page)
    shot("ask")
    page.get_by_role("button", name="Send the link").click()
    expect(page.get_by_role("heading", name="Check your e-mail")).to_be_visible()

    message = smtp_inbox.next_message()
    assert message["To"] == "forgetful@example.com"
    assert message["Subject"] == "Reset your Cairn password"
    link = re.search(r"http://\S+/accounts/password/reset/\S+/", _body(message))
    assert link is not None, _body(message)
    page.goto(link.group(0))
    expect(page.get_by_role("heading", name="Choose a new password")).to_be_visible()
    page.locator("#id_new_password1").fill(NEW_PASSWORD)
    page.locator("#id_new_password2").fill(NEW_PASSWORD)
    assert_fits_width(page)
    shot("choose")
    page.get_by_role("button", name="Set the password").click()
    expect(page.get_by_role("heading", name="Password set")).to_be_visible()

    page.get_by_role("link", name="Log in").last.click()
    page.locator("#id_username").fill("forgetful@example.com")
    page.locator("#id_password").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.locator('.mainnav a[aria-current="page"]')).to_have_text("Chat")
    shot("signed-in")
    refused = page.request.get(
        f"{server}/api/v1/claims/", headers={"Authorization": f"Token {old_key}"}
    )
    assert refused.status == 401
