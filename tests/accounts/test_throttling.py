"""Login throttling per account and per address, with a lock-out that expires (issue 15)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.core.cache import cache
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from apps.accounts.models import User
from tests.factories import DEFAULT_PASSWORD, UserFactory

pytestmark = pytest.mark.django_db
LIMIT = 5


def _login(client: Client, email: str, password: str) -> int:
    response = client.post("/login/", {"username": email, "password": password})
    return response.status_code


def test_an_account_guessed_at_is_locked_even_for_the_right_password(user: User) -> None:
    client = Client()
    for _ in range(LIMIT - 1):
        assert _login(client, user.email, "wrong password") == 200  # the form again
    assert _login(client, user.email, "wrong password") == 429  # the fifth failure locks

    # From another address too: the account itself is locked
    elsewhere = Client(REMOTE_ADDR="10.9.8.7")
    response = elsewhere.post("/login/", {"username": user.email, "password": DEFAULT_PASSWORD})

    assert response.status_code == 429
    assert "Too many failed logins for this account or from this address." in (
        response.content.decode()
    )
    assert "Try again in 15 minutes." in response.content.decode()
    assert response["Retry-After"] == "900"
    assert "_auth_user_id" not in elsewhere.session


def test_the_lock_out_ends_after_the_cool_off(user: User) -> None:
    client = Client()
    for _ in range(LIMIT):
        _login(client, user.email, "wrong password")
    assert _login(client, user.email, DEFAULT_PASSWORD) == 429

    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=16))

    assert _login(client, user.email, DEFAULT_PASSWORD) == 302  # logged in, redirected


def test_one_address_guessing_at_many_accounts_is_stopped() -> None:
    accounts = UserFactory.create_batch(LIMIT + 1)
    client = Client(REMOTE_ADDR="10.1.2.3")
    for account in accounts[:LIMIT]:
        _login(client, account.email, "wrong password")

    assert _login(client, accounts[-1].email, DEFAULT_PASSWORD) == 429
    # another address logs into that account as usual
    assert _login(Client(REMOTE_ADDR="10.1.2.4"), accounts[-1].email, DEFAULT_PASSWORD) == 302


def test_a_success_before_the_limit_starts_the_count_again(user: User) -> None:
    client = Client()
    for _ in range(LIMIT - 1):
        _login(client, user.email, "wrong password")
    assert _login(client, user.email, DEFAULT_PASSWORD) == 302
    client.logout()

    for _ in range(LIMIT - 1):
        _login(client, user.email, "wrong password")
    assert _login(client, user.email, DEFAULT_PASSWORD) == 302


def test_the_token_endpoint_is_throttled_the_same_way_and_answers_json(user: User) -> None:
    client = APIClient()
    for attempt in range(LIMIT):
        refused = client.post(
            "/api/v1/auth/token/",
            {"email": user.email, "password": "wrong", "name": "script"},
            format="json",
        )
        assert refused.status_code == (400 if attempt < LIMIT - 1 else 429)

    response = client.post(
        "/api/v1/auth/token/",
        {"email": user.email, "password": DEFAULT_PASSWORD, "name": "script"},
        format="json",
    )

    assert response.status_code == 429
    assert response.json() == {
        "detail": "Too many failed logins for this account or from this address. "
        "Try again in 15 minutes."
    }


def test_sign_ups_from_one_address_are_limited(settings: object) -> None:
    settings.CAIRN_SIGNUP_RATE = "3/h"  # type: ignore[attr-defined]
    cache.clear()
    client = Client(REMOTE_ADDR="10.5.5.5")

    def sign_up(n: int) -> int:
        response = client.post(
            "/accounts/signup/",
            {
                "email": f"new{n}@example.com",
                "display_name": "New",
                "password1": "a long pass phrase 42",
                "password2": "a long pass phrase 42",
            },
        )
        client.logout()
        return response.status_code

    assert [sign_up(n) for n in range(3)] == [302, 302, 302]
    response = client.post(
        "/accounts/signup/",
        {
            "email": "one-more@example.com",
            "display_name": "New",
            "password1": "a long pass phrase 42",
            "password2": "a long pass phrase 42",
        },
    )

    assert response.status_code == 429
    assert "Too many new accounts from this address. Try again later." in response.content.decode()
    assert not User.objects.filter(email="one-more@example.com").exists()
    assert Client(REMOTE_ADDR="10.5.5.6").get("/accounts/signup/").status_code == 200
