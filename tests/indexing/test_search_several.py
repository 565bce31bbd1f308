"""Questions whose answer is told in parts, in sessions months apart (issue 31): "which
places has Ilse been to?" finds each trip, not one trip and its near-copies."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

import pytest

from apps.accounts.models import User
from apps.chat.models import Message
from apps.claims.models import ClaimStatus
from apps.indexing.search import _engine, evidence_search, hybrid_search
from apps.indexing.search._fusion import FUSION
from apps.indexing.services import messages_index
from apps.projects.models import Project
from apps.projects.services import project_ensure_personal
from tests.factories import UserFactory
from tests.indexing.conftest import conversation_with
from tests.knowledge_factories import ClaimFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("real_provider", "media_root")]

QUESTION = "Which places has Ilse travelled to?"
# Three trips told in three sessions months apart; the first told twice more that day.
SINTRA = "Ilse sent a postcard from Sintra; the ferry was late."
COLMAR = "Ilse is back from four days in Colmar with a suitcase of cheese."
RONDA = "Ilse spent the long weekend wandering round Ronda's old town."
TRIPS = [
    ("2024-01-14T10:00:00+00:00", SINTRA),
    ("2024-01-14T10:05:00+00:00", "Ilse's postcard from Sintra is on the fridge now."),
    ("2024-01-14T10:09:00+00:00", "Ilse says the palaces in Sintra were worth the queue."),
    ("2024-01-14T10:12:00+00:00", "The boiler man comes on Tuesday."),
    ("2024-04-02T19:00:00+00:00", COLMAR),
    ("2024-04-02T19:04:00+00:00", "I finally finished the tax return."),
    ("2024-08-21T08:30:00+00:00", RONDA),
    ("2024-08-21T08:34:00+00:00", "My sister wants to repaint the kitchen yellow."),
]


def said(
    user: User, project: Project, turns: list[tuple[str, str]], role: str = "user"
) -> dict[str, Message]:
    """One conversation of turns, each said at its time, indexed; by text."""
    _, messages = conversation_with(user, project, [(role, text) for _, text in turns])
    for message, (when, _) in zip(messages, turns, strict=True):
        Message.objects.filter(pk=message.pk).update(created_at=datetime.fromisoformat(when))
    messages_index(message_ids=[message.pk for message in messages])
    return {message.content: message for message in messages}


@pytest.fixture
def diverse(monkeypatch: pytest.MonkeyPatch) -> None:
    """The diversity on, as the tuning chose it before the memory units (0.1): with them
    the quality corpus's tuning half no longer tells it from none, and it is off."""
    monkeypatch.setattr(_engine, "FUSION", replace(FUSION, diversity=0.1))


def places(hits: list[object]) -> set[str]:
    texts = " ".join(hit.text for hit in hits)  # type: ignore[attr-defined]
    return {place for place in ("Sintra", "Colmar", "Ronda") if place in texts}


@pytest.mark.usefixtures("diverse")
def test_which_places_finds_the_three_trips_told_in_three_sessions(
    user: User, project: Project
) -> None:
    said(user, project, TRIPS)

    hits = hybrid_search(user=user, query=QUESTION, k=4)

    assert places(hits) == {"Sintra", "Colmar", "Ronda"}
    assert sum("Sintra" in hit.text for hit in hits) <= 2


def test_without_diversity_the_near_copies_crowd_a_trip_out(
    user: User, project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the diversity is for: ranked by fused score alone, the second telling of the
    Sintra postcard takes the place of a trip."""
    said(user, project, TRIPS)
    monkeypatch.setattr(_engine, "FUSION", replace(FUSION, diversity=0.0))

    hits = hybrid_search(user=user, query=QUESTION, k=3)

    assert len(places(hits)) < 3
    assert sum("Sintra" in hit.text for hit in hits) >= 2


@pytest.mark.usefixtures("diverse")
def test_cairns_answer_repeating_a_trip_does_not_push_the_trip_out(
    user: User, project: Project
) -> None:
    """Cairn's own answers are no evidence and are left out of an evidence search; one
    that quotes a turn, ranked above it, must not make that turn look redundant."""
    said(user, project, TRIPS)
    answer = f"Places Ilse has travelled to: Sintra. {SINTRA}"
    said(user, project, [("2024-09-01T12:00:00+00:00", answer)], role="assistant")
    assert hybrid_search(user=user, query=QUESTION, k=1)[0].text == answer

    hits = evidence_search(user=user, query=QUESTION, k=4)
    assert SINTRA in [hit.text for hit in hits]
    assert places(hits) == {"Sintra", "Colmar", "Ronda"}


def test_a_forgotten_or_archived_trip_does_not_come_back(user: User, project: Project) -> None:
    turns = said(user, project, TRIPS)
    ClaimFactory(
        user=user,
        statement="Ilse went to Ronda",
        status=ClaimStatus.RETRACTED,
        source_message=turns[RONDA],
    )
    other_project = project_ensure_personal(user=UserFactory())
    said(other_project.owner, other_project, [("2024-05-05T09:00:00+00:00", "Ilse loved Bled.")])

    hits = evidence_search(user=user, query=QUESTION, k=5, kinds=("message",))

    assert "Ronda" not in places(hits)
    assert {"Sintra", "Colmar"} <= places(hits)
    assert all("Bled" not in hit.text for hit in hits)  # another user's trip
