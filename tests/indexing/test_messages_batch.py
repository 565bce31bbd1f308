"""Messages indexed as one batch (imports, transcripts) come out exactly as indexed one by
one, in a fraction of the queries (issue 16)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.accounts.models import User
from apps.chat.services import conversation_set_archived
from apps.indexing.models import Chunk
from apps.indexing.services import message_index, messages_index
from apps.projects.models import Project
from tests.indexing.conftest import conversation_with, fake_provider  # noqa: F401 - fixture

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fake_provider")]

TURNS = [
    ("user", "Where should I sail in June?"),
    ("assistant", "Try the Dalmatian coast: Split, Hvar and Vis."),
    ("user", ""),
    ("user", "I love sailing with Ada. " * 400),  # long: several chunks
    ("assistant", "Ada sounds like great crew."),
]


def _chunks(message_ids: list[Any]) -> list[tuple[Any, ...]]:
    return list(
        Chunk.objects.filter(message_id__in=message_ids)
        .order_by("message__order", "chunk_index")
        .values_list("chunk_index", "text", "context", "start", "end", "archived")
    )


def test_a_batch_writes_what_one_by_one_writes(user: User, project: Project) -> None:
    _, messages = conversation_with(user, project, TURNS)
    ids = [message.pk for message in messages]
    for message_id in ids:
        message_index(message_id=message_id)
    one_by_one = _chunks(ids)
    vectors = dict(Chunk.objects.filter(message_id__in=ids).values_list("text", "embedding"))
    Chunk.objects.all().delete()

    with CaptureQueriesContext(connection) as queries:
        written = messages_index(message_ids=ids)

    assert written == len(one_by_one) > len(TURNS) - 1
    assert _chunks(ids) == one_by_one
    batch_vectors = dict(Chunk.objects.filter(message_id__in=ids).values_list("text", "embedding"))
    assert all(list(batch_vectors[text]) == list(vectors[text]) for text in vectors)
    assert len(queries) < 15  # one read of the conversation, not three queries a message


def test_a_batch_is_idempotent_and_keeps_the_archived_flag(user: User, project: Project) -> None:
    conversation, messages = conversation_with(user, project, TURNS[:2])
    conversation_set_archived(conversation=conversation, archived=True)
    ids = [message.pk for message in messages]

    messages_index(message_ids=ids)
    messages_index(message_ids=ids)

    assert Chunk.objects.filter(message_id__in=ids).count() == 2
    assert set(Chunk.objects.filter(message_id__in=ids).values_list("archived", flat=True)) == {
        True
    }
    assert messages_index(message_ids=["00000000-0000-4000-8000-000000000000"]) == 0
