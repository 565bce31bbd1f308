"""The turn's events: typed inside, JSON at the edge, error codes shared with the page."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from apps.accounts.models import User
from apps.chat.error_codes import REJECTION_CODES, ErrorCode
from apps.chat.events import Delta, Pong, ToolAnswered, ToolCalled, TurnError, event_payload
from apps.chat.services import conversation_create

JS = Path(__file__).resolve().parents[2] / "static" / "js"


def test_events_become_the_json_the_page_reads() -> None:
    answer_id = uuid.uuid4()

    assert event_payload(Delta(text="Hel")) == {"type": "delta", "text": "Hel"}
    assert event_payload(Pong()) == {"type": "pong"}
    assert event_payload(TurnError(code=ErrorCode.BUSY, message="Wait.")) == {
        "type": "error",
        "code": "busy",
        "message": "Wait.",
    }
    assert event_payload(
        TurnError(code=ErrorCode.PROVIDER, message="Down.", message_id=answer_id)
    ) == {"type": "error", "code": "provider", "message": "Down.", "message_id": str(answer_id)}
    assert event_payload(ToolCalled(id="t1", name="memory_search", input={"query": "tea"})) == {
        "type": "tool",
        "phase": "call",
        "id": "t1",
        "name": "memory_search",
        "input": {"query": "tea"},
    }
    assert event_payload(ToolAnswered(id="t1", content="none", is_error=False)) == {
        "type": "tool",
        "phase": "result",
        "id": "t1",
        "content": "none",
        "is_error": False,
    }


@pytest.mark.django_db
def test_the_chat_page_carries_the_servers_error_codes(client: Client, user: User) -> None:
    client.force_login(user)
    conversation = conversation_create(user=user)

    page = client.get(reverse("chat:conversation", args=[conversation.pk])).content.decode()

    found = re.search(r'<script id="chat-protocol" type="application/json">(.*?)</script>', page)
    assert found is not None
    protocol = json.loads(found.group(1))
    assert protocol["error_codes"] == {code.name: code.value for code in ErrorCode}
    assert protocol["rejection_codes"] == [code.value for code in REJECTION_CODES]


def test_the_pages_script_names_codes_only_through_the_shared_list() -> None:
    script = (JS / "chat.js").read_text()
    for code in ErrorCode:
        assert f'"{code.value}"' not in script, f"chat.js spells out {code.value!r}"
    used = set(re.findall(r"CODE\.([A-Z_]+)", script))
    assert used <= {code.name for code in ErrorCode}
