"""Every door that starts a turn or a conversation follows one rule (issue 27): the
websocket and ``POST /api/v1/conversations/<id>/messages/`` share the rate limit and the
input rules, and the page, REST and the page's own API reuse an empty conversation alike."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.chat.models import Conversation, Message
from apps.chat.services import conversation_create, message_append
from tests.chat.helpers import connect, events_until, of_type

pytestmark = pytest.mark.django_db(transaction=True)

TOO_MANY_CLAIMS = "'attached_claim_ids' holds at most 50 claims; 51 were sent."
LONG_TOPIC = "'fact_topic' holds at most 100 characters."


@pytest.fixture
def one_turn_an_hour(settings: Any) -> None:
    """A limit of one turn, counted in a cache of this test's own."""
    settings.CAIRN_CHAT_RATE_LIMIT = "1/3600"
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"turn-doors-{uuid.uuid4()}",
        }
    }


def _post(client: APIClient, conversation: Conversation, **body: Any) -> Any:
    return client.post(f"/api/v1/conversations/{conversation.id}/messages/", body, format="json")


@pytest.mark.usefixtures("one_turn_an_hour")
def test_the_rest_door_is_rate_limited_with_429_and_retry_after(
    token_client: APIClient, user: User
) -> None:
    conversation = conversation_create(user=user)

    first = _post(token_client, conversation, text="What do I drink?")
    second = _post(token_client, conversation, text="And what do I eat?")

    assert first.status_code == 201
    assert second.status_code == 429
    assert 1 <= int(second["Retry-After"]) <= 3600
    body = second.json()
    assert (body["saved"], body["code"]) == (False, "rate_limited")
    assert body["detail"].startswith("Too many messages at once; wait ")
    assert [m.content for m in Message.objects.filter(role="user")] == ["What do I drink?"]


@pytest.mark.asyncio
@pytest.mark.usefixtures("one_turn_an_hour")
async def test_a_rest_turn_counts_against_the_websocket_too(
    token_client: APIClient, user: User
) -> None:
    conversation = await sync_to_async(conversation_create)(user=user)
    posted = await sync_to_async(_post)(token_client, conversation, text="First, over REST")
    assert posted.status_code == 201
    ws = await connect(user, conversation.id)

    await ws.send_json_to({"type": "message", "text": "Second, over the socket"})
    event = await ws.receive_json_from(timeout=30)

    assert (event["type"], event["code"]) == ("error", "rate_limited")
    assert 1 <= event["retry_after"] <= 3600
    assert event["message"].startswith("Too many messages at once; wait ")
    await ws.disconnect()


@pytest.mark.parametrize(
    ("field", "body", "words"),
    [
        (
            "attached_claim_ids",
            {"attached_claim_ids": [str(uuid.uuid4()) for _ in range(51)]},
            TOO_MANY_CLAIMS,
        ),
        ("fact_topic", {"fact_topic": "t" * 101}, LONG_TOPIC),
        ("attached_claim_ids", {"attached_claim_ids": "abc"}, "must be a list of claim ids"),
    ],
)
@pytest.mark.asyncio
async def test_the_socket_and_rest_refuse_the_same_input_naming_the_field(
    token_client: APIClient, user: User, field: str, body: dict[str, Any], words: str
) -> None:
    conversation = await sync_to_async(conversation_create)(user=user)
    ws = await connect(user, conversation.id)

    await ws.send_json_to({"type": "message", "text": "hi", **body})
    event = await ws.receive_json_from(timeout=30)
    response = await sync_to_async(_post)(token_client, conversation, text="hi", **body)

    assert (event["type"], event["code"], event["field"]) == ("error", "invalid", field)
    assert words in event["message"]
    assert response.status_code == 400
    assert response.json() == {field: [event["message"]]}  # the same words on both doors
    assert not await sync_to_async(Message.objects.exists)()
    await ws.disconnect()


@pytest.mark.asyncio
async def test_fifty_attached_claims_still_start_a_turn(user: User) -> None:
    conversation = await sync_to_async(conversation_create)(user=user)
    ws = await connect(user, conversation.id)

    await ws.send_json_to(
        {
            "type": "message",
            "text": "hi",
            "attached_claim_ids": [str(uuid.uuid4()) for _ in range(50)],
        }
    )
    events = await events_until(ws, "done")

    assert of_type(events, "ack")
    await ws.disconnect()


def test_every_door_gives_back_the_newest_conversation_while_it_is_empty(
    token_client: APIClient, user: User
) -> None:
    page = Client()
    page.force_login(user)
    first = page.post("/c/new/")
    empty = Conversation.objects.get(user=user)
    assert first["Location"].endswith(f"/c/{empty.pk}/")

    assert page.post("/c/new/")["Location"] == first["Location"]
    again = token_client.post("/api/v1/conversations/", {}, format="json")
    assert (again.status_code, again.json()["id"]) == (200, str(empty.pk))
    ui = page.post("/api/ui/conversations", {}, content_type="application/json")
    assert (ui.status_code, ui.json()["id"]) == (200, str(empty.pk))
    assert Conversation.objects.filter(user=user).count() == 1

    message_append(conversation=empty, role=Message.Role.USER, content="Now it has words")
    fresh = token_client.post("/api/v1/conversations/", {}, format="json")
    titled = page.post(
        "/api/ui/conversations", {"title": "Garden"}, content_type="application/json"
    )
    assert fresh.status_code == 201
    assert titled.status_code == 201  # a title asks for a conversation of its own
    assert fresh.json()["id"] != str(empty.pk)
    assert Conversation.objects.filter(user=user).count() == 3
