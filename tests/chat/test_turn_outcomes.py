"""What a turn did, in the answer's own columns (issue 27): ``usage`` holds token counts
only, and rows saved before kept their flags inside it until the data migration moved them."""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from django.apps import apps as installed_apps
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.chat.models import Message
from apps.chat.services import conversation_create, message_append

pytestmark = pytest.mark.django_db(transaction=True)
migration = importlib.import_module("apps.chat.migrations.0009_turn_outcomes_out_of_usage")


def _old_row(conversation: Any, content: str, usage: dict[str, Any]) -> Message:
    """An answer as it was saved before the migration: the flags inside ``usage``."""
    message = message_append(
        conversation=conversation, role=Message.Role.ASSISTANT, content=content
    )
    Message.objects.filter(pk=message.pk).update(usage=usage)
    return message


def test_the_data_migration_moves_the_flags_out_of_usage(user: User) -> None:
    conversation = conversation_create(user=user)
    message_append(conversation=conversation, role=Message.Role.USER, content="My #1 is BTC")
    answer = _old_row(
        conversation,
        "You prefer mornings [1].",
        {"input_tokens": 120, "output_tokens": 30, "aligned": True, "distilled": True, "tools": 2},
    )
    untouched = _old_row(conversation, "Hello.", {"input_tokens": 5, "output_tokens": 1})
    clarifying = _old_row(conversation, "Which list do you mean?", {"clarify": ["crypto", "books"]})

    migration.flags_out_of_usage(installed_apps, None)

    answer.refresh_from_db()
    clarifying.refresh_from_db()
    untouched.refresh_from_db()
    assert answer.usage == {"input_tokens": 120, "output_tokens": 30}
    assert (answer.review_corrected, answer.memory_distilled, answer.tool_calls) == (True, True, 2)
    assert clarifying.usage == {}
    assert clarifying.clarify_topics == ["crypto", "books"]
    assert untouched.usage == {"input_tokens": 5, "output_tokens": 1}
    assert (untouched.review_corrected, untouched.tool_calls, untouched.clarify_topics) == (
        False,
        0,
        [],
    )
    # What the page reads from the moved rows: the last answer, a clarifying question,
    # offers its lists.
    page = Client()
    page.force_login(user)
    html = page.get(reverse("chat:conversation", args=[conversation.pk])).content.decode()
    assert 'data-clarify-topic="books"' in html


def test_migrating_back_puts_the_flags_into_usage_again(user: User) -> None:
    conversation = conversation_create(user=user)
    old = {"input_tokens": 9, "output_tokens": 3, "aligned": True, "distilled": False, "tools": 1}
    answer = _old_row(conversation, "You prefer mornings [1].", old)
    clarifying = _old_row(conversation, "Which list do you mean?", {"clarify": ["crypto"]})

    migration.flags_out_of_usage(installed_apps, None)
    migration.flags_back_into_usage(installed_apps, None)

    answer.refresh_from_db()
    clarifying.refresh_from_db()
    assert answer.usage == old
    assert clarifying.usage == {"clarify": ["crypto"]}


def test_a_turn_with_a_tool_call_saves_tokens_in_usage_and_the_call_in_its_column(
    token_client: APIClient, user: User
) -> None:
    conversation = conversation_create(user=user)

    response = token_client.post(
        f"/api/v1/conversations/{conversation.id}/messages/",
        {"text": "Remember that I prefer green tea"},
        format="json",
    )

    assert response.status_code == 201
    answer = response.json()["answer"]
    assert set(answer["usage"]) == {"input_tokens", "output_tokens"}
    assert answer["tool_calls"] == 1  # the offline provider called memory_add
    assert (answer["review_corrected"], answer["clarify_topics"]) == (False, [])
    saved = Message.objects.get(pk=answer["id"])
    assert saved.tool_calls == 1
    assert set(saved.usage) == {"input_tokens", "output_tokens"}
