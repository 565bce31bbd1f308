"""A hit that says word for word what one above it says gives way to the others (issue 31):
a friend who says "Tuesday evenings are Norwegian for me now" in three chats has told one
thing, and the first hits should hold what else they told. Nothing is dropped: the repeats
come after every other hit."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.indexing.search import evidence_search, hybrid_search
from apps.indexing.search._diversity import repeats_last
from apps.indexing.search._hits import SearchHit, wording
from apps.indexing.services import messages_index
from apps.projects.models import Project
from tests.indexing.conftest import Committed, conversation_with

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("real_provider")]

NORWEGIAN = "Dagny: Tuesday evenings are Norwegian lessons for me now."
CLAY = "Dagny: I'm three weeks into a clay modelling course at the community college."
JUGGLING = "Dagny: I've been learning to juggle, five minutes every morning."
SMALL_TALK = [
    "Hamish: How was your week?",
    "Hamish: The weather here has been weirdly warm all week.",
    "Dagny: The neighbours are having building work done and it starts at eight.",
]
QUESTION = "Which skills has Dagny been learning?"


def chats(user: User, project: Project) -> None:
    """Three chats, each saying the Norwegian line again (once in other case and
    spacing), the other skills told once."""
    said = []
    for n, told in enumerate(
        [
            [NORWEGIAN, *SMALL_TALK[:1], CLAY],
            [*SMALL_TALK[1:], NORWEGIAN.upper(), JUGGLING],
            [SMALL_TALK[0], NORWEGIAN.replace(" for ", "  for ")],
        ]
    ):
        _, messages = conversation_with(
            user, project, [("user", text) for text in told], title=f"Chat {n}"
        )
        said += messages
    messages_index(message_ids=[message.pk for message in said])


def test_a_line_said_in_three_chats_is_one_hit_before_the_rest(
    user: User, project: Project
) -> None:
    chats(user, project)

    hits = hybrid_search(user=user, query=QUESTION, k=10)

    words = [wording(hit) for hit in hits]
    norwegian = [n for n, hit in enumerate(hits) if "norwegian" in hit.text.casefold()]
    assert {CLAY, JUGGLING} <= {hit.text for hit in hits[:3]}
    assert len(norwegian) == 3
    assert norwegian[0] < 3
    # The repeats (the Norwegian line twice, "How was your week?" once) come last, after
    # every hit that says something else.
    firsts = [n for n, said in enumerate(words) if said not in words[:n]]
    assert firsts == list(range(len(hits) - 3))
    assert set(norwegian[1:]) < set(range(len(hits) - 3, len(hits)))


def test_the_first_hits_without_repeats_are_those_asked_for(user: User, project: Project) -> None:
    """Asked for three, the search gives the three best distinct hits: the repeats it read
    further down do not fill the places."""
    chats(user, project)

    hits = hybrid_search(user=user, query=QUESTION, k=3)

    assert len({wording(hit) for hit in hits}) == 3
    assert {CLAY, JUGGLING} <= {hit.text for hit in hits}


def test_evidence_search_and_the_api_give_each_line_once_first(
    user: User, project: Project, token_client: APIClient, committed: Committed
) -> None:
    """Through the door every integration uses (/api/v1/search finds evidence only)."""
    with committed():
        chats(user, project)

    evidence = evidence_search(user=user, query=QUESTION, k=3)
    found = token_client.get("/api/v1/search", {"q": QUESTION, "k": 3})

    assert found.status_code == 200, found.content
    results = found.json()["results"]
    assert [hit["text"] for hit in results] == [hit.text for hit in evidence]
    assert len({" ".join(hit["text"].casefold().split()) for hit in results}) == 3
    assert {CLAY, JUGGLING} <= {hit["text"] for hit in results}


def hit(kind: str, text: str, *, evidence: bool = True) -> SearchHit:
    return SearchHit(kind, 1.0, None, None, text=text, evidence=evidence)


def test_only_the_same_words_of_the_same_kind_and_speaker_are_repeats() -> None:
    hits = [
        hit("message", "Sending strength."),
        hit("message", "Sending  STRENGTH."),  # a repeat: case and spacing aside
        hit("claim", "Sending strength."),  # a claim, not a turn
        hit("message", "Sending strength.", evidence=False),  # Cairn said it
        hit("message", "Sending strength!"),  # other words
        hit("message", "sending strength."),  # a repeat
    ]

    ordered = repeats_last(hits, key=wording)

    assert ordered == [hits[0], hits[2], hits[3], hits[4], hits[1], hits[5]]
    assert repeats_last([], key=wording) == []
