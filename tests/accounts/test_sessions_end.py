"""Sessions end everywhere (issue 29): logout and a password change close the user's open
sockets (chat and events), and a password change revokes the user's API tokens.

Before, a chat socket opened before logout, or before a password change elsewhere, kept
running full turns, the events socket kept answering, and API tokens survived the change.
The sockets are the real ASGI application's, over the configured channel layer (Redis
when REDIS_URL is set, as in CI)."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from rest_framework.test import APIClient

from apps.accounts.models import ApiToken, User
from apps.accounts.services import api_token_create, api_token_user
from apps.accounts.sessions import CLOSE_SESSION_CHANGED, CLOSE_UNAUTHENTICATED
from apps.chat.models import Conversation
from apps.projects.services import project_chosen_or_personal
from config.asgi import application
from tests.factories import DEFAULT_PASSWORD, UserFactory

ORIGIN = (b"origin", b"http://localhost")
NEW_PASSWORD = "a brand new harbour light 42"


def signed_in(user: User) -> Client:
    """A browser signed in as ``user``: a session of its own."""
    client = Client()
    client.force_login(user)
    return client


def cookie_of(client: Client) -> bytes:
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def socket(path: str, client: Client) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(
        application, path, headers=[ORIGIN, (b"cookie", cookie_of(client))]
    )
    connected, code = await communicator.connect()
    assert connected, f"refused with {code}"
    if path == "/ws/events/":
        assert (await communicator.receive_json_from())["type"] == "hello"
    return communicator


async def closed_with(communicator: WebsocketCommunicator) -> int | None:
    """The close code the server sent (None if it sent something else instead)."""
    output = await communicator.receive_output(timeout=10)
    return output.get("code") if output["type"] == "websocket.close" else None


async def refused_with(path: str, client: Client) -> int | None:
    communicator = WebsocketCommunicator(
        application, path, headers=[ORIGIN, (b"cookie", cookie_of(client))]
    )
    await communicator.connect()
    return await closed_with(communicator)


def conversation_of(user: User) -> str:
    project = project_chosen_or_personal(user=user, project_id=None)
    return str(Conversation.objects.create(user=user, project=project, title="Talk").pk)


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_logout_closes_that_sessions_sockets_and_no_other() -> None:
    user, stranger = await sync_to_async(UserFactory)(), await sync_to_async(UserFactory)()
    here, elsewhere = await sync_to_async(signed_in)(user), await sync_to_async(signed_in)(user)
    theirs = await sync_to_async(signed_in)(stranger)
    chat = f"/ws/chat/{await sync_to_async(conversation_of)(user)}/"
    chat_here, events_here = await socket(chat, here), await socket("/ws/events/", here)
    events_elsewhere = await socket("/ws/events/", elsewhere)
    events_theirs = await socket("/ws/events/", theirs)

    logout = await sync_to_async(here.post)("/logout/")

    assert logout.status_code == 302
    assert await closed_with(chat_here) == CLOSE_UNAUTHENTICATED
    assert await closed_with(events_here) == CLOSE_UNAUTHENTICATED
    # The session signed in elsewhere, and another user's, go on.
    for still_open in (events_elsewhere, events_theirs):
        await still_open.send_json_to({"type": "ping"})
        assert await still_open.receive_json_from() == {"type": "pong"}
        await still_open.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_password_change_ends_the_other_sessions_sockets_and_keeps_its_own() -> None:
    user = await sync_to_async(UserFactory)()
    here, elsewhere = await sync_to_async(signed_in)(user), await sync_to_async(signed_in)(user)
    chat = f"/ws/chat/{await sync_to_async(conversation_of)(user)}/"
    events_here, chat_elsewhere = await socket("/ws/events/", here), await socket(chat, elsewhere)

    changed = await sync_to_async(here.post)(
        "/accounts/password/",
        {
            "old_password": DEFAULT_PASSWORD,
            "new_password1": NEW_PASSWORD,
            "new_password2": NEW_PASSWORD,
        },
    )

    assert changed.status_code == 302
    # Every socket of the user is told to connect again: the handshake decides.
    assert await closed_with(events_here) == CLOSE_SESSION_CHANGED
    assert await closed_with(chat_elsewhere) == CLOSE_SESSION_CHANGED
    again_here = await socket("/ws/events/", here)  # the session that changed it stays
    assert await refused_with(chat, elsewhere) == CLOSE_UNAUTHENTICATED
    # and the other session's pages ask it to sign in again.
    assert (await sync_to_async(elsewhere.get)("/accounts/settings/")).status_code == 302
    assert (await sync_to_async(here.get)("/accounts/settings/")).status_code == 200
    await again_here.disconnect()


@pytest.mark.django_db
def test_a_password_change_revokes_the_users_api_tokens_and_says_so(
    client: Client, user: User, other_user: User
) -> None:
    _, key = api_token_create(user=user, name="laptop")
    _, their_key = api_token_create(user=other_user, name="theirs")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get("/api/v1/projects/").status_code == 200
    client.force_login(user)

    client.post(
        "/accounts/password/",
        {
            "old_password": DEFAULT_PASSWORD,
            "new_password1": NEW_PASSWORD,
            "new_password2": NEW_PASSWORD,
        },
    )

    assert api.get("/api/v1/projects/").status_code == 401
    assert api_token_user(key=key) is None  # the MCP endpoint's lookup too
    assert api_token_user(key=their_key) == other_user
    listing = client.get("/accounts/tokens/").content.decode()
    assert "laptop" in listing
    assert "Revoked when the account&#x27;s password was changed." in listing
    done = client.get("/accounts/password/done/").content.decode()
    assert "Your API tokens were revoked" in done


@pytest.mark.django_db
def test_every_door_that_changes_a_password_revokes_the_tokens(user: User) -> None:
    tokens = [api_token_create(user=user, name=name)[0] for name in ("a", "b")]

    user.set_password(NEW_PASSWORD)  # what the admin's form, a reset and the command do
    user.save()

    assert all(ApiToken.objects.get(pk=token.pk).revoked_at is not None for token in tokens)


@pytest.mark.django_db
def test_a_token_made_after_the_change_works(user: User) -> None:
    user.set_password(NEW_PASSWORD)
    user.save()
    _, key = api_token_create(user=user, name="new laptop")

    user.save()  # any later save without a new password revokes nothing

    assert api_token_user(key=key) == user
