"""References to an earlier version or an old name resolve to the current version, with a
note (issue 30), over the resolver, the REST endpoint and a chat message."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.claims.services import claim_create, claim_supersede
from apps.contexts.references import resolve_message, resolve_reference, resolve_uuid_reference
from apps.contexts.services import context_add_claims, context_create, context_update

pytestmark = pytest.mark.django_db


def test_an_old_version_number_resolves_to_the_current_one(user: User) -> None:
    old = claim_create(user=user, statement="I am vegetarian")
    new = claim_supersede(claim=old, statement="I am vegan")

    by_number = resolve_reference(user, "claim_1")
    by_old_id = resolve_uuid_reference(user, str(old.id))

    assert by_number.object_id == new.id
    assert [c.statement for c in by_number.claims] == ["I am vegan"]
    assert by_number.message == ""
    assert by_old_id.object_id == new.id
    assert by_old_id.message == "#1 was edited; showing the current version."
    assert [c.statement for c in by_old_id.claims] == ["I am vegan"]


def test_a_chain_made_before_numbers_were_kept_still_leads_to_the_current(user: User) -> None:
    """Before issue 30 a new version took a new number: #1 → #2. ``#1`` and its old friendly
    ID, written in earlier messages, now lead to #2 with a note."""
    old = claim_create(user=user, statement="I live in Leeds", friendly_id="live_leeds_01c1")
    new = claim_create(user=user, statement="I live in York", supersedes=old)
    old.status = "superseded"
    old.save(update_fields=["status"])

    clean, results = resolve_message(user, "Where do I live? #1 @live_leeds_01c1")

    assert clean.startswith("Where do I live?")
    assert [r.object_id for r in results] == [new.id, new.id]
    assert [r.message for r in results] == [
        "#1 was replaced by #2; showing the current version.",
        "@live_leeds_01c1 was replaced by #2; showing the current version.",
    ]
    assert all([c.statement for c in r.claims] == ["I live in York"] for r in results)


def test_a_renamed_context_answers_to_its_old_name(user: User) -> None:
    context = context_create(user=user, name="Fitness", friendly_id="fitness_0a35_context")
    claim = claim_create(user=user, statement="I run on Sundays")
    context_add_claims(context=context, claims=[claim])

    context_update(context=context, friendly_id="fitness")
    result = resolve_reference(user, "fitness_0a35_context")

    assert result.kind == "context"
    assert result.object_id == context.id
    assert result.message == "@fitness_0a35_context is now @fitness."
    assert [c.statement for c in result.claims] == ["I run on Sundays"]


def test_the_rest_endpoint_carries_the_note(user: User, api_client: APIClient) -> None:
    old = claim_create(user=user, statement="I am vegetarian", friendly_id="diet_01c1")
    claim_supersede(claim=old, statement="I am vegan", friendly_id="diet")
    api_client.force_authenticate(user)

    response = api_client.get("/api/v1/references/resolve/", {"ref": "diet_01c1"})

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["title"] == "#1"
    assert body["message"] == "@diet_01c1 was edited; showing the current version."
    assert [c["statement"] for c in body["claims"]] == ["I am vegan"]


def test_a_new_version_stays_in_its_contexts_whichever_door_made_it(user: User) -> None:
    context = context_create(user=user, name="Diet")
    old = claim_create(user=user, statement="I am vegetarian")
    context_add_claims(context=context, claims=[old])

    new = claim_supersede(claim=old, statement="I am vegan")

    assert [c.statement for c in resolve_reference(user, "diet").claims] == ["I am vegan"]
    assert set(context.claims.all()) == {old, new}  # the old one keeps its history
