"""Saying "saved" only when it is (issue 26), on the websocket and the REST turn: the
database's failure is injected where the pipeline writes (the drills in
tests/faults/test_database_drills.py stop a real PostgreSQL instead)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.db import OperationalError
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.chat.models import Conversation, Message
from apps.chat.services import conversation_create, message_append
from tests.chat.helpers import connect, events_until, of_type
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def failing(times: int) -> Callable[..., Message]:
    """``message_append`` that fails as a lost connection does, ``times`` times, then works."""
    calls = {"n": 0}

    def append(**kwargs: Any) -> Message:
        calls["n"] += 1
        if calls["n"] <= times:
            raise OperationalError("server closed the connection unexpectedly")
        return message_append(**kwargs)

    return append


async def _conversation() -> tuple[User, Conversation]:
    user = await sync_to_async(UserFactory)()
    return user, await sync_to_async(conversation_create)(user=user)


async def _rows(conversation: Conversation) -> list[tuple[str, str]]:
    return await sync_to_async(
        lambda: [(m.role, m.content) for m in conversation.messages.order_by("order")]
    )()


@pytest.mark.asyncio
async def test_a_message_that_did_not_commit_is_told_not_saved_and_never_acknowledged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("apps.chat.pipeline.prepare.message_append", failing(1))
    user, conversation = await _conversation()
    ws = await connect(user, conversation.id)

    await ws.send_json_to({"type": "message", "text": "Remember my locker is 42"})
    event = await ws.receive_json_from(timeout=30)

    assert event == {
        "type": "error",
        "code": "not_saved",
        "message": "Your message was not saved: the database could not be reached.",
    }
    assert await _rows(conversation) == []
    # The same socket goes on: the resend is saved and answered.
    await ws.send_json_to({"type": "message", "text": "Remember my locker is 42"})
    events = await events_until(ws, "done")
    assert of_type(events, "ack")
    assert [role for role, _ in await _rows(conversation)] == ["user", "assistant"]
    await ws.disconnect()


@pytest.mark.asyncio
async def test_a_failure_after_the_commit_says_the_message_was_saved(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(**kwargs: Any) -> None:
        raise OperationalError("the connection dropped")

    monkeypatch.setattr("apps.chat.pipeline.prepare.record_notices", broken)
    user, conversation = await _conversation()
    ws = await connect(user, conversation.id)

    await ws.send_json_to({"type": "message", "text": "What is my locker?"})
    event = await ws.receive_json_from(timeout=30)

    assert event["code"] == "internal"
    assert event["message"].startswith("Your message was saved")
    assert await _rows(conversation) == [("user", "What is my locker?")]
    await ws.disconnect()


@pytest.mark.asyncio
async def test_the_answers_save_is_retried_through_a_short_outage(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("apps.chat.pipeline.saving.ANSWER_SAVE_DELAYS", (0.01, 0.01, 0.01))
    monkeypatch.setattr("apps.chat.pipeline.finish.message_append", failing(2))
    user, conversation = await _conversation()
    ws = await connect(user, conversation.id)

    await ws.send_json_to({"type": "message", "text": "Hello there"})
    events = await events_until(ws, "done")

    assert not of_type(events, "error")
    assert not of_type(events, "answer_unsaved")
    rows = await _rows(conversation)
    assert [role for role, _ in rows] == ["user", "assistant"]  # one answer, not three
    assert rows[1][1] == of_type(events, "done")[0]["message"]["content"]
    await ws.disconnect()


@pytest.mark.asyncio
async def test_an_answer_that_could_not_be_saved_is_kept_and_saved_again_on_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("apps.chat.pipeline.saving.ANSWER_SAVE_DELAYS", (0.01, 0.01))
    monkeypatch.setattr("apps.chat.pipeline.finish.message_append", failing(3))
    user, conversation = await _conversation()
    ws = await connect(user, conversation.id)

    await ws.send_json_to({"type": "message", "text": "Hello there"})
    events = await events_until(ws, "answer_unsaved")

    unsaved = of_type(events, "answer_unsaved")[0]
    streamed = "".join(e["text"] for e in of_type(events, "delta"))
    assert unsaved["content"].startswith(streamed.strip()[:20])
    assert unsaved["message"].startswith(
        "The answer was not saved: the database could not be reached"
    )
    assert of_type(events, "ack")  # the question itself is saved
    assert [role for role, _ in await _rows(conversation)] == ["user"]

    await ws.send_json_to({"type": "save_answer", "id": unsaved["id"]})
    saved = await events_until(ws, "answer_saved")

    message = saved[-1]["message"]
    assert message["id"] == unsaved["id"]
    assert message["content"] == unsaved["content"]
    assert await _rows(conversation) == [("user", "Hello there"), ("assistant", unsaved["content"])]
    # Saved once: asking again is refused, not a second row.
    await ws.send_json_to({"type": "save_answer", "id": unsaved["id"]})
    assert (await ws.receive_json_from())["code"] == "invalid"
    await ws.disconnect()


def test_the_rest_turn_says_503_not_saved_when_the_message_did_not_commit(
    token_client: APIClient, user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("apps.chat.pipeline.prepare.message_append", failing(1))
    conversation = conversation_create(user=user)

    response = token_client.post(
        f"/api/v1/conversations/{conversation.id}/messages/", {"text": "Hi"}, format="json"
    )

    assert response.status_code == 503
    assert response.json() == {
        "saved": False,
        "code": "not_saved",
        "detail": "Your message was not saved: the database could not be reached.",
    }
    assert not conversation.messages.exists()


def test_the_rest_turn_returns_an_unsaved_answer_marked_as_such(
    token_client: APIClient, user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("apps.chat.pipeline.saving.ANSWER_SAVE_DELAYS", (0.01,))
    monkeypatch.setattr("apps.chat.pipeline.finish.message_append", failing(2))
    conversation = conversation_create(user=user)

    response = token_client.post(
        f"/api/v1/conversations/{conversation.id}/messages/", {"text": "Hi"}, format="json"
    )

    body = response.json()
    assert response.status_code == 201
    assert body["saved"] is False
    assert body["detail"].startswith("Your message was saved; its answer was not")
    assert body["answer"]["saved"] is False
    assert body["answer"]["content"]
    assert body["user_message"]["content"] == "Hi"
    assert list(conversation.messages.values_list("role", flat=True)) == ["user"]


def test_a_saved_rest_turn_says_so(token_client: APIClient, user: User) -> None:
    conversation = conversation_create(user=user)

    body = token_client.post(
        f"/api/v1/conversations/{conversation.id}/messages/", {"text": "Hi"}, format="json"
    ).json()

    assert body["saved"] is True
    assert body["answer"]["saved"] is True
    assert conversation.messages.count() == 2
