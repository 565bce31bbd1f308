"""A second hop (issue 31): "where is the person who borrowed my stand mixer travelling
to?" is answered by two turns, one naming Lorcan as the borrower and one, weeks later,
saying where Lorcan is going. The question finds the first; the passages about whom it
names find the second. Only within the search's own scope, and nothing more is read
when the first hit names no one new."""

from __future__ import annotations

from dataclasses import replace

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.accounts.models import User
from apps.chat.models import Message
from apps.indexing.models import Chunk
from apps.indexing.search import _engine, evidence_search, hybrid_search
from apps.indexing.search._engine import KINDS, hybrid_rankings
from apps.indexing.search._fusion import FUSION, Rankings
from apps.indexing.search._hops import new_names, with_hop
from apps.indexing.services import messages_index
from apps.projects.models import Project
from apps.projects.services import project_ensure_personal
from tests.indexing.conftest import conversation_with

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("real_provider")]

LENT = "Lent my stand mixer to Lorcan for the weekend. We'll see if it comes back."
CUSCO = "Lorcan is off to Cusco for a month on Friday. Jealous!"
LIFE = [
    LENT,
    "The stand mixer's dough hook has a crack in it, I need a new one.",
    "Priya is flying to Lisbon for a conference next week.",
    "Borrowed a ladder from the neighbour to clear the gutters.",
    "Travelling to Edinburgh by train is cheaper if you book in March.",
    "Ximena is spending the summer in Oaxaca with her cousins.",
    "I'd love to go travelling somewhere warm this winter.",
    "Whoever borrowed my umbrella, please bring it back.",
    CUSCO,
]
QUESTION = "Where is the person who borrowed my stand mixer travelling to?"


def told(user: User, project: Project, texts: list[str]) -> list[Message]:
    _, messages = conversation_with(user, project, [("user", text) for text in texts])
    messages_index(message_ids=[message.pk for message in messages])
    return messages


def rankings_of(user: User, query: str) -> Rankings:
    return hybrid_rankings(user=user, query=query, project=None, kinds=KINDS, depth=30)


def hop(rankings: Rankings, query: str, user: User) -> Rankings:
    """``rankings`` with the second hop, from their first hit as the search fuses them."""
    fused = rankings.fused(FUSION)
    return with_hop(
        rankings,
        FUSION,
        fused[0][0] if fused else None,
        query=query,
        user=user,
        project=None,
        kinds=KINDS,
        exclude_message_ids=(),
        depth=30,
    )


def texts_of(user: User, query: str) -> list[str]:
    return [hit.text for hit in hybrid_search(user=user, query=query, k=10)]


def test_the_borrower_named_by_the_first_hit_leads_to_where_they_are_going(
    user: User, project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    told(user, project, LIFE)
    rankings = rankings_of(user, QUESTION)
    texts = dict(Chunk.objects.values_list("id", "text"))

    hopped = hop(rankings, QUESTION, user)
    found = texts_of(user, QUESTION)
    monkeypatch.setattr(_engine, "FUSION", replace(FUSION, hop=0.0))
    without = texts_of(user, QUESTION)

    assert found[0] == without[0] == LENT  # the first hit, naming Lorcan
    assert [texts[c.id] for c in hopped.hop] == [CUSCO]  # his other passage, the first not again
    assert found.index(CUSCO) <= 2 < without.index(CUSCO)  # the hop is what brought it up
    assert found.index(CUSCO) < min(
        found.index(text) for text in LIFE[2:7]
    )  # above every other trip or loan


def test_the_hop_reads_only_what_the_search_may(
    user: User, other_user: User, project: Project
) -> None:
    """Another user's turns about a Lorcan of their own, and the turns the search leaves
    out, are never what the hop finds."""
    told(other_user, project_ensure_personal(user=other_user), ["Lorcan is off to Lima."])
    messages = told(user, project, LIFE)
    cusco = messages[-1]

    everything = [hit.text for hit in hybrid_search(user=user, query=QUESTION, k=20)]
    left_out = evidence_search(user=user, query=QUESTION, k=20, exclude_message_ids=[cusco.pk])

    assert "Lorcan is off to Lima." not in everything
    assert CUSCO in everything
    assert [hit.text for hit in left_out if hit.message_id == cusco.pk] == []
    assert LENT in [hit.text for hit in left_out]


def test_a_first_hit_that_names_no_one_new_adds_nothing(user: User, project: Project) -> None:
    told(user, project, ["The sourdough starter is bubbling nicely.", *LIFE])
    query = "How is the sourdough starter doing?"
    rankings = rankings_of(user, query)

    with CaptureQueriesContext(connection) as statements:
        hopped = hop(rankings, query, user)

    assert hopped.hop == []
    assert len(statements) == 1  # the first hit's text, and nothing about anyone


def test_the_hop_follows_the_first_hits_names_not_the_questions(
    user: User, project: Project
) -> None:
    """A question naming Lorcan already has his passages (the entity list); the hop adds
    the passages of whom else the first hit names."""
    told(user, project, LIFE)
    query = "Where is Lorcan travelling to?"
    rankings = rankings_of(user, query)

    hopped = hop(rankings, query, user)

    assert rankings.about  # the question's own names
    assert hopped.hop == []  # its first hit names no one the question did not


def test_someone_much_of_the_account_is_about_is_no_bridge(user: User, project: Project) -> None:
    """A name in many of the account's passages (a transcript's speaker, a partner) says
    little of which of them answers: the hop does not follow it."""
    topics = ["the garden", "work", "the weather", "our holiday", "the car", "dinner",
              "the cat", "money", "the news", "a film", "her sister", "the house",
              "running", "a book", "the kids' school", "Christmas", "the neighbours",
              "football", "the dentist", "a new sofa", "the budget", "the allotment"]  # fmt: skip
    told(user, project, [f"Dagny and I talked about {topic} tonight." for topic in topics])
    told(user, project, ["Lent my stand mixer to Dagny for the weekend.", "Dagny is off to Cusco."])
    rankings = rankings_of(user, QUESTION)
    first = rankings.fused(FUSION)[0][0]

    hopped = hop(rankings, QUESTION, user)

    assert Chunk.objects.get(pk=first.id).text == "Lent my stand mixer to Dagny for the weekend."
    assert new_names(QUESTION, "Lent my stand mixer to Dagny for the weekend.")  # a name, new
    assert hopped.hop == []  # in 24 of 24 passages: not followed
