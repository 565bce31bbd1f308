from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from apps.accounts.models import ApiToken, User
from apps.accounts.services import api_token_create
from tests.factories import DEFAULT_PASSWORD

pytestmark = pytest.mark.django_db

TOKEN_URL = "/api/v1/auth/token/"


def test_email_and_password_trade_for_a_token_that_authenticates(
    api_client: APIClient, user: User
) -> None:
    response = api_client.post(
        TOKEN_URL, {"email": user.email, "password": DEFAULT_PASSWORD}, format="json"
    )

    assert response.status_code == 201
    key = response.json()["token"]
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    projects = api_client.get("/api/v1/projects/")
    assert projects.status_code == 200
    # Only a hash is stored: the key itself cannot be read back from the database.
    assert not ApiToken.objects.filter(key_hash=key).exists()


def test_a_wrong_password_gets_no_token(api_client: APIClient, user: User) -> None:
    response = api_client.post(TOKEN_URL, {"email": user.email, "password": "wrong"}, format="json")

    assert response.status_code == 400
    assert response.json()["detail"] == "E-mail or password is wrong."
    assert not ApiToken.objects.exists()


def test_malformed_json_answers_400_with_a_message(api_client: APIClient) -> None:
    response = api_client.generic("POST", TOKEN_URL, '{"email": ', content_type="application/json")

    assert response.status_code == 400
    assert "JSON parse error" in response.json()["detail"]


def test_api_without_credentials_answers_401(api_client: APIClient) -> None:
    assert api_client.get("/api/v1/projects/").status_code == 401


def test_an_invalid_or_revoked_token_answers_401(api_client: APIClient, user: User) -> None:
    token, key = api_token_create(user=user, name="ci")
    token.delete()
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {key}")

    assert api_client.get("/api/v1/projects/").status_code == 401


def test_tokens_page_shows_a_new_key_once_and_revokes(client: Client, user: User) -> None:
    client.force_login(user)

    created = client.post(reverse("accounts:tokens"), {"name": "laptop"})
    key = created.context["new_key"]
    assert key
    assert key in created.content.decode()
    listing = client.get(reverse("accounts:tokens")).content.decode()
    assert "laptop" in listing
    assert key not in listing

    token = ApiToken.objects.get(user=user)
    client.post(reverse("accounts:token_revoke", args=[token.id]))
    assert not ApiToken.objects.filter(id=token.id).exists()


def test_revoking_another_users_token_does_nothing(
    client: Client, user: User, other_user: User
) -> None:
    theirs, _ = api_token_create(user=other_user, name="theirs")
    client.force_login(user)

    client.post(reverse("accounts:token_revoke", args=[theirs.id]))

    assert ApiToken.objects.filter(id=theirs.id).exists()


def test_ui_api_me_uses_the_session(client: Client, user: User) -> None:
    assert client.get("/api/ui/me").status_code == 401
    client.force_login(user)

    response = client.get("/api/ui/me")

    assert response.status_code == 200
    assert response.json()["email"] == user.email
    assert response.json()["memory_mode"] == "suggest"
