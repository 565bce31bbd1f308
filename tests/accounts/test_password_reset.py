"""Account recovery (issue 30): a reset link by e-mail, /accounts/login/ leads to the login
page, and a reset ends the account's sessions and API tokens. E-mail goes to Django's
in-memory outbox here; tests/browser/test_password_reset.py sends it through a real SMTP
server."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.accounts.services import api_token_create
from tests.factories import DEFAULT_PASSWORD, UserFactory

pytestmark = pytest.mark.django_db
NEW_PASSWORD = "a brand new harbour light 42"
LINK = re.compile(r"https?://[^\s]+/accounts/password/reset/[^\s]+/")


def test_accounts_login_leads_to_the_login_page_keeping_next(client: Client) -> None:
    response = client.get("/accounts/login/?next=/knowledge/lists/")

    assert response.status_code == 302
    assert response["Location"] == "/login/?next=/knowledge/lists/"


def test_the_login_page_offers_a_reset(client: Client) -> None:
    page = client.get("/login/").content.decode()

    assert 'href="/accounts/password/reset/">Forgot password?</a>' in page


def _request_reset(client: Client, email: str) -> str:
    response = client.post("/accounts/password/reset/", {"email": email})
    assert response.status_code == 302
    return client.get(response["Location"]).content.decode()


def test_a_reset_link_by_mail_sets_a_new_password_and_revokes_tokens(client: Client) -> None:
    user: User = UserFactory.create(email="lost@example.com")
    _, old_key = api_token_create(user=user, name="Laptop")
    elsewhere = Client()
    elsewhere.force_login(user)
    assert elsewhere.get("/accounts/settings/").status_code == 200

    page = _request_reset(client, "Lost@Example.com")

    assert "Check your e-mail" in page
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["lost@example.com"]
    assert message.subject == "Reset your Cairn password"
    link = LINK.search(message.body)
    assert link is not None, message.body
    form_page = client.get(link.group(0), follow=True)
    assert "Choose a new password" in form_page.content.decode()
    done = client.post(
        form_page.redirect_chain[-1][0],
        {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert done.status_code == 302
    assert done["Location"] == "/accounts/password/reset/done/"

    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)
    assert not user.check_password(DEFAULT_PASSWORD)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {old_key}")
    assert api.get("/api/v1/claims/").status_code == 401
    # The browser signed in before the reset is signed out.
    assert elsewhere.get("/accounts/settings/")["Location"].startswith("/login/")
    # The link works once.
    again = client.get(link.group(0), follow=True).content.decode()
    assert "This link no longer works" in again


def test_an_unknown_address_gets_the_same_answer_and_no_mail(client: Client) -> None:
    page = _request_reset(client, "nobody@example.com")

    assert "Check your e-mail" in page
    assert mail.outbox == []


def test_reset_requests_from_one_address_are_limited(settings: Any) -> None:
    # A cache of this test's own, so no earlier request is counted (and the shared
    # Redis is left alone).
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "reset"}
    }
    settings.CAIRN_RESET_EMAIL_RATE = "2/h"
    UserFactory.create(email="flooded@example.com")
    client = Client(REMOTE_ADDR="10.6.6.6")

    answers = [
        client.post("/accounts/password/reset/", {"email": "flooded@example.com"}) for _ in range(3)
    ]

    assert [answer.status_code for answer in answers] == [302, 302, 429]
    assert "Too many reset requests" in answers[2].content.decode()
    assert len(mail.outbox) == 2
