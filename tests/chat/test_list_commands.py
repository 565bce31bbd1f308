"""Lists without a model (issue 28, failure 6): "Add oat milk to my shopping list" answered
"nothing open"; "add eggs and bread" became one item; "I bought the oat milk" and "tick off
oat milk" changed nothing; "put oat milk back" suggested a claim "Buy oat milk back". The
offline provider now reads list commands and obeys them through the memory tools."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.chat.llm.list_commands import ListCommand, read_list_command
from apps.chat.models import Conversation
from apps.chat.services import conversation_create
from apps.claims.models import Claim, ClaimStatus
from tests.indexing.conftest import real_provider  # noqa: F401 - fixture


@pytest.mark.parametrize(
    ("text", "command"),
    [
        (
            "Add oat milk to my shopping list",
            ListCommand("add", ("oat milk",), "shopping_item"),
        ),
        (
            "add eggs and bread to my shopping list",
            ListCommand("add", ("eggs", "bread"), "shopping_item"),
        ),
        (
            "Please add eggs, bread and milk to the grocery list.",
            ListCommand("add", ("eggs", "bread", "milk"), "shopping_item"),
        ),
        (
            "Add call the plumber to my to-do list",
            ListCommand("add", ("call the plumber",), "task"),
        ),
        ("tick off oat milk", ListCommand("tick_off", ("oat milk",), None)),
        ("I bought the oat milk", ListCommand("tick_off", ("oat milk",), None, explicit=False)),
        ("oat milk is done", ListCommand("tick_off", ("oat milk",), None, explicit=False)),
        ("put oat milk back", ListCommand("restore", ("oat milk",), None)),
        (
            "put the eggs back on my shopping list",
            ListCommand("restore", ("eggs",), "shopping_item"),
        ),
        (
            "remove bread from my shopping list",
            ListCommand("remove", ("bread",), "shopping_item"),
        ),
        ("What is on my shopping list?", None),
        ("I prefer morning workouts, usually before 7am.", None),
    ],
)
def test_a_list_command_is_read_without_a_model(text: str, command: ListCommand | None) -> None:
    assert read_list_command(text) == command


def _say(client: APIClient, conversation: Conversation, text: str) -> str:
    response = client.post(
        f"/api/v1/conversations/{conversation.pk}/messages/", {"text": text}, format="json"
    )
    assert response.status_code == 201, response.content
    return str(response.json()["answer"]["content"])


def _open(user: User) -> list[str]:
    return sorted(
        Claim.objects.filter(
            user=user, claim_types__contains=["shopping_item"], status=ClaimStatus.ACTIVE
        ).values_list("statement", flat=True)
    )


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("real_provider")
def test_the_offline_provider_obeys_list_commands(user: User) -> None:
    client = APIClient()
    client.force_authenticate(user)
    conversation = conversation_create(user=user)

    added = _say(client, conversation, "Add oat milk to my shopping list")
    assert added.startswith("Added to your shopping list: oat milk (#")
    _say(client, conversation, "add eggs and bread to my shopping list")
    _say(client, conversation, "Add almond milk to my shopping list")
    assert _open(user) == ["Almond milk", "Bread", "Eggs", "Oat milk"]
    listed = _say(client, conversation, "What is on my shopping list?")
    assert "Oat milk" in listed
    assert "Eggs" in listed

    asked = _say(client, conversation, "tick off milk")
    assert "Which milk do you mean" in asked
    assert len(_open(user)) == 4  # nothing changed on a guess
    assert _say(client, conversation, "I bought the oat milk").startswith("Ticked off: Oat milk")
    _say(client, conversation, "eggs are done")
    assert _open(user) == ["Almond milk", "Bread"]
    put_back = _say(client, conversation, "put oat milk back")
    assert put_back.startswith("Back on your shopping list: Oat milk")
    _say(client, conversation, "remove bread from my shopping list")
    assert _open(user) == ["Almond milk", "Oat milk"]
    missing = _say(client, conversation, "tick off caviar")
    assert "I found no caviar on your shopping list" in missing
    assert not Claim.objects.filter(user=user, statement__icontains="back").exists()
