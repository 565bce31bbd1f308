from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.chat.models import Conversation, Message
from apps.chat.services import conversation_create
from apps.claims.services import claim_create

pytestmark = pytest.mark.django_db(transaction=True)


def test_conversations_are_listed_created_renamed_archived_and_deleted(
    token_client: APIClient, user: User, other_user: User
) -> None:
    conversation_create(user=other_user, title="Not yours")
    created = token_client.post("/api/v1/conversations/", {"title": "Plans"}, format="json")
    assert created.status_code == 201
    conversation_id = created.json()["id"]

    listed = token_client.get("/api/v1/conversations/").json()["results"]
    assert [c["title"] for c in listed] == ["Plans"]
    token_client.patch(
        f"/api/v1/conversations/{conversation_id}/",
        {"title": "Garden plans", "archived": True},
        format="json",
    )
    assert token_client.get("/api/v1/conversations/").json()["results"] == []
    archived = token_client.get("/api/v1/conversations/", {"archived": "1"}).json()["results"]
    assert archived[0]["title"] == "Garden plans"
    assert token_client.delete(f"/api/v1/conversations/{conversation_id}/").status_code == 204
    assert not Conversation.objects.filter(user=user).exists()


def test_another_users_conversation_is_404_on_every_route(
    token_client: APIClient, other_user: User
) -> None:
    theirs = conversation_create(user=other_user, title="Secret")
    base = f"/api/v1/conversations/{theirs.id}"

    assert token_client.get(f"{base}/").status_code == 404
    assert token_client.get(f"{base}/messages/").status_code == 404
    assert token_client.post(f"{base}/messages/", {"text": "hi"}, format="json").status_code == 404
    assert token_client.patch(f"{base}/", {"title": "x"}, format="json").status_code == 404
    assert token_client.post(f"{base}/pins/", {"claim": "1"}, format="json").status_code == 404
    assert token_client.delete(f"{base}/").status_code == 404
    assert Conversation.objects.filter(pk=theirs.pk, title="Secret").exists()
    assert not Message.objects.exists()


def test_posting_a_message_returns_the_complete_answer(token_client: APIClient, user: User) -> None:
    claim_create(user=user, statement="I prefer tea over coffee", friendly_id="tea_pref")
    conversation = conversation_create(user=user)

    response = token_client.post(
        f"/api/v1/conversations/{conversation.id}/messages/",
        {"text": "What do I drink? @tea_pref"},
        format="json",
    )

    assert response.status_code == 201
    body: dict[str, Any] = response.json()
    assert body["user_message"]["content"] == "What do I drink? @tea_pref"
    assert body["answer"]["status"] == "complete"
    assert "[1]" in body["answer"]["content"]
    assert body["references"][0]["kind"] == "claim"
    messages = token_client.get(f"/api/v1/conversations/{conversation.id}/messages/").json()
    assert [m["role"] for m in messages["results"]] == ["user", "assistant"]


def test_a_posted_message_keeps_what_it_changed_in_words(
    token_client: APIClient, user: User
) -> None:
    """Issue 18: the user message carries its notices, so an integration (and the page,
    after a reload) reads "Saved #1 crypto = BTC" and the unknown reference's notice."""
    conversation = conversation_create(user=user)
    url = f"/api/v1/conversations/{conversation.id}/messages/"

    response = token_client.post(url, {"text": "my #1 crypto is BTC @nothing_here"}, format="json")

    assert response.status_code == 201
    notices = response.json()["user_message"]["notices"]
    assert notices[0] == {"kind": "fact", "text": "Saved #1 crypto = BTC"}
    assert notices[1]["kind"] == "notice"
    assert "nothing_here" in notices[1]["text"]
    listed = token_client.get(url).json()["results"][0]
    assert listed["notices"] == notices


def test_bad_messages_are_400_and_save_nothing(token_client: APIClient, user: User) -> None:
    conversation = conversation_create(user=user)
    url = f"/api/v1/conversations/{conversation.id}/messages/"

    assert token_client.post(url, {"text": ""}, format="json").status_code == 400
    assert token_client.post(url, {"text": "x" * 40_000}, format="json").status_code == 400
    assert token_client.post(url, {"text": "a\x00b"}, format="json").status_code == 400
    assert not Message.objects.exists()


def test_pins_by_number_and_unpin(token_client: APIClient, user: User, other_user: User) -> None:
    claim = claim_create(user=user, statement="Pin me")
    claim_create(user=other_user, statement="Theirs")
    conversation = conversation_create(user=user)
    base = f"/api/v1/conversations/{conversation.id}/pins/"

    assert token_client.post(base, {"claim": "#1"}, format="json").json()["pinned_claim_ids"] == [
        str(claim.id)
    ]
    assert token_client.delete(f"{base}1/").json()["pinned_claim_ids"] == []
    assert token_client.post(base, {"claim": "#2"}, format="json").status_code == 404


def test_transcript_import_returns_message_ids_in_order(
    token_client: APIClient, user: User
) -> None:
    transcript = {
        "title": "Trip",
        "messages": [
            {
                "role": "user",
                "content": "We went to Lisbon last May.",
                "created_at": "2025-06-01T10:00:00Z",
            },
            {
                "role": "assistant",
                "content": "That sounds lovely!",
                "created_at": "2025-06-01T10:00:05Z",
            },
            {"role": "user", "content": "Yes, last May!"},
        ],
    }

    response = token_client.post("/api/v1/conversations/import/", transcript, format="json")

    assert response.status_code == 201
    ids = response.json()["message_ids"]
    stored = Message.objects.filter(conversation_id=response.json()["conversation"])
    assert [str(m.id) for m in stored.order_by("order")] == ids
    assert stored.get(order=1).content == "We went to Lisbon last May."
    assert stored.get(order=1).created_at.isoformat().startswith("2025-06-01T10:00:00")


def test_a_bad_transcript_writes_nothing(token_client: APIClient, user: User) -> None:
    bad = {"messages": [{"role": "user", "content": "ok"}, {"role": "system", "content": "x"}]}

    assert token_client.post("/api/v1/conversations/import/", bad, format="json").status_code == 400
    assert (
        token_client.post(
            "/api/v1/conversations/import/", {"messages": []}, format="json"
        ).status_code
        == 400
    )
    assert not Conversation.objects.filter(user=user).exists()
