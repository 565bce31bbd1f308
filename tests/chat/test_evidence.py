"""Chat memory that is evidence (issue 17): Cairn's own answers are indexed and found; a
bare question of the user's, a failed answer and the turns already in the conversation's
history are never offered as sources; chat sources say who said what, and when."""

from __future__ import annotations

from typing import Any

import pytest

from apps.accounts.models import User
from apps.chat.models import Message
from apps.chat.pipeline.prepare import is_bare_question, relevant_chunks
from apps.indexing.models import Chunk
from apps.indexing.services import message_index
from apps.projects.models import Project
from apps.projects.services import project_ensure_personal
from tests.indexing.conftest import conversation_with, real_provider  # noqa: F401 - fixture

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("real_provider")]


@pytest.fixture
def home(user: User) -> Project:
    return project_ensure_personal(user=user)


QUESTION = "When is my dentist appointment?"


def _indexed(user: User, home: Project, turns: list[tuple[str, str]], **kw: Any) -> list[Message]:
    _, messages = conversation_with(user, home, turns, **kw)
    for message in messages:
        message_index(message_id=message.pk)
    return messages


def test_only_evidence_is_offered_and_answers_are_titled_by_who_said_them(
    user: User, home: Project
) -> None:
    asked, answered, failed = _indexed(
        user,
        home,
        [
            ("user", QUESTION),
            ("assistant", "Your dentist appointment is on 3 May at 10:00 with Dr Ivić."),
            ("assistant", "Your dentist appointment is on 9 May, I think."),
        ],
        title="Appointments",
    )
    Message.objects.filter(pk=failed.pk).update(status=Message.Status.FAILED)
    current_conversation, (recent, current) = conversation_with(
        user, home, [("user", "Dentist appointment: bring the X-rays."), ("user", QUESTION)]
    )
    message_index(message_id=recent.pk)

    hits = relevant_chunks(
        user=user, conversation=current_conversation, query=QUESTION, message=current
    )

    found = {hit.message_id for hit in hits}
    assert answered.pk in found
    assert asked.pk not in found  # a bare question is no evidence
    assert failed.pk not in found  # nor an answer that failed
    assert recent.pk not in found  # already in the model's history
    (answer,) = [hit for hit in hits if hit.message_id == answered.pk]
    assert answer.title.startswith("Cairn, ")
    assert ": Your dentist appointment is on 3 May" in answer.title


@pytest.mark.parametrize(
    ("text", "bare"),
    [
        ("When is my dentist appointment?", True),
        ("Where? And when?", True),
        ("I moved to Split. When is the ferry?", False),
        ("My #1 crypto is BTC.", False),
    ],
)
def test_a_bare_question_is_only_questions(text: str, bare: bool) -> None:
    assert is_bare_question(text) is bare


def test_a_saved_answer_is_indexed_without_its_sources_footer(user: User, home: Project) -> None:
    from apps.chat.pipeline.sources import FOOTER_MARK

    (answer,) = _indexed(
        user, home, [("assistant", "Mornings suit you [1]." + FOOTER_MARK + "[1] a claim")]
    )

    (chunk,) = Chunk.objects.filter(message=answer)
    assert chunk.text == "Mornings suit you [1]."


def test_every_hit_has_its_similarity_and_one_threshold_rules_every_kind(
    user: User, home: Project, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from apps.chat.pipeline.memory import auto_claims
    from apps.chat.pipeline.sources import SourceRegistry
    from apps.chat.pipeline.tools.executor import TurnTools
    from apps.chat.pipeline.tools.schemas import MemorySearchInput
    from apps.claims.services import claim_create
    from apps.indexing.search import hybrid_search

    with django_capture_on_commit_callbacks(execute=True):  # embedded, as by the worker
        claim_create(user=user, statement="Zebrafish Xyloquartz sits in the garage")
    conversation, (question, *_) = conversation_with(user, home, [("user", "Xyloquartz?")])
    _indexed(user, home, [("assistant", "Xyloquartz was delivered on Monday.")])
    query = "where is the Xyloquartz"

    hits = hybrid_search(user=user, query=query)
    assert hits
    assert all(hit.vector_similarity is not None for hit in hits)  # word-only ones too

    settings.CAIRN_CITE_THRESHOLD = 0.99
    tools = TurnTools(user=user, message=question, registry=SourceRegistry())
    assert auto_claims(user, query, None) == []
    assert (
        relevant_chunks(user=user, conversation=conversation, query=query, message=question) == []
    )
    assert (
        tools.memory_search(MemorySearchInput(query=query, limit=5)) == "Nothing in memory matches."
    )

    settings.CAIRN_CITE_THRESHOLD = -1.0
    assert [claim.statement for claim, _ in auto_claims(user, query, None)] == [
        "Zebrafish Xyloquartz sits in the garage"
    ]
    assert relevant_chunks(user=user, conversation=conversation, query=query, message=question)
