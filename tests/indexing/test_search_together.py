"""A hybrid search's work shared out for speed (issue 31) gives each ranking exactly what it
gives alone: its turns and windows are ranked by BM25 together, in shared statements, and the
claims' vector search runs after them on their thread; nothing of another account ever
enters any of them."""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import numpy as np
import pytest
from django.db import connection

from apps.accounts.models import User
from apps.claims.models import Claim
from apps.core import concurrency
from apps.core.concurrency import run_beside
from apps.indexing import embeddings
from apps.indexing.models import Chunk
from apps.indexing.search import _engine as search
from apps.indexing.search import hybrid_search
from apps.indexing.search._engine import KINDS, _lexical, _scopes
from apps.indexing.search._queries import (
    Candidate,
    Lexical,
    bm25_ranking,
    bm25_rankings,
    search_session,
)
from apps.indexing.services import messages_index
from apps.indexing.services.postings import postings_pack
from apps.projects.models import Project
from apps.projects.services import project_create
from tests.indexing.conftest import conversation_with
from tests.indexing.fakes import HashEmbeddingProvider
from tests.indexing.test_bm25 import add_passages, queries, vocabulary, zipf_text
from tests.knowledge_factories import ClaimFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fake_provider")]


def an_account(user: User, project: Project, words: list[str], rng: random.Random) -> list[str]:
    """Passages, claims and a chat of turns (each with its window), all in ``words``;
    returns the chat's message ids, oldest first."""
    add_passages(project, [zipf_text(words, rng, rng.randint(5, 60)) for _ in range(80)])
    for _ in range(30):
        ClaimFactory(user=user, statement=zipf_text(words, rng, rng.randint(3, 12)))
    speakers = ("user", "assistant")
    _, messages = conversation_with(
        user,
        project,
        [(speakers[n % 2], zipf_text(words, rng, rng.randint(2, 30))) for n in range(80)],
    )
    messages_index(message_ids=[message.pk for message in messages])
    return [str(message.pk) for message in messages]


def rankings(
    user: User, project: Project | None, excluded: list[str]
) -> tuple[Lexical, Lexical | None]:
    scopes = _scopes(user, project, KINDS, excluded)
    return _lexical(scopes, user, project, KINDS, excluded)


def owned_by(user: User, candidates: list[Candidate]) -> bool:
    chunks = set(Chunk.objects.filter(user=user).values_list("id", flat=True))
    claims = set(Claim.objects.filter(user=user).values_list("id", flat=True))
    return all((c.id in chunks) if c.kind == "chunk" else (c.id in claims) for c in candidates)


@pytest.mark.parametrize("packed", [False, True], ids=["posting rows", "packed"])
def test_turns_and_windows_ranked_together_equal_each_ranked_alone(
    user: User, other_user: User, packed: bool
) -> None:
    # Given an account of passages, claims and chat turns, in two projects, and another
    # account that uses the same words more often
    rng = random.Random(31)
    words = vocabulary(300, rng)
    home, work = (project_create(owner=user, name=name) for name in ("Home", "Work"))
    turns = an_account(user, home, words, rng)
    an_account(user, work, words[::-1], rng)
    an_account(other_user, project_create(owner=other_user, name="Theirs"), words[:60], rng)
    if packed:
        postings_pack(user_id=user.pk)
        postings_pack(user_id=other_user.pk)
    asked = queries(words, rng, 40)

    for project in (None, home):
        # (Leaving out most of the chat's turns, as a chat leaves out its own history,
        # makes the windows' ranking read deeper than the first check.)
        for excluded in ([], turns[:70]):
            turns_lexical, windows_lexical = rankings(user, project, excluded)
            assert windows_lexical is not None
            for query in asked:
                # When both are ranked in one pass, and each alone
                with search_session(["chunk", "claim"]):
                    together = bm25_rankings([turns_lexical, windows_lexical], query, 30)
                    alone = [
                        bm25_ranking(turns_lexical, query, 30),
                        bm25_ranking(windows_lexical, query, 30),
                    ]

                # Then the lists are the same, score for score, and all the user's own
                assert together == alone, query
                assert owned_by(user, together[0] + together[1])


def test_a_ranking_left_empty_by_its_words_does_not_disturb_the_other(
    user: User, project: Project
) -> None:
    # Given a chat whose windows hold a word its turns' collection lacks
    add_passages(project, ["ferry timetable to the islands"])
    turns_lexical, windows_lexical = rankings(user, project, [])
    assert windows_lexical is not None

    # When a query of that word alone and one of no known word are ranked
    with search_session(["chunk", "claim"]):
        found = bm25_rankings([turns_lexical, windows_lexical], "ferry", 10)
        nothing = bm25_rankings([turns_lexical, windows_lexical], "zeppelin", 10)

    # Then the turns find the passage, the windows nothing, and an unknown word nothing
    assert [c.kind for c in found[0]] == ["chunk"]
    assert found[1] == []
    assert nothing == [[], []]


def test_one_ranking_reads_deeper_while_the_other_is_done(user: User, project: Project) -> None:
    # Given many turns whose windows match best but are kept out of search (archived: the
    # postings still hold them), one weaker turn that is searchable, and a passage
    _, archived = conversation_with(user, project, [("user", "zanzibar zanzibar spice")] * 120)
    _, [kept] = conversation_with(user, project, [("user", "notes on a zanzibar trip")])
    messages_index(message_ids=[m.pk for m in [*archived, kept]])
    Chunk.objects.filter(message__in=archived).update(archived=True)
    add_passages(project, ["zanzibar spice"])
    turns_lexical, windows_lexical = rankings(user, project, [])
    assert windows_lexical is not None

    # When the best of each is asked for, together and alone
    with search_session(["chunk", "claim"]):
        together = bm25_rankings([turns_lexical, windows_lexical], "zanzibar spice", 1)
        alone = [
            bm25_ranking(lexical, "zanzibar spice", 1) for lexical in rankings(user, project, [])
        ]

    # Then the windows' ranking read past the archived turns to the searchable one
    assert together == alone
    [window] = together[1]
    assert window.id == Chunk.objects.get(message=kept).pk


@pytest.mark.django_db(transaction=True)
def test_the_claims_vector_search_runs_beside_with_the_same_hits(
    user: User,
    project: Project,
    fake_provider: HashEmbeddingProvider,
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given claims, passages and chat turns about the same things
    rng = random.Random(5)
    words = vocabulary(120, rng)
    an_account(user, project, words, rng)
    for claim in Claim.objects.filter(user=user):
        claim.embedding = fake_provider.embed_query(claim.statement)
        claim.save(update_fields=["embedding"])
    asked = queries(words, rng, 12)

    # When each query is searched with everything on this thread, then with the pool
    settings.CAIRN_BESIDE_THREADS = 0
    alone = [hybrid_search(user=user, query=query, k=20) for query in asked]
    settings.CAIRN_BESIDE_THREADS = 2
    searched_on: list[tuple[str, str]] = []
    original, original_each = search.nearest, search.nearest_each

    def spy(scopes: list[Any], *args: Any) -> Any:
        searched_on.append((scopes[0].kind, threading.current_thread().name))
        return original(scopes, *args)

    def spy_each(searches: list[Any], *args: Any) -> Any:
        for scopes, _ in searches:
            searched_on.append((scopes[0].kind, threading.current_thread().name))
        return original_each(searches, *args)

    monkeypatch.setattr(search, "nearest", spy)
    monkeypatch.setattr(search, "nearest_each", spy_each)
    beside = [hybrid_search(user=user, query=query, k=20) for query in asked]

    # Then the hits are the same, score for score, and the claims' vectors were searched
    # on a pool thread, the chunks' here
    assert [[(h.kind, h.claim_id or h.chunk_id, h.score) for h in hits] for hits in beside] == [
        [(h.kind, h.claim_id or h.chunk_id, h.score) for h in hits] for hits in alone
    ]
    assert any(hit.kind == "claim" for hits in alone for hit in hits)
    assert {
        thread.startswith("cairn-beside") for kind, thread in searched_on if kind == "claim"
    } == {True}
    assert {thread for kind, thread in searched_on if kind == "chunk"} == {"MainThread"}


class BrokenModel:
    def embed_query(self, text: str) -> Any:
        raise RuntimeError("the model is gone")


def bees_and_a_broken_model(user: User, project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """A passage and a claim about bees, and an embedding model that fails."""
    add_passages(project, ["bees need water"])
    ClaimFactory(user=user, statement="I keep bees")
    monkeypatch.setattr(embeddings, "_provider", BrokenModel())


@pytest.mark.django_db(transaction=True)
def test_a_failed_embedding_leaves_no_pool_thread_waiting(
    user: User, project: Project, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given an account with claims, and an embedding model that fails
    bees_and_a_broken_model(user, project, monkeypatch)
    settings.CAIRN_BESIDE_THREADS = 1

    # When a search needs the query's embedding
    with pytest.raises(RuntimeError, match="the model is gone"):
        hybrid_search(user=user, query="bees")

    # Then the one pool thread is free again: the next piece of work runs on it (a thread
    # left waiting for the embedding would never take it: the wait times out instead)
    waiting = run_beside(lambda: threading.current_thread().name)
    assert waiting(timeout=30).startswith("cairn-beside")  # type: ignore[call-arg]


@pytest.mark.django_db(transaction=True)
def test_a_failed_search_leaves_none_of_its_work_running(
    user: User, project: Project, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given an account, threads beside, and full-text search slow enough to be still under
    # way (in its transaction) when the embedding fails
    bees_and_a_broken_model(user, project, monkeypatch)
    settings.CAIRN_BESIDE_THREADS = 4
    words = search.bm25_rankings

    def slow_words(*args: Any, **kwargs: Any) -> Any:
        time.sleep(0.5)
        return words(*args, **kwargs)

    monkeypatch.setattr(search, "bm25_rankings", slow_words)

    # When the search fails
    with pytest.raises(RuntimeError, match="the model is gone"):
        hybrid_search(user=user, query="bees")

    # Then it has waited for its work beside: no connection of the threads beside is still
    # in a transaction or a statement (a caller's next step, or a flush, would meet its
    # locks). Only this process's: a worker an earlier test killed can leave its backend in
    # a statement of this database for a while (make test saw one).
    beside = [
        wrapper.connection.info.backend_pid
        for wrapper in list(concurrency._pool_connections)
        if wrapper.connection is not None
    ]
    assert beside  # the search's rankings did run beside
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid, state, query FROM pg_stat_activity "
            "WHERE pid = ANY(%s) AND state <> 'idle'",
            [beside],
        )
        assert cursor.fetchall() == []


def test_the_query_vector_is_written_once_and_read_back_exactly() -> None:
    """The query's vector goes to PostgreSQL as text in every vector statement of a search:
    written once for all of them, short, and read back by pgvector as the very same
    float4 values (a vector that lost a bit would rank rows differently)."""

    from apps.indexing.search import _queries

    rng = np.random.default_rng(3)
    vectors = [rng.standard_normal(384).astype(np.float32) for _ in range(20)]
    vectors += [np.array([1e-38, -3.4e38, 0.0, 1 / 3, -(2**-149)], dtype=np.float32)]
    with connection.cursor() as cursor:
        for vector in vectors:
            cursor.execute("SELECT %s::vector::real[]", [_queries.vector_literal(vector)])
            (read,) = cursor.fetchone()
            assert np.array_equal(np.array(read, dtype=np.float32), vector)

    _queries._literal.cache_clear()
    vector = vectors[0]
    texts = {_queries.vector_literal(vector.copy()) for _ in range(5)}
    assert len(texts) == 1
    assert _queries._literal.cache_info().misses == 1
    assert len(texts.pop()) < len("[" + ",".join(map(str, vector.tolist())) + "]")
