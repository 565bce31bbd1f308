"""Memory units (issue 31): the statements a person's chat turns make, told of whoever
said them, searched beside the turns and counted for them. Built after the turns are
indexed, only of people's turns, gone with their turn, and searched only where the turn
itself is."""

from __future__ import annotations

import uuid

import pytest
from django.core.management import call_command
from django.utils import timezone
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.chat.models import Message
from apps.chat.services import conversation_set_archived
from apps.indexing.models import Chunk, MemoryUnit
from apps.indexing.search import hybrid_search
from apps.indexing.search._engine import KINDS, hybrid_rankings
from apps.indexing.services import message_index, messages_index
from apps.indexing.services.units import by_person, units_build
from apps.indexing.turns import TurnSaid
from apps.indexing.units import units_of
from apps.projects.models import Project
from apps.projects.services import project_ensure_personal
from tests.indexing.conftest import Committed, conversation_with

POTTERY = "Melanie: I took my kids to a pottery class on Saturday. Good for you!"
TRANSCRIPT = [
    ("user", POTTERY),
    ("assistant", "Caroline: I'm three weeks into an archery course at the college."),
    ("user", "Melanie: Work has been relentless this week, honestly."),
    ("assistant", "Caroline: Tell me about it."),
    ("user", "Melanie: What are you up to at the weekend?"),
]
QUESTION = "What activities does Melanie do with her kids?"


def test_a_turn_states_its_sentences_of_whoever_said_it() -> None:
    assert units_of(POTTERY, speaker="Melanie") == [
        "Melanie took Melanie's kids to a pottery class on Saturday."
    ]
    assert units_of(TRANSCRIPT[1][1], speaker="Caroline") == [
        "Caroline is three weeks into an archery course at the college."
    ]
    # Questions, greetings and fillers state nothing.
    assert units_of("Caroline: Tell me about it.", speaker="Caroline") == []
    assert units_of("Melanie: What are you up to at the weekend?", speaker="Melanie") == []
    # The user's own turns keep the first person: the user asks of them so.
    assert units_of("I sold my old bike to a neighbour. Thanks!", speaker=None) == [
        "I sold my old bike to a neighbour."
    ]


def turn(role: str, content: str, external_source: str = "", status: str = "complete") -> TurnSaid:
    return TurnSaid(
        message_id=uuid.uuid4(),
        conversation_id=uuid.uuid4(),
        role=role,
        content=content,
        status=status,
        created_at=timezone.now(),
        external_source=external_source,
    )


def test_only_a_persons_finished_turns_make_units() -> None:
    assert by_person(turn("user", "I sold my bike."))
    assert by_person(turn("assistant", "Caroline: I sold my bike.", "transcript"))
    assert not by_person(turn("assistant", "Caroline: I sold my bike."))  # Cairn's answer
    assert not by_person(turn("assistant", "Bikes hold their value well.", "chatgpt"))
    assert not by_person(turn("user", "I sold my bike.", status="failed"))


@pytest.mark.django_db
@pytest.mark.usefixtures("real_provider")
def test_an_imported_transcript_gets_units_of_both_speakers(
    token_client: APIClient, committed: Committed
) -> None:
    """Built by the follow-up task the import queues; a question in the third person
    finds the turn said in the first."""
    with committed():
        response = token_client.post(
            "/api/v1/conversations/import/",
            {"title": "Melanie and Caroline", "messages": [
                {"role": role, "content": text} for role, text in TRANSCRIPT
            ]},
            format="json",
        )  # fmt: skip
    assert response.status_code == 201, response.content
    pottery, archery, *_ = response.json()["message_ids"]

    units = {
        text: str(pk) for text, pk in MemoryUnit.objects.values_list("text", "chunk__message_id")
    }

    assert units.pop("Melanie took Melanie's kids to a pottery class on Saturday.") == pottery
    assert units.pop("Caroline is three weeks into an archery course at the college.") == archery
    assert list(units) == ["Work has been relentless this week, honestly."]
    found = token_client.get("/api/v1/search", {"q": QUESTION, "kinds": "message"})
    assert found.json()["results"][0]["message_id"] == pottery


@pytest.mark.django_db
@pytest.mark.usefixtures("real_provider")
def test_cairns_own_answers_have_no_units(user: User, project: Project) -> None:
    _, messages = conversation_with(
        user,
        project,
        [
            ("user", "I repotted the fig tree on the balcony yesterday."),
            ("assistant", "Figs like a bigger pot every couple of years in spring."),
        ],
    )
    messages_index(message_ids=[m.pk for m in messages])

    assert units_build(message_ids=[m.pk for m in messages]) == 1
    [unit] = MemoryUnit.objects.select_related("chunk")
    assert unit.text == "I repotted the fig tree on the balcony yesterday."
    # The whole turn as the model read it: its vector is the turn's, not embedded again.
    assert list(unit.embedding) == list(unit.chunk.embedding)


@pytest.mark.django_db
@pytest.mark.usefixtures("real_provider")
def test_units_go_with_their_turn_and_one_set_is_kept(user: User, project: Project) -> None:
    _, [turn] = conversation_with(user, project, [("user", POTTERY)])
    message_index(message_id=turn.pk)
    units_build(message_ids=[turn.pk])
    units_build(message_ids=[turn.pk])
    assert MemoryUnit.objects.count() == 1

    message_index(message_id=turn.pk)  # its chunks replaced: the old units go with them
    assert MemoryUnit.objects.count() == 0
    units_build(message_ids=[turn.pk])
    assert MemoryUnit.objects.get().chunk.message_id == turn.pk

    Message.objects.filter(pk=turn.pk).delete()
    assert not MemoryUnit.objects.exists()


def said(user: User, project: Project, turns: list[tuple[str, str]]) -> list[Message]:
    _, messages = conversation_with(user, project, turns)
    messages_index(message_ids=[m.pk for m in messages])
    units_build(message_ids=[m.pk for m in messages])
    return messages


def units_found(user: User, project: Project | None = None, **scope: object) -> list[int]:
    rankings = hybrid_rankings(
        user=user, query=QUESTION, project=project, kinds=KINDS, depth=30, **scope
    )  # type: ignore[arg-type]
    return [candidate.id for candidate in rankings.units]  # type: ignore[misc]


@pytest.mark.django_db
@pytest.mark.usefixtures("real_provider")
def test_units_are_searched_only_where_their_turn_is(
    user: User, other_user: User, project: Project
) -> None:
    """Another user's units, another project's, an archived conversation's and those of an
    excluded turn count for nothing; each turn is counted once, by its best unit."""
    [mine] = said(user, project, [("user", POTTERY)])
    [excluded] = said(user, project, [("user", "Melanie: I took my kids to the zoo. Lovely.")])
    [archived] = said(user, project, [("user", "Melanie: My kids and I baked bread today.")])
    conversation_set_archived(conversation=archived.conversation, archived=True)
    elsewhere = Project.objects.create(owner=user, name="Elsewhere")
    [other_project] = said(user, elsewhere, [("user", "Melanie: My kids love the swings.")])
    said(
        other_user,
        project_ensure_personal(user=other_user),
        [("user", "Melanie: I took my kids to the cinema.")],
    )
    chunk = {m.pk: Chunk.objects.get(message=m).pk for m in (mine, excluded, other_project)}

    everywhere = units_found(user, exclude_message_ids=[excluded.pk])
    assert sorted(everywhere) == sorted([chunk[mine.pk], chunk[other_project.pk]])
    assert units_found(user, project=project, exclude_message_ids=[excluded.pk]) == [chunk[mine.pk]]
    assert set(units_found(user, project=project)) == {chunk[mine.pk], chunk[excluded.pk]}


@pytest.mark.django_db
@pytest.mark.usefixtures("real_provider")
def test_turns_indexed_before_units_get_them_from_reindex(user: User, project: Project) -> None:
    said(user, project, TRANSCRIPT)
    MemoryUnit.objects.all().delete()

    call_command("reindex", "--units", stdout=None)

    # Melanie's two statements: in a chat with Cairn, the "assistant" turns are Cairn's.
    assert MemoryUnit.objects.count() == 2
    assert hybrid_search(user=user, query=QUESTION, kinds=["message"])[0].text == POTTERY
