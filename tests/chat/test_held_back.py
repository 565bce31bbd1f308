"""Say what is held back (issue 28, failure 5): in the default memory mode (suggest),
"I prefer morning workouts, usually before 7am." then "When do I like to work out?" answered
"I found nothing" — the statement waited as a suggestion, and nothing said so. It is the
user's own turn: the same conversation uses it, and the answer says it waits for review."""

from __future__ import annotations

import re
from typing import Any

import httpx2
import pytest
from asgiref.sync import sync_to_async
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.chat.models import Conversation
from apps.chat.services import conversation_create
from apps.claims.models import Claim, ClaimStatus
from tests.chat.helpers import connect, events_until, of_type
from tests.chat.test_llm_anthropic import (
    FakeAnthropic,
    claude,
    message_end,
    message_start,
    streamed,
    text_block,
)
from tests.factories import UserFactory
from tests.indexing.conftest import real_provider  # noqa: F401 - fixture

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("real_provider")]


def _ask(client: APIClient, conversation: Conversation, text: str) -> str:
    response = client.post(
        f"/api/v1/conversations/{conversation.pk}/messages/", {"text": text}, format="json"
    )
    assert response.status_code == 201, response.content
    return str(response.json()["answer"]["content"])


def test_a_statement_waiting_for_review_is_used_in_its_conversation_and_said_to_wait(
    user: User,
) -> None:
    client = APIClient()
    client.force_authenticate(user)
    conversation = conversation_create(user=user)

    _ask(client, conversation, "I prefer morning workouts, usually before 7am.")
    assert Claim.objects.get(user=user).status == ClaimStatus.PENDING  # suggest mode
    answer = _ask(client, conversation, "When do I like to work out?")

    assert "Waiting for your review:" in answer
    assert "I prefer morning workouts, usually before 7am" in answer
    assert "[1]" in answer


def _claude_citing_the_waiting_line(server: list[FakeAnthropic]) -> httpx2.Response:
    """Claude's answer cites the statement that waits, as the prompt's [WAITING] line
    numbers it, and does not say it waits (a model may forget the prompt's instruction)."""
    system = server[0].body(len(server[0].requests) - 1)["system"]
    line = next(line for line in system.splitlines() if line.startswith("- [WAITING]"))
    number = re.search(r"source \[(\d+)\]", line).group(1)  # type: ignore[union-attr]
    return streamed(
        message_start(),
        *text_block(0, f"You like to work out early, before 7am [{number}]."),
        *message_end("end_turn", 5),
    )


@pytest.mark.asyncio
async def test_claudes_answer_says_what_waits_when_it_does_not_say_so_itself(
    monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    settings.CAIRN_ALIGNMENT_REVIEW = False
    user, conversation = await sync_to_async(_account_with_a_waiting_statement)()
    holder: list[FakeAnthropic] = []
    server = FakeAnthropic(lambda: _claude_citing_the_waiting_line(holder))
    holder.append(server)
    monkeypatch.setattr(
        "apps.chat.consumers.provider_for_running_loop", lambda _answerer: claude(server)
    )
    ws = await connect(user, conversation.id)

    await ws.send_json_to({"type": "message", "text": "When do I like to work out?"})
    events = await events_until(ws, "done")
    done = of_type(events, "done")[0]["message"]
    await ws.disconnect()

    answer = done["content"]
    assert answer.startswith("You like to work out early, before 7am [1].")
    assert "Waiting for your review: “I prefer morning workouts, usually before 7am" in answer
    assert answer.count("Waiting for your review") == 1


def _account_with_a_waiting_statement() -> tuple[User, Conversation]:
    user = UserFactory()
    client = APIClient()
    client.force_authenticate(user)
    conversation = conversation_create(user=user)
    _ask(client, conversation, "I prefer morning workouts, usually before 7am.")
    assert Claim.objects.get(user=user).status == ClaimStatus.PENDING
    return user, conversation
