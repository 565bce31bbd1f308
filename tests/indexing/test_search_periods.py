"""A question that names a time finds what was said then (issue 19): "what did I splash out
on in May 2024?" ranks May 2024's turns, whatever words they used."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.chat.models import Message
from apps.chat.services import conversation_set_archived
from apps.indexing.models import Chunk
from apps.indexing.search._engine import KINDS, hybrid_rankings, hybrid_search
from apps.indexing.search._plans import period_plan
from apps.indexing.search._queries import chunk_scope
from apps.indexing.services import documents_upload, message_index, messages_index
from apps.projects.models import Project
from apps.projects.services import project_create, project_ensure_personal
from tests.indexing.conftest import Committed, conversation_with, upload

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("real_provider", "media_root")]

# What arrived when: the question's words match none of the May turn's better than the
# others' ("splash out" is in none of them).
PURCHASES = [
    ("2024-01-12T18:00:00+00:00", "The sea kayak arrived! It's taking up half the hallway."),
    ("2024-05-20T09:30:00+00:00", "The electric cargo bike arrived! Worth every penny."),
    ("2024-09-02T20:15:00+00:00", "Splurged on an espresso grinder today. No regrets."),
]


def said(user: User, project: Project, turns: list[tuple[str, str]]) -> list[Message]:
    """One conversation of the user's turns, each said at its time, indexed."""
    _, messages = conversation_with(user, project, [("user", text) for _, text in turns])
    for message, (when, _) in zip(messages, turns, strict=True):
        Message.objects.filter(pk=message.pk).update(created_at=datetime.fromisoformat(when))
    messages_index(message_ids=[message.pk for message in messages])
    return messages


def test_the_turns_said_in_the_named_month_come_first(user: User, project: Project) -> None:
    kayak, bike, grinder = said(user, project, PURCHASES)

    for month, expected in (("January", kayak), ("May", bike), ("September", grinder)):
        hits = hybrid_search(user=user, query=f"What did I splash out on in {month} 2024?")
        assert hits[0].message_id == expected.pk, month
        assert hits[0].created_at.strftime("%B %Y") == f"{month} 2024"


def test_a_question_naming_no_time_is_ranked_as_before(user: User, project: Project) -> None:
    said(user, project, PURCHASES)

    rankings = hybrid_rankings(
        user=user, query="What did I splash out on?", project=None, kinds=KINDS, depth=30
    )

    assert rankings.period == []


def test_a_month_with_nothing_said_in_it_adds_nothing(user: User, project: Project) -> None:
    said(user, project, PURCHASES)

    rankings = hybrid_rankings(
        user=user, query="What did I buy in March 2024?", project=None, kinds=KINDS, depth=30
    )

    assert rankings.period == []
    assert len(hybrid_search(user=user, query="What did I buy in March 2024?")) == 3


def test_the_period_holds_only_what_the_search_may_see(
    user: User, other_user: User, project: Project
) -> None:
    """Another user's turns, another project's, an archived conversation's and the excluded
    messages are never in it: the period list is scoped as every other list is."""
    may = [("2024-05-03T10:00:00+00:00", "The electric cargo bike arrived!")]
    [mine] = said(user, project, may)
    [theirs] = said(other_user, project_ensure_personal(user=other_user), may)
    garden = project_create(owner=user, name="Garden")
    [elsewhere] = said(user, garden, may)
    [archived] = said(user, project, may)
    conversation_set_archived(conversation=archived.conversation, archived=True)
    [excluded] = said(user, project, may)

    def period(**scope: object) -> set[object]:
        rankings = hybrid_rankings(
            user=user,
            query="what arrived in May 2024",
            kinds=("message",),
            depth=30,
            **{"project": None, **scope},  # type: ignore[arg-type]
        )
        ids = [candidate.id for candidate in rankings.period]
        return set(Chunk.objects.filter(pk__in=ids).values_list("message_id", flat=True))

    assert period(exclude_message_ids=[excluded.pk]) == {mine.pk, elsewhere.pk}
    assert period(project=project) == {mine.pk, excluded.pk}
    assert theirs.pk not in period()


def test_claims_and_files_are_not_dated_by_when_they_were_stored(
    user: User, project: Project, committed: Committed
) -> None:
    [message] = said(user, project, PURCHASES[1:2])
    with committed():
        documents_upload(project=project, files=[upload("bike.md", "The cargo bike arrived.")])

    rankings = hybrid_rankings(
        user=user,
        query=f"what arrived in {datetime.now(UTC):%B %Y}",
        project=None,
        kinds=KINDS,
        depth=30,
    )

    assert rankings.period == []  # the file was uploaded this month, but said nothing then
    assert Chunk.objects.get(message=message).said_at == datetime(2024, 5, 20, 9, 30, tzinfo=UTC)
    assert Chunk.objects.get(document__isnull=False).said_at is None


def test_indexing_one_message_dates_its_chunks(user: User, project: Project) -> None:
    _, [message] = conversation_with(user, project, [("user", "The sea kayak arrived!")])

    message_index(message_id=message.pk)

    message.refresh_from_db()
    assert Chunk.objects.get(message=message).said_at == message.created_at


def test_a_long_period_is_searched_by_the_index(user: User, project: Project) -> None:
    """Up to ``CAIRN_SEARCH_EXACT_ROWS_SMALL`` rows are compared one by one; beyond, the HNSW
    index serves the period as it serves a large account, and finds the same turn."""
    _, bike, _ = said(user, project, PURCHASES)
    year = (datetime(2024, 1, 1, tzinfo=UTC), datetime(2025, 1, 1, tzinfo=UTC))
    scope = chunk_scope(user_id=user.pk, project_id=None, kinds=["message"], said_between=year)

    assert period_plan(scope, user_id=user.pk, said_between=year).exact == ("chunk",)
    with override_settings(CAIRN_SEARCH_EXACT_ROWS_SMALL=2):
        plan = period_plan(scope, user_id=user.pk, said_between=year)
    assert plan.exact == ()
    assert dict(plan.ef_search)["chunk"] > 0

    with override_settings(CAIRN_SEARCH_EXACT_ROWS_SMALL=0):  # May's one turn, by the index
        hits = hybrid_search(user=user, query="What did I splash out on in May 2024?")
    assert hits[0].message_id == bike.pk


@override_settings(CAIRN_SEARCH_EXACT_ROWS_SMALL=1)
def test_a_period_is_counted_in_the_scope_searched_before_it_leaves_exact_search(
    user: User, other_user: User, project: Project
) -> None:
    """The user's turns of the period bound it from above; past the threshold, those of the
    scope searched decide: another project's turns and archived ones do not send a
    period of one turn to the index (another user's turns are in neither count)."""
    elsewhere = project_create(owner=user, name="Elsewhere")
    said(user, project, [PURCHASES[1]])
    said(user, elsewhere, [PURCHASES[1], PURCHASES[1]])
    [archived] = said(user, project, [PURCHASES[1]])
    conversation_set_archived(conversation=archived.conversation, archived=True)
    said(other_user, project_ensure_personal(user=other_user), [PURCHASES[1]] * 3)
    may = (datetime(2024, 5, 1, tzinfo=UTC), datetime(2024, 6, 1, tzinfo=UTC))

    def plan(in_project: Project | None) -> tuple[str, ...]:
        scope = chunk_scope(
            user_id=user.pk,
            project_id=in_project.pk if in_project else None,
            kinds=["message"],
            said_between=may,
        )
        return period_plan(scope, user_id=user.pk, said_between=may).exact

    assert plan(project) == ("chunk",)  # one live turn of the user's four: compared exactly
    assert plan(None) == ()  # three live turns: by the index
    with override_settings(CAIRN_SEARCH_EXACT_ROWS_SMALL=3):
        assert plan(None) == ("chunk",)  # four of the user's, three of them searched


@pytest.mark.django_db(transaction=True)
def test_a_period_is_searched_with_the_chunks_and_finds_what_it_finds_alone(
    user: User,
    other_user: User,
    project: Project,
    settings: object,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A named period's turns are searched on the caller's thread in the chunks' own
    statement (no thread of their own), scoped to the user (and the project) alike whether
    the other rankings run beside or not."""
    import threading

    from apps.indexing.search import _engine as search

    _, bike, _ = said(user, project, PURCHASES)
    said(user, project_create(owner=user, name="Elsewhere"), [PURCHASES[1]])
    said(other_user, project_ensure_personal(user=other_user), [PURCHASES[1]])
    query = "What did I splash out on in May 2024?"
    settings.CAIRN_BESIDE_THREADS = 0  # type: ignore[attr-defined]
    alone = hybrid_rankings(user=user, query=query, project=project, kinds=KINDS, depth=30)
    settings.CAIRN_BESIDE_THREADS = 4  # type: ignore[attr-defined]
    ran: list[tuple[str, int]] = []
    original = search.nearest_each

    def spy(searches: list[object], *args: object) -> object:
        ran.append((threading.current_thread().name, len(searches)))
        return original(searches, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(search, "nearest_each", spy)
    beside = hybrid_rankings(user=user, query=query, project=project, kinds=KINDS, depth=30)

    assert ran == [("MainThread", 2)]  # the chunks and the period, together
    assert [c.id for c in beside.period] == [c.id for c in alone.period]
    [found] = beside.period  # May's turn in this project only
    assert Chunk.objects.get(pk=found.id).message_id == bike.pk


def test_the_api_finds_an_imported_turn_by_its_month(
    token_client: APIClient, committed: Committed
) -> None:
    """As an integration would: a transcript imported with its dates, then searched."""
    with committed():
        response = token_client.post(
            "/api/v1/conversations/import/",
            {
                "title": "Purchases",
                "messages": [
                    {"role": "user", "content": text, "created_at": when}
                    for when, text in PURCHASES
                ],
            },
            format="json",
        )
    assert response.status_code == 201, response.content
    bike = response.json()["message_ids"][1]

    found = token_client.get(
        "/api/v1/search", {"q": "What did I splash out on in May 2024?", "kinds": "message"}
    )

    assert found.status_code == 200
    assert found.json()["results"][0]["message_id"] == bike
