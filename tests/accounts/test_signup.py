from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from apps.accounts.models import MemoryMode, User
from apps.projects.models import Project
from tests.factories import DEFAULT_PASSWORD

pytestmark = pytest.mark.django_db

STRONG = "a quiet pebble 42 river"


def signup(client: Client, **overrides: str):  # type: ignore[no-untyped-def]
    data = {
        "email": "new@example.com",
        "display_name": "New",
        "password1": STRONG,
        "password2": STRONG,
        **overrides,
    }
    return client.post(reverse("accounts:signup"), data)


def test_signup_lands_on_the_empty_chat_page_with_a_personal_project(client: Client) -> None:
    response = signup(client)

    assert response.status_code == 302
    assert response["Location"] == reverse("chat:home")
    user = User.objects.get(email="new@example.com")
    assert user.memory_mode == MemoryMode.SUGGEST
    assert list(Project.objects.filter(owner=user).values_list("name", flat=True)) == ["Personal"]
    page = client.get(reverse("chat:home"))
    assert page.status_code == 200
    assert b"No conversations yet" in page.content


def test_signup_with_a_taken_email_shows_a_form_error(client: Client, user: User) -> None:
    response = signup(client, email=user.email.upper())

    assert response.status_code == 200
    assert "already exists" in response.content.decode()
    assert User.objects.filter(email__iexact=user.email).count() == 1


@pytest.mark.parametrize("password", ["short", "password123", "12345678901"])
def test_signup_with_a_weak_password_shows_a_form_error(client: Client, password: str) -> None:
    response = signup(client, password1=password, password2=password)

    assert response.status_code == 200
    assert response.context["form"].errors["password1"]
    assert not User.objects.filter(email="new@example.com").exists()


def test_signup_with_different_passwords_is_refused(client: Client) -> None:
    response = signup(client, password2=STRONG + "x")

    assert response.context["form"].errors["password2"] == ["The two passwords differ."]
    assert not User.objects.exists()


def test_login_with_email_then_logout(client: Client, user: User) -> None:
    assert client.get(reverse("login")).status_code == 200

    response = client.post(reverse("login"), {"username": user.email, "password": DEFAULT_PASSWORD})
    assert response.status_code == 302
    assert client.get(reverse("accounts:settings")).status_code == 200

    client.post(reverse("logout"))
    assert client.get(reverse("accounts:settings")).status_code == 302


def test_a_wrong_password_does_not_log_in(client: Client, user: User) -> None:
    response = client.post(reverse("login"), {"username": user.email, "password": "nope"})

    assert response.status_code == 200
    assert "_auth_user_id" not in client.session


@pytest.mark.parametrize(
    "name",
    [
        "chat:imports",  # "chat:home" is the visitors' front page (issue 18)
        "knowledge:home",
        "files:home",
        "facts:home",
        "accounts:settings",
        "accounts:tokens",
        "accounts:password_change",
    ],
)
def test_pages_require_login(client: Client, name: str) -> None:
    response = client.get(reverse(name))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_settings_page_changes_the_memory_mode(client: Client, user: User) -> None:
    client.force_login(user)

    response = client.post(
        reverse("accounts:settings"), {"display_name": "Alice", "memory_mode": "auto"}
    )

    assert response.status_code == 302
    user.refresh_from_db()
    assert (user.display_name, user.memory_mode) == ("Alice", "auto")


def test_settings_page_refuses_an_unknown_memory_mode(client: Client, user: User) -> None:
    client.force_login(user)

    response = client.post(reverse("accounts:settings"), {"display_name": "", "memory_mode": "x"})

    assert response.status_code == 200
    assert response.context["form"].errors["memory_mode"]
    user.refresh_from_db()
    assert user.memory_mode == "suggest"


def test_password_change(client: Client, user: User) -> None:
    client.force_login(user)

    response = client.post(
        reverse("accounts:password_change"),
        {
            "old_password": DEFAULT_PASSWORD,
            "new_password1": STRONG,
            "new_password2": STRONG,
        },
    )

    assert response.status_code == 302
    user.refresh_from_db()
    assert user.check_password(STRONG)
