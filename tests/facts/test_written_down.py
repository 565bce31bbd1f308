"""Facts a person would write down (issue 28, failure 7): "Lena's birthday is on March 14"
was saved as "mentioned date: 2026-03-14" (a birthday pinned to this year); "under 2 hours
by June" as "Saved mentioned quantity: 2_h = 2 h"; answers said "Your facts say
user.favorites.crypto.1 is BTC"."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.chat.services import conversation_create
from apps.facts.models import ProjectFact
from tests.indexing.conftest import real_provider  # noqa: F401 - fixture

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("real_provider")]


def _turn(client: APIClient, conversation: Any, text: str) -> dict[str, Any]:
    response = client.post(
        f"/api/v1/conversations/{conversation.pk}/messages/", {"text": text}, format="json"
    )
    assert response.status_code == 201, response.content
    body: dict[str, Any] = response.json()
    return body


def test_a_birthday_is_a_day_and_month_and_mentions_are_not_announced(user: User) -> None:
    client = APIClient()
    client.force_authenticate(user)
    conversation = conversation_create(user=user)

    birthday = _turn(client, conversation, "Lena's birthday is on March 14.")
    goal = _turn(client, conversation, "I want to run a half marathon in under 2 hours by June.")

    fact = ProjectFact.objects.get(fact_key="dates.lena_birthday", is_current=True)
    assert fact.value_text == "14 March"  # every year, not 2026-03-14
    notices = [n["text"] for n in birthday["user_message"]["notices"]]
    assert notices == ["Saved lena birthday = 14 March"]
    assert not any("mentioned" in n["text"] for n in goal["user_message"]["notices"])


def test_answers_name_facts_in_words_never_by_their_keys(user: User) -> None:
    client = APIClient()
    client.force_authenticate(user)
    conversation = conversation_create(user=user)

    _turn(client, conversation, "My #1 crypto is BTC.")
    answer = _turn(client, conversation, "What is my #1 crypto?")["answer"]["content"]

    assert "Your #1 crypto is BTC" in answer
    assert "user.favorites" not in answer
