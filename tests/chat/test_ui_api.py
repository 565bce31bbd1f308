"""The chat page's ninja endpoints under /api/ui/: conversations, pins and "save as memory"."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from apps.accounts.models import User
from apps.chat.models import Conversation, Message
from apps.chat.services import conversation_create, conversation_pin_claim, message_append
from apps.claims.models import Claim, ClaimOrigin
from tests.knowledge_factories import ClaimFactory

pytestmark = pytest.mark.django_db
API = "/api/ui"


@pytest.fixture
def owner(client: Client, user: User) -> Client:
    client.force_login(user)
    return client


@pytest.fixture
def conversation(user: User) -> Conversation:
    return conversation_create(user=user, title="Reading list")


@pytest.fixture
def claim(user: User) -> Claim:
    return ClaimFactory(user=user, statement="I read before bed")


def call(client: Client, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    return getattr(client, method)(
        f"{API}{path}", data=json.dumps(body or {}), content_type="application/json"
    )


# Conversations -----------------------------------------------------------------------------------


def test_list_filters_by_search_and_archive(owner: Client, user: User, other_user: User) -> None:
    books = conversation_create(user=user, title="Books")
    weekend = conversation_create(user=user, title="Weekend")
    message_append(conversation=weekend, role=Message.Role.USER, content="a book about birds")
    old = conversation_create(user=user, title="Old books")
    old.archived = True
    old.save()
    conversation_create(user=other_user, title="Their books")

    found = owner.get(f"{API}/conversations", {"q": "book"}).json()
    archived = owner.get(f"{API}/conversations", {"archived": "true"}).json()

    assert {c["title"] for c in found} == {"Books", "Weekend"}
    assert [c["title"] for c in archived] == ["Old books"]
    assert found[0]["url"] in (f"/c/{books.pk}/", f"/c/{weekend.pk}/")


def test_create_rename_archive_and_delete(owner: Client, user: User) -> None:
    created = call(owner, "post", "/conversations", {"title": "  Plans  "})
    assert created.status_code == 201
    pk = created.json()["id"]

    renamed = call(owner, "patch", f"/conversations/{pk}", {"title": "Summer plans"})
    archived = call(owner, "patch", f"/conversations/{pk}", {"archived": True})

    assert renamed.json()["title"] == "Summer plans"
    assert archived.json()["archived"] is True
    conversation = Conversation.objects.get(pk=pk, user=user)
    assert (conversation.title, conversation.archived) == ("Summer plans", True)
    too_long = call(owner, "patch", f"/conversations/{pk}", {"title": "x" * 201})
    assert too_long.status_code == 400
    assert list(too_long.json()) == ["title"]
    assert call(owner, "delete", f"/conversations/{pk}").status_code == 204
    assert not Conversation.objects.filter(pk=pk).exists()


# Isolation, authentication, CSRF -----------------------------------------------------------------


def test_every_endpoint_answers_404_for_another_users_objects(
    client: Client, other_user: User, conversation: Conversation, claim: Claim
) -> None:
    message = message_append(conversation=conversation, role=Message.Role.USER, content="mine")
    conversation_pin_claim(conversation=conversation, claim=claim)
    client.force_login(other_user)
    c, k, m = conversation.pk, claim.pk, message.pk

    responses = [
        call(client, "patch", f"/conversations/{c}", {"title": "stolen"}),
        call(client, "delete", f"/conversations/{c}"),
        client.get(f"{API}/conversations/{c}/pins"),
        call(client, "post", f"/conversations/{c}/pins", {"claim_id": str(k)}),
        call(client, "delete", f"/conversations/{c}/pins/{k}"),
        call(client, "post", f"/claims/{k}/pin", {"pinned": True}),
        call(client, "post", f"/messages/{m}/remember", {}),
        call(client, "post", f"/conversations/{uuid.uuid4()}/pins", {"claim_id": str(k)}),
    ]

    assert [r.status_code for r in responses] == [404] * len(responses)
    assert client.get(f"{API}/conversations").json() == []
    conversation.refresh_from_db()
    claim.refresh_from_db()
    assert conversation.title == "Reading list"
    assert list(conversation.pinned_claims.all()) == [claim]
    assert claim.pinned is False
    assert not Claim.objects.filter(user=other_user).exists()


def test_their_claim_cannot_be_pinned_into_my_conversation(
    owner: Client, other_user: User, conversation: Conversation
) -> None:
    theirs = ClaimFactory(user=other_user, statement="Their secret")

    response = call(
        owner, "post", f"/conversations/{conversation.pk}/pins", {"claim_id": str(theirs.pk)}
    )

    assert response.status_code == 404
    assert not conversation.pinned_claims.exists()


def test_the_endpoints_need_a_session(client: Client, conversation: Conversation) -> None:
    assert client.get(f"{API}/conversations").status_code == 401
    assert call(client, "post", "/conversations", {}).status_code == 401
    assert call(client, "delete", f"/conversations/{conversation.pk}").status_code == 401


def test_posts_are_refused_without_the_csrf_token(
    user: User, conversation: Conversation, claim: Claim
) -> None:
    message = message_append(conversation=conversation, role=Message.Role.USER, content="hi")
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    client.get("/")  # sets the CSRF cookie, as the page does
    token = client.cookies["csrftoken"].value

    without = [
        call(client, "post", "/conversations", {}),
        call(client, "patch", f"/conversations/{conversation.pk}", {"archived": True}),
        call(client, "post", f"/conversations/{conversation.pk}/pins", {"claim_id": str(claim.pk)}),
        call(client, "post", f"/claims/{claim.pk}/pin", {"pinned": True}),
        call(client, "post", f"/messages/{message.pk}/remember", {}),
        call(client, "delete", f"/conversations/{conversation.pk}"),
    ]
    pinned = client.post(
        f"{API}/claims/{claim.pk}/pin",
        data=json.dumps({"pinned": True}),
        content_type="application/json",
        HTTP_X_CSRFTOKEN=token,
    )

    assert [r.status_code for r in without] == [403] * len(without)
    conversation.refresh_from_db()
    assert not conversation.archived
    assert not conversation.pinned_claims.exists()
    assert not Claim.objects.filter(source_message=message).exists()
    assert pinned.status_code == 200
    claim.refresh_from_db()
    assert claim.pinned is True


# Pins --------------------------------------------------------------------------------------------


def test_pin_to_the_conversation_and_unpin(
    owner: Client, conversation: Conversation, claim: Claim
) -> None:
    pinned = call(
        owner, "post", f"/conversations/{conversation.pk}/pins", {"claim_id": str(claim.pk)}
    )

    assert pinned.status_code == 201
    assert pinned.json()["number"] == claim.number
    assert list(conversation.pinned_claims.all()) == [claim]
    listed = owner.get(f"{API}/conversations/{conversation.pk}/pins").json()
    assert [c["id"] for c in listed] == [str(claim.pk)]

    unpinned = call(owner, "delete", f"/conversations/{conversation.pk}/pins/{claim.pk}")

    assert unpinned.status_code == 204
    assert not conversation.pinned_claims.exists()
    claim.refresh_from_db()
    assert claim.pinned is False  # a conversation pin is not a global one


def test_pin_globally_and_unpin(owner: Client, claim: Claim) -> None:
    on = call(owner, "post", f"/claims/{claim.pk}/pin", {"pinned": True})
    claim.refresh_from_db()
    assert on.json()["pinned"] is True
    assert claim.pinned is True

    call(owner, "post", f"/claims/{claim.pk}/pin", {"pinned": False})
    claim.refresh_from_db()
    assert claim.pinned is False
    refused = call(owner, "post", f"/claims/{claim.pk}/pin", {})
    assert refused.status_code == 400
    assert refused.json() == {"pinned": ["Field required."]}


# Save as memory ----------------------------------------------------------------------------------


def test_an_answer_of_cairns_is_not_saved_as_the_users_memory(
    owner: Client, user: User, conversation: Conversation
) -> None:
    """Only the user's own words (issue 30): the page offers "Save as memory" on their
    messages alone, and the doors refuse an answer alike, naming the message."""
    reply = message_append(
        conversation=conversation,
        role=Message.Role.ASSISTANT,
        content="Your sister lives in Porto [1].\n\n---\n**Sources:**\n[1] #3 · claim",
    )

    response = call(owner, "post", f"/messages/{reply.pk}/remember", {})
    page = owner.post(
        reverse("chat:remember", args=[conversation.pk, reply.pk]), {"statement": "Porto"}
    )

    assert response.status_code == 400
    assert list(response.json()) == ["message"]
    assert "Only your own messages" in response.json()["message"][0]
    assert page.status_code == 302
    assert "Only your own messages" in owner.get(page["Location"]).content.decode()
    assert not Claim.objects.filter(user=user).exists()


def test_remember_an_edited_statement_and_reinforce_a_known_one(
    owner: Client, user: User, conversation: Conversation
) -> None:
    message = message_append(
        conversation=conversation,
        role=Message.Role.USER,
        content="so yeah, I switched to decaf last month",
    )

    first = call(
        owner, "post", f"/messages/{message.pk}/remember", {"statement": "I drink decaf coffee"}
    )
    again = call(
        owner, "post", f"/messages/{message.pk}/remember", {"statement": "I drink decaf coffee."}
    )

    assert (first.status_code, first.json()["created"]) == (201, True)
    assert (again.status_code, again.json()["created"]) == (200, False)
    assert again.json()["claim_id"] == first.json()["claim_id"]
    claim = Claim.objects.get(user=user)
    assert claim.statement == "I drink decaf coffee"
    assert claim.reinforced_count == 1


def test_remember_saves_the_users_words_linked_to_the_message(
    owner: Client, user: User, conversation: Conversation
) -> None:
    said = message_append(
        conversation=conversation, role=Message.Role.USER, content="My sister lives in Porto."
    )

    response = call(owner, "post", f"/messages/{said.pk}/remember", {"statement": "   "})

    assert response.status_code == 201
    saved = response.json()
    claim = Claim.objects.get(user=user)
    assert (saved["number"], saved["friendly_id"]) == (claim.number, claim.friendly_id)
    assert claim.statement == "My sister lives in Porto."
    assert (claim.origin, claim.source_message) == (ClaimOrigin.CHAT, said)
