"""Reads of project facts: always through the user's own project, grouped for display,
with each key's history."""

from __future__ import annotations

import uuid

import pytest
from django.http import Http404

from apps.accounts.models import User
from apps.facts.selectors import (
    fact_groups,
    fact_history,
    facts_all,
    facts_current,
    facts_earlier_versions,
    facts_retracted_keys,
)
from apps.facts.services import fact_retract, fact_store
from apps.projects.models import Project
from tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db


def test_groups_put_ranked_lists_first_in_rank_order(user: User, project: Project) -> None:
    for key, value in [
        ("user.email", "a@b.io"),
        ("user.favorites.crypto.3", "XMR"),
        ("mentioned.org.siemens", "Siemens"),
        ("user.favorites.crypto.1", "BTC"),
        ("user.favorites.color.1", "blue"),
        ("user.dates.birthday", "1990-03-03"),
        ("project.deadline", "Friday"),
        ("user.favorites.crypto.10", "DOGE"),
        ("user.favorites.crypto.2", "ETH"),
    ]:
        fact_store(project=project, key=key, value=value)

    groups = fact_groups(user=user, project_id=project.pk)

    assert [(g.title, g.ranked) for g in groups] == [
        ("Favorite color", True),
        ("Favorite crypto", True),
        ("About you", False),
        ("Dates", False),
        ("Mentioned in passing", False),
        ("Project", False),
    ]
    assert [f.value_text for f in groups[1].facts] == ["BTC", "ETH", "XMR", "DOGE"]


def test_a_profile_namespace_and_a_profile_list_stay_apart(user: User, project: Project) -> None:
    fact_store(project=project, key="user.name", value="Jane")
    fact_store(project=project, key="user.favorites.profile.1", value="LinkedIn")

    groups = fact_groups(user=user, project_id=project.pk)

    assert [(g.title, [f.value_text for f in g.facts]) for g in groups] == [
        ("Favorite profile", ["LinkedIn"]),
        ("About you", ["Jane"]),
    ]


def test_history_is_the_chain_newest_first(user: User, project: Project) -> None:
    key = "user.favorites.crypto.1"
    rows = [fact_store(project=project, key=key, value=v).fact for v in ("BTC", "ETH", "XMR")]

    history = list(fact_history(user=user, project_id=project.pk, key=key))

    assert history == rows[::-1]
    assert [row.supersedes_id for row in history] == [rows[1].pk, rows[0].pk, None]


def test_current_all_earlier_and_retracted(user: User, project: Project) -> None:
    fact_store(project=project, key="a", value="1")
    fact_store(project=project, key="a", value="2")
    fact_store(project=project, key="b", value="x")
    fact_retract(project=project, key="b")

    assert [
        (f.fact_key, f.value_text) for f in facts_current(user=user, project_id=project.pk)
    ] == [("a", "2")]
    assert facts_all(user=user, project_id=project.pk).count() == 3
    earlier = facts_earlier_versions(user=user, project_id=project.pk, keys=["a", "b"])
    assert {k: [r.value_text for r in v] for k, v in earlier.items()} == {"a": ["1"], "b": ["x"]}
    assert [r.fact_key for r in facts_retracted_keys(user=user, project_id=project.pk)] == ["b"]


@pytest.mark.parametrize(
    "call",
    [
        lambda user, pid: fact_groups(user=user, project_id=pid),
        lambda user, pid: list(facts_current(user=user, project_id=pid)),
        lambda user, pid: list(facts_all(user=user, project_id=pid)),
        lambda user, pid: fact_history(user=user, project_id=pid, key="user.email"),
        lambda user, pid: facts_retracted_keys(user=user, project_id=pid),
    ],
)
def test_another_user_s_project_or_a_bad_id_is_404(
    user: User, other_user: User, call: object
) -> None:
    theirs = ProjectFactory(owner=other_user)
    fact_store(project=theirs, key="user.email", value="bob@example.com")

    for project_id in (theirs.pk, "not-a-uuid", uuid.uuid4()):
        with pytest.raises(Http404):
            call(user, project_id)  # type: ignore[operator]


@pytest.mark.parametrize("key", ["never.stored", "", "two words"])
def test_history_of_a_key_the_project_never_held_is_404(
    user: User, project: Project, key: str
) -> None:
    with pytest.raises(Http404):
        fact_history(user=user, project_id=project.pk, key=key)
