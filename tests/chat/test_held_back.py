"""Say what is held back (issue 28, failure 5): in the default memory mode (suggest),
"I prefer morning workouts, usually before 7am." then "When do I like to work out?" answered
"I found nothing" — the statement waited as a suggestion, and nothing said so. It is the
user's own turn: the same conversation uses it, and the answer says it waits for review."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.chat.models import Conversation
from apps.chat.services import conversation_create
from apps.claims.models import Claim, ClaimStatus
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
