from __future__ import annotations

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.claims.services import claim_create, entity_create, tag_create
from apps.contexts.autocomplete import normalise_query, reference_suggestions
from apps.contexts.services import context_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def memory(user: User) -> None:
    claim_create(user=user, statement="I prefer morning workouts", friendly_id="prefer_morning")
    claim_create(user=user, statement="Project Alpha ships in May", friendly_id="alpha_ships")
    context_create(user=user, name="Project Alpha", friendly_id="alpha_context")
    entity_create(
        user=user, name="Alpha Corp", entity_type="organisation", friendly_id="alpha_corp_entity"
    )
    tag_create(user=user, name="Alpha", friendly_id="alpha_tag")


def test_prefix_matches_come_first_across_kinds(user: User, memory: None) -> None:
    found = reference_suggestions(user=user, query="alpha")

    kinds = {s.kind for s in found if s.friendly_id.startswith("alpha")}
    assert kinds == {"claim", "context", "entity", "tag"}
    assert all(s.tier == 0 for s in found[:4])


def test_claims_insert_the_friendly_id_the_list_shows(user: User, memory: None) -> None:
    found = reference_suggestions(user=user, query="prefer")

    assert found[0].insert == "prefer_morning"  # issue 18: not "claim_1"
    assert found[0].label == "#1"
    assert found[0].preview == "I prefer morning workouts"


def test_a_bare_at_lists_pinned_claims_first_then_recent_ones_pending_included(
    user: User, memory: None
) -> None:
    claim_create(user=user, statement="I run at dawn", friendly_id="run_dawn", pinned=True)
    claim_create(user=user, statement="I like green tea", friendly_id="green_tea", status="pending")

    found = reference_suggestions(user=user, query="")

    assert [(s.friendly_id, s.group) for s in found[:3]] == [
        ("run_dawn", "pinned"),
        ("green_tea", "recent"),
        ("alpha_ships", "recent"),
    ]
    assert ("alpha_context", "recent") in [(s.friendly_id, s.group) for s in found]
    assert all(s.insert == s.friendly_id for s in found)


def test_a_bare_at_shows_nothing_of_another_user(
    user: User, other_user: User, memory: None
) -> None:
    assert reference_suggestions(user=other_user, query="") == []


def test_numbers_statement_words_domains_and_typos(user: User, memory: None) -> None:
    assert reference_suggestions(user=user, query="#2")[0].friendly_id == "alpha_ships"
    assert any(
        s.friendly_id == "prefer_morning" for s in reference_suggestions(user=user, query="workout")
    )
    assert reference_suggestions(user=user, query="heal")[0].friendly_id == "health_domain"
    assert any(
        s.friendly_id == "prefer_morning"
        for s in reference_suggestions(user=user, query="prefr_mornin")
    )


def test_typos_are_matched_among_the_newest_claims_only(
    user: User, memory: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The typo branch is bounded to the newest FUZZY_WINDOW claims (its cost grows with
    every row it scores); older claims stay reachable by prefix, number and words."""
    from apps.contexts import autocomplete

    monkeypatch.setattr(
        autocomplete,
        "_FUZZY_SQL",
        autocomplete._FUZZY_SQL.replace(f"LIMIT {autocomplete.FUZZY_WINDOW})", "LIMIT 1)"),
    )
    claim_create(user=user, statement="Newest claim", friendly_id="newest_claim")

    assert reference_suggestions(user=user, query="newst_claim")[0].friendly_id == "newest_claim"
    assert all(
        s.friendly_id != "prefer_morning"
        for s in reference_suggestions(user=user, query="prefr_mornin")
    )
    assert reference_suggestions(user=user, query="prefer_morn")[0].friendly_id == (
        "prefer_morning"
    )


def test_another_users_memory_never_appears(user: User, other_user: User, memory: None) -> None:
    assert reference_suggestions(user=other_user, query="alpha") == []


@pytest.mark.parametrize(
    "query", ["", "   ", "x" * 10_000, "\x00\x01\x1b[31m", "%_%", "'; --", ".*(+?[", "\\", "日本"]
)
def test_hostile_queries_give_sensible_results(user: User, memory: None, query: str) -> None:
    suggestions = reference_suggestions(user=user, query=query)

    assert len(suggestions) <= 10
    assert len(normalise_query(query)) <= 60


def test_the_ui_endpoint_needs_a_session_and_answers_json(
    client: Client, user: User, memory: None
) -> None:
    assert client.get("/api/ui/references", {"q": "alpha"}).status_code == 401
    client.force_login(user)

    response = client.get("/api/ui/references", {"q": "alpha"})

    assert response.status_code == 200
    first = response.json()[0]
    assert set(first) == {"kind", "friendly_id", "insert", "label", "preview", "group"}
    preview = client.get("/api/ui/references/preview", {"ref": "alpha_context"}).json()
    assert (preview["kind"], preview["found"]) == ("context", True)
    assert client.get("/api/ui/references", {"q": "x" * 10_000}).status_code == 200
