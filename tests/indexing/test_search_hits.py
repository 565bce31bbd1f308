"""A search's hits are fetched in two queries whatever their kinds — claims and passages
(with the cosine similarity of those no vector ranking found) in one, the chat turns' words
asked of the chat (``TurnSource.said``) in the other — with every field a hit shows."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
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
from tests.indexing.fakes import HashEmbeddingProvider
from tests.indexing.test_bm25 import add_passages
from tests.knowledge_factories import ClaimFactory

pytestmark = pytest.mark.django_db


@pytest.mark.usefixtures("fake_provider")
def test_hits_of_every_kind_come_in_two_queries(user: User, project: Project) -> None:
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

    # Then two queries fetched everything the hits show, only the chat's own touching
    # its messages
    assert ["chat_message" in query["sql"] for query in queries.captured_queries] == [
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

    # Then only the claims' and the passages' query ran, none of chat messages
    assert len(queries.captured_queries) == 1
    assert not any("chat_message" in query["sql"] for query in queries.captured_queries)
    assert [hit.kind for hit in hits] == ["claim", "document"]


def test_hits_found_by_words_alone_get_their_similarity_in_the_same_query(
    user: User, project: Project, fake_provider: HashEmbeddingProvider
) -> None:
    # Given a claim and a passage that no vector ranking found, and one that was
    claim = ClaimFactory(user=user, statement="I keep bees on the allotment")
    claim.embedding = fake_provider.embed_query(claim.statement)
    claim.save(update_fields=["embedding"])
    found_by_vector, by_words = add_passages(project, ["Bees need water", "Hives in winter"])
    query = fake_provider.embed_query("bees")
    fused = [
        (Candidate("claim", claim.pk, 2.0), 0.3),
        (Candidate("chunk", by_words.pk, 1.0), 0.2),
        (Candidate("chunk", found_by_vector.pk, 0.9), 0.1),
    ]

    # When their hits are built with the query's vector
    with CaptureQueriesContext(connection) as queries:
        hits = _hits(fused, [Candidate("chunk", found_by_vector.pk, 0.123)], [], query)

    # Then, in one query, those found by words have their cosine similarity, the one
    # found by vector keeps the ranking's
    assert len(queries.captured_queries) == 1
    similarity = {hit.chunk_id or hit.claim_id: hit.vector_similarity for hit in hits}
    assert similarity[claim.pk] == pytest.approx(cosine(claim.embedding, query))
    assert similarity[by_words.pk] == pytest.approx(cosine(by_words.embedding, query))
    assert similarity[found_by_vector.pk] == 0.123


@pytest.mark.usefixtures("fake_provider")
def test_a_hit_without_an_embedding_has_no_similarity(user: User, project: Project) -> None:
    claim = ClaimFactory(user=user, statement="I keep bees on the allotment")
    assert claim.embedding is None  # embedded later, by a task
    hits = _hits([(Candidate("claim", claim.pk, 1.0), 1.0)], [], [], np.ones(384) / 384**0.5)
    assert [hit.vector_similarity for hit in hits] == [None]


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))
