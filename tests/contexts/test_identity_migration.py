"""The data migration to plain friendly IDs (contexts 0003): generated IDs lose their hash
where the plain form is free, the old ones stay resolvable, chosen ones stay as they are."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps

from apps.accounts.models import User
from apps.claims.models import Claim, ClaimAlias
from apps.claims.services import claim_create, claim_supersede
from apps.contexts.identity_migration import plain_friendly_ids
from apps.contexts.models import Context, ContextAlias
from apps.contexts.references import resolve_reference
from apps.contexts.services import context_create

pytestmark = pytest.mark.django_db


def _fid(claim: Claim) -> str:
    return Claim.objects.get(pk=claim.pk).friendly_id


def test_generated_ids_become_plain_where_unique(user: User, other_user: User) -> None:
    # Given an account from before issue 30: every generated ID carries a random hash.
    penicillin = claim_create(
        user=user, statement="I am allergic to penicillin", friendly_id="allergic_penicillin_01c1"
    )
    again = claim_create(
        user=user, statement="Allergic to penicillin!", friendly_id="allergic_penicillin_77aa"
    )
    chosen = claim_create(user=user, statement="I drive a Polo", friendly_id="my_car_beef")
    edited = claim_create(user=user, statement="I like tea", friendly_id="like_coffee_0b0b")
    running = claim_create(user=user, statement="Running", friendly_id="running")
    fitness = context_create(user=user, name="Fitness", friendly_id="fitness_0a35_context")
    clash = context_create(user=user, name="Running", friendly_id="running_1a2b_context")
    old = claim_create(user=user, statement="I live in Leeds", friendly_id="live_leeds_aaaa")
    claim_supersede(claim=old, statement="I live in York")
    theirs = claim_create(
        user=other_user,
        statement="I am allergic to penicillin",
        friendly_id="allergic_penicillin_9f9f",
    )

    # When the migration's data step runs.
    plain_friendly_ids(apps)

    # Then the oldest memory takes the plain name, the later one keeps its hash.
    assert _fid(penicillin) == "allergic_penicillin"
    assert _fid(again) == "allergic_penicillin_77aa"
    # Chosen IDs, and IDs whose words no longer match the text, are left alone.
    assert _fid(chosen) == "my_car_beef"
    assert _fid(edited) == "like_coffee_0b0b"
    assert _fid(running) == "running"
    # Contexts drop the hash and the suffix unless a claim holds the name.
    assert Context.objects.get(pk=fitness.pk).friendly_id == "fitness"
    assert Context.objects.get(pk=clash.pk).friendly_id == "running_1a2b_context"
    # Versions share the current one's name (here the current, kept through supersede).
    assert set(
        Claim.objects.filter(number=old.number, user=user).values_list("friendly_id", flat=True)
    ) == {"live_leeds"}
    # Each user's names are their own.
    assert _fid(theirs) == "allergic_penicillin"
    assert set(ClaimAlias.objects.filter(user=user).values_list("friendly_id", flat=True)) == {
        "allergic_penicillin_01c1",
        "live_leeds_aaaa",
    }
    assert list(ContextAlias.objects.values_list("friendly_id", flat=True)) == [
        "fitness_0a35_context"
    ]

    # And references written before still find their memory.
    by_old_name = resolve_reference(user, "allergic_penicillin_01c1")
    assert by_old_name.object_id == penicillin.id
    assert by_old_name.message == "@allergic_penicillin_01c1 is now #1 (@allergic_penicillin)."
    assert resolve_reference(user, "fitness_0a35_context").object_id == fitness.id
    assert resolve_reference(user, "fitness").object_id == fitness.id


def test_the_migration_runs_the_data_step() -> None:
    migration = importlib.import_module(
        "apps.contexts.migrations.0003_context_aliases_and_plain_friendly_ids"
    )

    steps = [op for op in migration.Migration.operations if hasattr(op, "code")]

    assert [step.code for step in steps] == [plain_friendly_ids]
