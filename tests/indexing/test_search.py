"""Hybrid search, with the real embedding model: provenance, isolation, archived chats,
claim statuses, and the iterative HNSW scan that keeps per-user filtering complete."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.accounts.models import User
from apps.chat.services import conversation_set_archived
from apps.claims.models import ClaimStatus
from apps.indexing.embeddings import EmbeddingProvider
from apps.indexing.models import Chunk
from apps.indexing.search import hybrid_search, text_search, vector_search
from apps.indexing.search._fusion import FUSION
from apps.indexing.search._queries import search_session
from apps.indexing.services import documents_upload, message_index
from apps.projects.models import Project
from apps.projects.services import project_create
from tests.factories import UserFactory
from tests.indexing.conftest import Committed, conversation_with, upload
from tests.knowledge_factories import ClaimFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("real_provider", "media_root")]

TRIP = (
    "Lisbon trip plan. We fly to Lisbon on 3 May and stay five nights in Alfama. "
    "The budget is 1,800 euros for flights, the hotel and food."
)
GARDEN = "Garden notes. Tomatoes need watering every morning; the basil is planted by the wall."


def index_files(project: Project, committed: Committed, **files: str) -> None:
    with committed():
        documents_upload(
            project=project, files=[upload(name, text) for name, text in files.items()]
        )


def test_a_passage_of_a_longer_file_is_titled_with_its_place(
    user: User, project: Project, committed: Committed
) -> None:
    # Given a file of several passages, only one of them about Lisbon
    filler = "\n\n".join(f"Section {n} of the garden notes about watering." * 8 for n in range(20))
    index_files(project, committed, **{"notes.md": filler + "\n\n" + TRIP, "trip.md": TRIP})

    # When a search finds that passage
    hits = [hit for hit in hybrid_search(user=user, query="Lisbon trip budget") if hit.document_id]

    # Then its title says which passage of the file it is; a one-passage file keeps its path
    notes_hits = [hit for hit in hits if hit.document_path == "notes.md"]
    assert notes_hits
    for hit in notes_hits:
        passage = Chunk.objects.select_related("document").get(pk=hit.chunk_id)
        assert passage.document.chunk_count > 1
        assert hit.title == (
            f"notes.md, passage {passage.chunk_index + 1} of {passage.document.chunk_count}"
        )
    assert {hit.title for hit in hits if hit.document_path == "trip.md"} == {"trip.md"}


def test_hybrid_search_returns_scored_hits_with_provenance(
    user: User, project: Project, committed: Committed
) -> None:
    index_files(project, committed, **{"trip.md": TRIP, "garden.txt": GARDEN})

    hits = hybrid_search(user=user, query="Lisbon trip budget")

    top = hits[0]
    assert (top.kind, top.document_path, top.title) == ("document", "trip.md", "trip.md")
    assert top.document_id is not None
    assert top.chunk_id is not None
    assert (top.start, top.end) == (0, len(TRIP))
    assert top.text == TRIP
    assert "budget" in top.excerpt
    assert top.vector_similarity is not None
    assert top.vector_similarity > 0.4
    assert top.text_rank is not None  # every word matched: first in both rankings
    # First by vector, by its words (a file passage has no window) and of the passages about
    # Lisbon, which the question names: each list adds its whole weight.
    assert top.score == pytest.approx(FUSION.vector + FUSION.turns + FUSION.about)
    semantic = hybrid_search(user=user, query="How much money is the holiday in Portugal?")
    assert semantic[0].document_path == "trip.md"
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)


def test_another_users_data_is_never_returned(
    user: User, other_user: User, project: Project, committed: Committed
) -> None:
    theirs = project_create(owner=other_user, name="Theirs")
    index_files(theirs, committed, **{"trip.md": TRIP})
    with committed():
        ClaimFactory(user=other_user, statement="My Lisbon hotel is in Alfama")

    for search in (hybrid_search, vector_search, text_search):
        assert search(user=user, query="Lisbon hotel Alfama") == []
    assert hybrid_search(user=other_user, query="Lisbon hotel Alfama")


def test_project_filter_applies_to_chunks(
    user: User, project: Project, committed: Committed
) -> None:
    other = project_create(owner=user, name="Garden")
    index_files(project, committed, **{"trip.md": TRIP})
    index_files(other, committed, **{"garden.txt": GARDEN})

    hits = hybrid_search(user=user, query="watering tomatoes", project=project)

    assert {hit.document_path for hit in hits} == {"trip.md"}


def test_a_short_reply_is_found_by_what_it_answers(user: User, project: Project) -> None:
    conversation, messages = conversation_with(
        user,
        project,
        [
            ("assistant", "Have you ever been to Lisbon?"),
            ("user", "Yes, last May!"),
        ],
        title="Travel",
    )
    message_index(message_id=messages[1].pk)

    [hit] = hybrid_search(user=user, query="When did I visit Lisbon?", kinds=("message",))

    assert (hit.kind, hit.message_id, hit.conversation_id) == (
        "message",
        messages[1].pk,
        conversation.pk,
    )
    assert hit.text == "Yes, last May!"
    assert hit.title.startswith("You, ")  # who said it and when (issue 28)


def test_archived_conversations_and_excluded_messages_are_left_out(
    user: User, project: Project
) -> None:
    _kept, [kept_message] = conversation_with(user, project, [("user", "My dog is called Rex")])
    archived, [archived_message] = conversation_with(
        user, project, [("user", "My dog Rex likes the beach")]
    )
    for message in (kept_message, archived_message):
        message_index(message_id=message.pk)
    conversation_set_archived(conversation=archived, archived=True)

    hits = hybrid_search(user=user, query="dog Rex")
    assert [hit.message_id for hit in hits] == [kept_message.pk]

    assert hybrid_search(user=user, query="dog Rex", exclude_message_ids=[kept_message.pk]) == []


def test_only_active_and_contested_claims_are_found(user: User, committed: Committed) -> None:
    with committed():
        active = ClaimFactory(user=user, statement="I am allergic to penicillin")
        contested = ClaimFactory(
            user=user, statement="I might be allergic to peanuts", status=ClaimStatus.CONTESTED
        )
        ClaimFactory(user=user, statement="I am allergic to cats", status=ClaimStatus.RETRACTED)
        ClaimFactory(user=user, statement="I am allergic to dust", status=ClaimStatus.PENDING)

    hits = hybrid_search(user=user, query="what am I allergic to", kinds=("claim",))

    assert {hit.claim_id for hit in hits} == {active.pk, contested.pk}
    assert all(hit.kind == "claim" and hit.claim_number for hit in hits)
    assert {hit.text for hit in hits} == {active.statement, contested.statement}


def test_words_that_must_match_are_found_by_text_search(
    user: User, project: Project, committed: Committed
) -> None:
    index_files(
        project,
        committed,
        **{
            "parts.txt": "Replacement part XJ-4471 fits the older pump.",
            "pumps.txt": "Pumps move water; an older pump may need a new seal.",
        },
    )

    [hit] = text_search(user=user, query="XJ-4471")

    assert hit.document_path == "parts.txt"
    assert hit.text_rank
    assert hit.vector_similarity is None
    assert hybrid_search(user=user, query="XJ-4471")[0].document_path == "parts.txt"


def test_kinds_are_validated(user: User) -> None:
    with pytest.raises(ValueError, match="unknown kinds"):
        hybrid_search(user=user, query="x", kinds=("claims",))
    assert hybrid_search(user=user, query="   ") == []


def test_iterative_scan_is_switched_on_for_search_queries(user: User) -> None:
    with CaptureQueriesContext(connection) as queries:
        hybrid_search(user=user, query="anything at all")

    sql = [query["sql"] for query in queries.captured_queries]
    settings_at = next(i for i, s in enumerate(sql) if "hnsw.iterative_scan" in s)
    vector_at = next(i for i, s in enumerate(sql) if "<=>" in s)
    assert "relaxed_order" in sql[settings_at]
    assert settings_at < vector_at


@pytest.mark.parametrize("exact_rows", [0, 2000])
def test_per_user_filter_loses_nothing_with_the_hnsw_index(
    user: User,
    project: Project,
    real_provider: EmbeddingProvider,
    settings: Any,
    exact_rows: int,
) -> None:
    """Another user owns 400 chunks right next to the query, this user 3 far from it. An
    HNSW scan that stopped at ef_search candidates would find none of this user's; with
    the iterative scan (``exact_rows`` 0), or comparing every row of an account that
    small (the default), all three are found."""
    settings.CAIRN_SEARCH_EXACT_ROWS = exact_rows
    settings.CAIRN_SEARCH_EXACT_ROWS_SMALL = exact_rows
    other = UserFactory()
    theirs = project_create(owner=other, name="Crowd")
    rng = np.random.default_rng(7)
    query = real_provider.embed_query("crowded neighbourhood")
    near = query + rng.normal(0, 0.02, (400, 384)).astype(np.float32)
    far = -query + rng.normal(0, 0.02, (3, 384)).astype(np.float32)
    _, [their_message] = conversation_with(other, theirs, [("user", "x")])
    _, [my_message] = conversation_with(user, project, [("user", "y")])
    Chunk.objects.bulk_create(
        [
            Chunk(
                message=their_message,
                user=other,
                project=theirs,
                chunk_index=i,
                text="near",
                start=0,
                end=1,
                embedding=v,
                embedding_model="test",
            )
            for i, v in enumerate(near)
        ]
        + [
            Chunk(
                message=my_message,
                user=user,
                project=project,
                chunk_index=i,
                text="far",
                start=0,
                end=1,
                embedding=v,
                embedding_model="test",
            )
            for i, v in enumerate(far)
        ]
    )
    force_hnsw = "SET LOCAL enable_seqscan = off; SET LOCAL enable_sort = off"

    with search_session(), connection.cursor() as cursor:
        cursor.execute(force_hnsw + "; SET LOCAL hnsw.ef_search = 20")
        cursor.execute(
            "EXPLAIN SELECT id FROM indexing_chunk WHERE user_id = %s "
            "ORDER BY embedding <=> %s::vector LIMIT 3",
            [user.pk, str(query.tolist())],
        )
        assert "chunk_embedding_hnsw_idx" in " ".join(row[0] for row in cursor.fetchall())
        with CaptureQueriesContext(connection) as queries:
            hits = vector_search(user=user, vector=query, kinds=("message",), k=3)
    assert [hit.text for hit in hits] == ["y"] * 3
    exact = any("OFFSET 0) AS r" in q["sql"] for q in queries.captured_queries)
    assert exact == (exact_rows > 0)

    with search_session(), connection.cursor() as cursor:  # the same, iterative scan off
        cursor.execute(
            force_hnsw + "; SET LOCAL hnsw.ef_search = 20; SET LOCAL hnsw.iterative_scan = off"
        )
        cursor.execute(
            "SELECT count(*) FROM (SELECT id FROM indexing_chunk WHERE user_id = %s "
            "ORDER BY embedding <=> %s::vector LIMIT 3) AS found",
            [user.pk, str(query.tolist())],
        )
        assert cursor.fetchone()[0] < 3


@pytest.mark.django_db(transaction=True)
def test_text_rankings_run_beside_with_the_same_results(
    user: User,
    project: Project,
    committed: Committed,
    settings: object,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Outside a transaction the full-text rankings run on a pool thread while this one
    embeds and searches by vector; the hits are those of running everything here."""
    import threading

    from apps.indexing.search import _engine as search

    index_files(project, committed, **{"trip.md": TRIP, "garden.txt": GARDEN})
    settings.CAIRN_BESIDE_THREADS = 0  # type: ignore[attr-defined]
    alone = hybrid_search(user=user, query="Lisbon trip budget basil")
    settings.CAIRN_BESIDE_THREADS = 2  # type: ignore[attr-defined]
    ran_on: list[str] = []
    original = search.bm25_rankings

    def spy(*args: Any) -> Any:
        ran_on.append(threading.current_thread().name)
        return original(*args)

    monkeypatch.setattr(search, "bm25_rankings", spy)
    beside = hybrid_search(user=user, query="Lisbon trip budget basil")

    # The turns' and the windows' rankings, together on one pool thread.
    assert len(ran_on) == 1
    assert ran_on[0].startswith("cairn-beside")
    assert [(h.kind, h.chunk_id, h.score) for h in beside] == [
        (h.kind, h.chunk_id, h.score) for h in alone
    ]
    assert beside[0].document_path == "trip.md"


def test_a_restored_conversation_is_found_again(user: User, project: Project) -> None:
    conversation, [message] = conversation_with(user, project, [("user", "My dog is called Rex")])
    conversation_set_archived(conversation=conversation, archived=True)
    message_index(message_id=message.pk)  # indexed while archived: hidden from the start
    assert hybrid_search(user=user, query="dog Rex") == []

    conversation_set_archived(conversation=conversation, archived=False)

    assert [hit.message_id for hit in hybrid_search(user=user, query="dog Rex")] == [message.pk]
