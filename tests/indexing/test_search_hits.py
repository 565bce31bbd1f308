"""A search's hits are fetched in three queries whatever their kinds — claims, passages,
and the chat turns' words asked of the chat (``TurnSource.said``) — with every field a hit
shows (only those columns are read: a deferred one touched later would cost a query per
hit)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.accounts.models import User
from apps.indexing.models import Chunk
from apps.indexing.search._hits import _hits
from apps.indexing.search._queries import Candidate
from apps.indexing.services import message_index
from apps.projects.models import Project
from tests.indexing.conftest import conversation_with
from tests.indexing.test_bm25 import add_passages
from tests.knowledge_factories import ClaimFactory

pytestmark = pytest.mark.django_db


@pytest.mark.usefixtures("fake_provider")
def test_hits_of_every_kind_come_in_three_queries(user: User, project: Project) -> None:
    # Given a claim, a file passage and a chat turn
    claim = ClaimFactory(user=user, statement="I keep bees on the allotment")
    [passage] = add_passages(project, ["Bees need water in summer"])
    _, [message] = conversation_with(user, project, [("user", "Where do my bees drink?")])
    message_index(message_id=message.pk)
    turn = Chunk.objects.get(message=message)
    fused = [
        (Candidate("claim", claim.pk, 0.5), 0.3),
        (Candidate("chunk", passage.pk, 0.4), 0.2),
        (Candidate("chunk", turn.pk, 0.3), 0.1),
    ]

    # When their hits are built
    with CaptureQueriesContext(connection) as queries:
        hits = _hits(fused, [c for c, _ in fused], [])

    # Then three queries fetched everything the hits show, only the chat's own touching
    # its messages
    assert len(queries.captured_queries) == 3
    assert ["chat_message" in query["sql"] for query in queries.captured_queries] == [
        False,
        False,
        True,
    ]
    assert [hit.kind for hit in hits] == ["claim", "document", "message"]
    assert hits[0].title == f"#{claim.number}"
    assert hits[0].text == claim.statement
    assert hits[1].document_path == passage.document.path
    assert hits[1].text == "Bees need water in summer"
    assert hits[2].text == "Where do my bees drink?"
    assert hits[2].title.startswith("You, ")  # who said it, when (issue 28)
    assert hits[2].conversation_id == message.conversation_id
    assert hits[2].created_at == message.created_at


@pytest.mark.usefixtures("fake_provider")
def test_hits_without_a_chat_turn_ask_nothing_of_the_chat(user: User, project: Project) -> None:
    # Given a claim and a file passage, and no chat turn among the hits
    claim = ClaimFactory(user=user, statement="I keep bees on the allotment")
    [passage] = add_passages(project, ["Bees need water in summer"])
    fused = [(Candidate("claim", claim.pk, 0.5), 0.3), (Candidate("chunk", passage.pk, 0.4), 0.2)]

    # When their hits are built
    with CaptureQueriesContext(connection) as queries:
        hits = _hits(fused, [c for c, _ in fused], [])

    # Then only the claims' and the passages' queries ran, none of chat messages
    assert len(queries.captured_queries) == 2
    assert not any("chat_message" in query["sql"] for query in queries.captured_queries)
    assert [hit.kind for hit in hits] == ["claim", "document"]
