"""Settings → Sessions (issue 30): each signed-in browser is listed with what it was and
when it was last seen; one can be signed out, or all but this one. Another user's
session answers 404, and a password change signs the other browsers out."""

from __future__ import annotations

import uuid

import pytest
from django.test import Client

from apps.accounts.models import User, UserSession
from apps.accounts.sessions import device_label
from tests.factories import DEFAULT_PASSWORD, UserFactory

pytestmark = pytest.mark.django_db
FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0"
IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"
)
NEW_PASSWORD = "a brand new harbour light 42"


def browser_of(user: User, agent: str) -> Client:
    """A browser signed in as ``user`` that has loaded a page (so it is noted)."""
    client = Client(HTTP_USER_AGENT=agent)
    client.force_login(user)
    assert client.get("/accounts/settings/").status_code == 200
    return client


def signed_in(client: Client) -> bool:
    return client.get("/accounts/settings/").status_code == 200


def test_settings_lists_each_browser_this_one_first() -> None:
    user: User = UserFactory.create()
    browser_of(user, IPHONE)
    desk = browser_of(user, FIREFOX)

    page = desk.get("/accounts/settings/").content.decode()

    assert page.index("Firefox on Windows") < page.index("Safari on iPhone")
    assert "This browser" in page
    assert "from 127.0.0.1" in page
    assert UserSession.objects.filter(user=user).count() == 2


def test_one_browser_is_signed_out_from_another() -> None:
    user: User = UserFactory.create()
    phone = browser_of(user, IPHONE)
    desk = browser_of(user, FIREFOX)
    row = UserSession.objects.get(user=user, user_agent=IPHONE)

    response = desk.post(f"/accounts/sessions/{row.pk}/sign-out/")

    assert response.status_code == 302
    page = desk.get(response["Location"]).content.decode()
    assert "Signed that browser out." in page
    assert "Safari on iPhone" not in page
    assert not signed_in(phone)


def test_sign_out_everywhere_else_keeps_this_browser() -> None:
    user: User = UserFactory.create()
    others = [browser_of(user, IPHONE), browser_of(user, "curl/8")]
    desk = browser_of(user, FIREFOX)

    desk.post("/accounts/sessions/sign-out-others/")

    assert not any(signed_in(other) for other in others)
    assert signed_in(desk)
    assert list(UserSession.objects.filter(user=user).values_list("user_agent", flat=True)) == [
        FIREFOX
    ]


def test_another_users_session_answers_like_a_missing_one() -> None:
    owner: User = UserFactory.create()
    theirs = browser_of(UserFactory.create(), IPHONE)
    mine = browser_of(owner, FIREFOX)
    their_row = UserSession.objects.get(user_agent=IPHONE)

    refused = mine.post(f"/accounts/sessions/{their_row.pk}/sign-out/")
    missing = mine.post(f"/accounts/sessions/{uuid.uuid4()}/sign-out/")

    assert refused.status_code == missing.status_code == 404
    assert signed_in(theirs)


def test_a_password_change_signs_the_other_browsers_out() -> None:
    user: User = UserFactory.create()
    phone = browser_of(user, IPHONE)
    desk = browser_of(user, FIREFOX)

    response = desk.post(
        "/accounts/password/",
        {
            "old_password": DEFAULT_PASSWORD,
            "new_password1": NEW_PASSWORD,
            "new_password2": NEW_PASSWORD,
        },
    )

    assert response.status_code == 302, response.content.decode()[:2000]
    assert not signed_in(phone)
    assert signed_in(desk)
    assert list(UserSession.objects.filter(user=user).values_list("user_agent", flat=True)) == [
        FIREFOX
    ]


@pytest.mark.parametrize(
    ("agent", "label"),
    [(FIREFOX, "Firefox on Windows"), (IPHONE, "Safari on iPhone"), ("", "Unknown browser")],
)
def test_the_device_is_named_in_words(agent: str, label: str) -> None:
    assert device_label(agent) == label
