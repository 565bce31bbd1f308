"""Malformed and hostile frames on the chat socket (issue 15): each gets an ``error``
event naming what was wrong, nothing is saved, and the socket stays open."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async

from apps.chat.models import Message
from apps.chat.services import conversation_create
from tests.chat.helpers import connect
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

FRAMES: list[tuple[str, str]] = [
    ('{"type": "message", "text": "hello \\ud800 there"}', "unpaired surrogate"),
    ('{"type": "message", "text": "hello\\u0000"}', "NUL character"),
    ('{"type": "message", "text": "hi", "attached_claim_ids": 5}', "must be a list"),
    ('{"type": "message", "text": "hi", "attached_claim_ids": [{"a": 1}]}', "is not a claim id"),
    ('{"type": "message", "text": "hi", "attached_claim_ids": "abc"}', "must be a list"),
    ('{"type": "message", "text": 42}', "'text' must be a string"),
    ('{"type": "message", "text": "hi", "fact_topic": "\\u0000"}', "NUL character"),
    ('{"type": "message\\u0000"}', "NUL character"),
    ('{"\\ud800": 1}', "unpaired surrogate"),
    ('{"type": "message", "text": "hi", "n": 100000000000000000000}', "Must be between"),
    ("[" * 3000 + "]" * 3000, "Nested too deeply"),
    ('"just a string"', "Unknown event type"),
    ("[1, 2, 3]", "Unknown event type"),
    ("null", "Unknown event type"),
    ("{not json", "Malformed JSON"),
    ('{"type": "dance"}', "Unknown event type"),
]


@sync_to_async
def _setup() -> tuple[Any, Any]:
    user = UserFactory()
    return user, conversation_create(user=user)


@sync_to_async
def _message_count() -> int:
    return Message.objects.count()


async def test_every_malformed_frame_is_answered_and_the_socket_stays_open() -> None:
    user, conversation = await _setup()
    ws = await connect(user, conversation.id)

    for frame, words in FRAMES:
        await ws.send_to(text_data=frame)
        event = await ws.receive_json_from(timeout=10)
        assert (event["type"], event["code"]) == ("error", "invalid"), frame[:60]
        assert words in event["message"], (frame[:60], event["message"])

    await ws.send_to(bytes_data=b"\x00\xff binary")
    assert (await ws.receive_json_from())["message"] == "Send JSON text."
    await ws.send_json_to({"type": "ping"})
    assert (await ws.receive_json_from())["type"] == "pong"  # still open
    assert await _message_count() == 0  # nothing half-written
    await ws.disconnect()
