"""Okapi BM25 in PostgreSQL against a plain implementation: the same top ten on a
generated corpus, statistics of the searcher's own rows (and project) only, kept current
as rows come and go."""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from typing import Any

import numpy as np
import pytest
from django.db import connection

from apps.accounts.models import User
from apps.indexing.models import (
    Chunk,
    ChunkPosting,
    ClaimPosting,
    Document,
    LexicalCollection,
    LexicalTerm,
    Source,
)
from apps.indexing.search import hybrid_search, text_search
from apps.indexing.search._bm25 import K1, B, Collection
from apps.indexing.search._plans import VectorPlan, vector_plan
from apps.indexing.services import message_index, messages_index
from apps.projects.models import Project
from apps.projects.services import project_create
from tests.indexing.conftest import conversation_with
from tests.knowledge_factories import ClaimFactory

pytestmark = pytest.mark.django_db

_SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
_LEXEME = re.compile(r"'((?:[^']|'')*)':([0-9A-D,]+)")


def vocabulary(size: int, rng: random.Random) -> list[str]:
    words: list[str] = []
    while len(words) < size:
        word = "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4)))
        if word not in words:
            words.append(word)
    return words


def zipf_text(words: list[str], rng: random.Random, length: int) -> str:
    weights = [1 / (rank + 1) for rank in range(len(words))]
    return " ".join(rng.choices(words, weights=weights, k=length))


def add_passages(project: Project, texts: list[str]) -> list[Chunk]:
    source, _ = Source.objects.get_or_create(
        project=project, kind="upload", defaults={"name": "Uploads"}
    )
    document = Document.objects.create(source=source, path=f"corpus-{source.documents.count()}")
    # Distinct vectors: many identical ones would leave the HNSW graph (whose entries
    # outlive each test's rolled-back rows) degenerate for the tests that follow.
    vectors = np.random.default_rng(len(texts)).normal(size=(len(texts), 384))
    return Chunk.objects.bulk_create(
        Chunk(
            document=document,
            user_id=project.owner_id,
            project=project,
            chunk_index=index,
            text=text,
            start=0,
            end=len(text),
            embedding=vectors[index] / np.linalg.norm(vectors[index]),
            embedding_model="test",
        )
        for index, text in enumerate(texts)
    )


def reference_ranking(
    project: Project | None, user: User, query: str, k: int = 10
) -> list[tuple[int, float]]:
    """Plain Okapi BM25 (k1 1.2, b 0.75, Lucene's idf) over the user's passages as
    PostgreSQL tokenises them; ties broken by id."""
    rows = Chunk.objects.filter(user=user, document__isnull=False)
    if project is not None:
        rows = rows.filter(project=project)
    documents = {pk: _counts(str(vector)) for pk, vector in rows.values_list("id", "search_vector")}
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_tsvector('english', %s)::text", [query])
        terms = set(_counts(cursor.fetchone()[0]))
    total = len(documents)
    average = sum(sum(c.values()) for c in documents.values()) / total
    frequency = Counter(term for counts in documents.values() for term in counts)
    scores = []
    for pk, counts in documents.items():
        length = sum(counts.values())
        score = sum(
            math.log(1 + (total - frequency[t] + 0.5) / (frequency[t] + 0.5))
            * counts[t]
            * (K1 + 1)
            / (counts[t] + K1 * (1 - B + B * length / average))
            for t in terms
            if t in counts
        )
        if score > 0:
            scores.append((pk, score))
    return sorted(scores, key=lambda item: (-item[1], item[0]))[:k]


def _counts(tsvector: str) -> Counter[str]:
    return Counter(
        {
            m.group(1).replace("''", "'"): len(m.group(2).split(","))
            for m in _LEXEME.finditer(tsvector)
        }
    )


def same_top(cairn: list[tuple[int, float]], reference: list[tuple[int, float]]) -> bool:
    """The same rows, allowing rows of equal score to swap across the cut."""
    if len(cairn) != len(reference):
        return False
    if {pk for pk, _ in cairn} == {pk for pk, _ in reference}:
        return True
    return all(
        math.isclose(a[1], b[1], rel_tol=1e-6) for a, b in zip(cairn, reference, strict=True)
    )


def cairn_ranking(
    user: User, query: str, project: Project | None = None
) -> list[tuple[int, float]]:
    hits = text_search(user=user, query=query, project=project, kinds=("document",), k=10)
    return [(hit.chunk_id, hit.text_rank) for hit in hits]  # type: ignore[misc]


def queries(words: list[str], rng: random.Random, count: int) -> list[str]:
    """Two to five words each, common and rare alike, some not in the corpus at all."""
    return [
        " ".join(
            rng.choice(words[: rng.choice((30, 200, len(words)))]) for _ in range(rng.randint(2, 5))
        )
        for _ in range(count)
    ]


def agreement(user: User, asked: list[str], project: Project | None = None) -> float:
    agreeing = [
        same_top(cairn_ranking(user, query, project), reference_ranking(project, user, query))
        for query in asked
    ]
    return sum(agreeing) / len(agreeing)


def test_bm25_top_ten_equals_a_plain_implementation(user: User, other_user: User) -> None:
    # Given two projects of passages, and another user whose words are distributed otherwise
    rng = random.Random(19)
    words = vocabulary(600, rng)
    first, second = (project_create(owner=user, name=name) for name in ("First", "Second"))
    add_passages(first, [zipf_text(words, rng, rng.randint(5, 120)) for _ in range(300)])
    add_passages(second, [zipf_text(words[::-1], rng, rng.randint(5, 60)) for _ in range(150)])
    theirs = project_create(owner=other_user, name="Theirs")
    add_passages(theirs, [zipf_text(words[100:], rng, 40) for _ in range(300)])
    asked = queries(words, rng, 80)

    # When each query is ranked by Cairn and by the reference, across the user's rows and
    # within one project
    # Then the top ten are the same for at least 95 % of the queries
    assert agreement(user, asked) >= 0.95
    assert agreement(user, asked, project=first) >= 0.95


def test_statistics_follow_rows_as_they_are_added_and_deleted(user: User) -> None:
    rng = random.Random(7)
    words = vocabulary(200, rng)
    project = project_create(owner=user, name="Notes")
    chunks = add_passages(project, [zipf_text(words, rng, 30) for _ in range(120)])
    asked = queries(words, rng, 30)

    Chunk.objects.filter(pk__in=[c.pk for c in chunks[::2]]).delete()
    add_passages(project, [zipf_text(words[50:], rng, 20) for _ in range(40)])

    assert agreement(user, asked) >= 0.95
    assert statistics(user, "document") == recomputed(user, "indexing_chunk")
    Chunk.objects.filter(user=user).delete()
    assert not LexicalCollection.objects.filter(user_id=user.pk).exists()
    assert not LexicalTerm.objects.filter(user_id=user.pk).exists()


def test_scores_ignore_other_accounts(user: User, other_user: User) -> None:
    # Given a user's passages
    rng = random.Random(3)
    words = vocabulary(100, rng)
    add_passages(
        project_create(owner=user, name="Mine"), [zipf_text(words, rng, 25) for _ in range(50)]
    )
    query = " ".join(words[:3])
    before = cairn_ranking(user, query)

    # When another account adds many rows holding the same words
    add_passages(project_create(owner=other_user, name="Theirs"), [query] * 200)

    # Then the user's scores are unchanged: nothing of theirs weighs the words
    assert cairn_ranking(user, query) == before


def test_every_matching_row_is_eligible_and_rare_words_decide(user: User, project: Project) -> None:
    # One passage holds the rare word, hundreds hold only the common ones
    common = "weather today was nice and sunny in the garden"
    texts = [common] * 400 + [common + " zanzibar"]
    chunks = add_passages(project, texts)

    hits = text_search(user=user, query="garden weather zanzibar", kinds=("document",), k=5)

    assert hits[0].chunk_id == chunks[-1].pk
    assert len(hits) == 5


def test_claim_statistics_follow_edits(user: User) -> None:
    # Given claims, one of which is edited and another archived
    claims = [ClaimFactory(user=user, statement=f"I keep bees on allotment {n}") for n in range(3)]
    claims[0].statement = "I keep goats by the river"
    claims[0].save()
    claims[1].status = "archived"
    claims[1].save()

    # Then the statistics are those of the rows as they are now
    assert statistics(user, "claim") == recomputed(user, "claims_claim")
    assert ("goat", 1) in statistics(user, "claim")[1]


def statistics(user: User, kind: str) -> tuple[tuple[int, int], set[tuple[str, int]]]:
    collection = LexicalCollection.objects.get(user_id=user.pk, kind=kind)
    terms = LexicalTerm.objects.filter(user_id=user.pk, kind=kind).values_list("term", "rows")
    return (collection.rows, collection.tokens), set(terms)


def recomputed(
    user: User, table: str, where: str = "TRUE", column: str = "search_vector"
) -> tuple[tuple[int, int], set[tuple[str, int]]]:
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT count(*), coalesce(sum(cairn_tsvector_tokens({column})), 0) FROM {table} "  # noqa: S608 - names and conditions from the test, values as parameters
            f"WHERE user_id = %s AND {where}",
            [user.pk],
        )
        collection = cursor.fetchone()
        cursor.execute(
            f"SELECT u.lexeme, count(*) FROM {table} AS r, unnest(r.{column}) AS u "  # noqa: S608 - names and conditions from the test, values as parameters
            f"WHERE r.user_id = %s AND {where} GROUP BY 1",
            [user.pk],
        )
        return (int(collection[0]), int(collection[1])), {(t, int(n)) for t, n in cursor.fetchall()}


@pytest.mark.usefixtures("fake_provider")
def test_a_turn_is_found_by_its_window_and_the_hit_is_the_message(
    user: User, project: Project
) -> None:
    # Given a short reply whose subject is only in the turn it answers
    _, (question, answer, _) = conversation_with(
        user,
        project,
        [
            ("assistant", "Have you ever been to Lisbon?"),
            ("user", "Yes, last May!"),
            ("assistant", "How was the weather?"),
        ],
    )
    for message in (question, answer):
        message_index(message_id=message.pk)

    # When the user searches for the subject
    hits = hybrid_search(user=user, query="Lisbon", kinds=("message",))

    # Then the reply is found, as itself: its own text and provenance
    found = {hit.message_id: hit for hit in hits}
    assert answer.pk in found
    assert found[answer.pk].text == "Yes, last May!"
    assert text_search(user=user, query="Lisbon", kinds=("message",))[0].message_id == question.pk
    windows = recomputed(user, "indexing_chunk", "message_id IS NOT NULL", "window_vector")
    assert statistics(user, "window") == windows


def test_small_accounts_are_searched_exactly_or_with_a_longer_candidate_list(
    user: User, project: Project, settings: Any
) -> None:
    add_passages(project, ["one passage", "another passage", "a third"])
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE indexing_chunk")
    chunks = Collection(user_id=user.pk, kinds=("document", "message"))

    settings.CAIRN_SEARCH_EXACT_ROWS = 3
    assert vector_plan(chunks, None) == VectorPlan(exact=("chunk",))

    settings.CAIRN_SEARCH_EXACT_ROWS = 2
    settings.CAIRN_SEARCH_SMALL_SHARE = 1.01  # every account is a small share of the table
    settings.CAIRN_SEARCH_EF_SEARCH_SMALL = 1000
    # A small share of the table is compared exactly while that is the cheaper…
    settings.CAIRN_SEARCH_EXACT_ROWS_SMALL = 3
    assert vector_plan(chunks, None) == VectorPlan(exact=("chunk",))
    # …and beyond, searched with the longer candidate list.
    settings.CAIRN_SEARCH_EXACT_ROWS_SMALL = 2
    assert vector_plan(chunks, None).ef_for("chunk") == 1000

    settings.CAIRN_SEARCH_SMALL_SHARE = 0.0
    assert vector_plan(chunks, None) == VectorPlan()


def postings(user: User, kind: int | None = None) -> set[tuple[int, str, int, int]]:
    rows = ChunkPosting.objects.filter(user_id=user.pk)
    if kind is not None:
        rows = rows.filter(kind=kind)
    return set(rows.values_list("chunk_id", "term", "tf", "length"))


def postings_recomputed(user: User, column: str, where: str) -> set[tuple[int, str, int, int]]:
    length = "window_length" if column == "window_vector" else "search_length"
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT r.id, u.lexeme, greatest(cardinality(u.positions), 1), r.{length} "  # noqa: S608 - names and conditions from the test, values as parameters
            f"FROM indexing_chunk AS r, unnest(r.{column}) AS u WHERE r.user_id = %s AND {where}",
            [user.pk],
        )
        return {(pk, term, tf, length) for pk, term, tf, length in cursor.fetchall()}


def test_postings_follow_rows_as_they_are_added_changed_and_deleted(user: User) -> None:
    # Given passages of which some are deleted and others rewritten
    rng = random.Random(11)
    words = vocabulary(80, rng)
    project = project_create(owner=user, name="Notes")
    chunks = add_passages(project, [zipf_text(words, rng, 12) for _ in range(30)])
    Chunk.objects.filter(pk__in=[c.pk for c in chunks[:10]]).delete()
    Chunk.objects.filter(pk__in=[c.pk for c in chunks[10:15]]).update(text="rewritten zanzibar")

    # Then the postings are one per lexeme of each passage as it is now, with its term
    # frequency and length, and no passage's rows outlive it
    assert postings(user) == postings_recomputed(user, "search_vector", "TRUE")
    assert ("zanzibar" in {term for _, term, _, _ in postings(user)}) is True
    Chunk.objects.filter(user=user).delete()
    assert not ChunkPosting.objects.filter(user_id=user.pk).exists()


@pytest.mark.usefixtures("fake_provider")
def test_a_turns_window_postings_follow_its_neighbours(user: User, project: Project) -> None:
    # Given a conversation indexed turn by turn: each new turn changes its neighbour's window
    _, messages = conversation_with(
        user,
        project,
        [("user", "Tell me about Lisbon"), ("assistant", "Trams and tiles"), ("user", "Porto?")],
    )
    for message in messages:
        message_index(message_id=message.pk)

    # Then a turn's postings are its own words, and its window's those of it and its
    # neighbours, as they are after the last turn arrived
    assert postings(user, ChunkPosting.MESSAGE) == postings_recomputed(
        user, "search_vector", "message_id IS NOT NULL"
    )
    assert postings(user, ChunkPosting.WINDOW) == postings_recomputed(
        user, "window_vector", "message_id IS NOT NULL"
    )


def test_claim_postings_follow_edits_and_deletions(user: User) -> None:
    claims = [ClaimFactory(user=user, statement=f"I keep bees on allotment {n}") for n in range(3)]
    claims[0].statement = "I keep goats by the river"
    claims[0].save()
    claims[1].delete()

    stored = set(ClaimPosting.objects.filter(user_id=user.pk).values_list("claim_id", "term", "tf"))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT r.id, u.lexeme, greatest(cardinality(u.positions), 1) "
            "FROM claims_claim AS r, unnest(r.search_vector) AS u WHERE r.user_id = %s",
            [user.pk],
        )
        assert stored == set(cursor.fetchall())
    assert (claims[0].pk, "goat", 1) in stored
    assert not any(claim_id == claims[1].pk for claim_id, _, _ in stored)


def test_rows_outside_the_scope_never_crowd_out_the_ones_inside(
    user: User, project: Project
) -> None:
    # Given many rows that match best but are kept out of search (archived: the postings
    # still hold them), and one weaker match that is searchable
    chunks = add_passages(project, ["zanzibar zanzibar spice"] * 120 + ["zanzibar trip notes"])
    Chunk.objects.filter(pk__in=[c.pk for c in chunks[:120]]).update(archived=True)

    # When the best one is asked for
    hits = text_search(user=user, query="zanzibar spice", kinds=("document", "message"), k=1)

    # Then the ranking reads deeper than the archived rows and finds the searchable one
    assert [hit.chunk_id for hit in hits] == [chunks[-1].pk]


@pytest.mark.usefixtures("fake_provider")
def test_a_turn_indexed_before_its_answer_gains_the_answer_in_its_window(
    user: User, project: Project
) -> None:
    # Given a question indexed as soon as it was sent, before the answer existed
    conversation, [question] = conversation_with(user, project, [("user", "Any plans?")])
    message_index(message_id=question.pk)
    assert "Lisbon" not in Chunk.objects.get(message=question).context

    # When the answer is written and indexed
    answer = conversation.messages.create(role="assistant", content="Lisbon in May.", order=2)
    message_index(message_id=answer.pk)

    # Then the question's window holds the answer, so words of either find the turn
    assert "Lisbon in May." in Chunk.objects.get(message=question).context
    windows = recomputed(user, "indexing_chunk", "message_id IS NOT NULL", "window_vector")
    assert statistics(user, "window") == windows


def test_deleting_an_account_leaves_none_of_its_words_behind(user: User, project: Project) -> None:
    # Postings hold a user's words: they must go with the account, as its rows do
    add_passages(project, ["my secret garden in Zanzibar", "another private note"])
    ClaimFactory(user=user, statement="I keep bees on my allotment")
    user_id = user.pk  # delete() forgets it
    assert ChunkPosting.objects.filter(user_id=user_id).exists()
    assert ClaimPosting.objects.filter(user_id=user_id).exists()

    user.delete()

    assert not ChunkPosting.objects.filter(user_id=user_id).exists()
    assert not ClaimPosting.objects.filter(user_id=user_id).exists()
    assert not LexicalTerm.objects.filter(user_id=user_id).exists()


@pytest.mark.usefixtures("fake_provider")
def test_a_window_takes_the_nearest_turns_even_across_a_gap(user: User, project: Project) -> None:
    # Given a conversation whose middle turns were removed (orders 1, 5, 9)
    _, turns = conversation_with(
        user, project, [("user", "Lisbon?"), ("assistant", "Porto."), ("user", "Faro!")]
    )
    for message, order in zip(turns, (1, 5, 9), strict=True):
        message.order = order
        message.save(update_fields=["order"])

    messages_index(message_ids=[turns[1].pk])

    # Then the middle turn's window holds both of its real neighbours
    context = Chunk.objects.get(message=turns[1]).context
    assert "Lisbon?" in context
    assert "Faro!" in context
