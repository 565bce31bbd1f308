"""One identity per memory (issue 30): a new version keeps the number and friendly ID, the
history keeps the old text, and old handles lead to the current version."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from apps.accounts.models import User
from apps.claims.models import Claim, ClaimAlias, ClaimStatus
from apps.claims.presentation import supersession_chain
from apps.claims.resolve import claim_found_by_friendly_id, claim_found_by_number
from apps.claims.selectors import claim_by_number, claim_find
from apps.claims.services import claim_create, claim_supersede, claim_update
from apps.contexts.services import context_create

pytestmark = pytest.mark.django_db


def test_a_new_version_keeps_the_number_and_friendly_id(user: User) -> None:
    old = claim_create(user=user, statement="I am allergic to penicillin")
    claim_create(user=user, statement="I like tea")

    new = claim_supersede(claim=old, statement="I am allergic to penicillin and amoxicillin")

    old.refresh_from_db()
    assert (new.number, new.friendly_id) == (1, "allergic_penicillin")
    assert (old.number, old.friendly_id) == (1, "allergic_penicillin")
    assert old.status == ClaimStatus.SUPERSEDED
    assert new.supersedes == old
    assert [c.statement for c in supersession_chain(claim=new)] == [
        "I am allergic to penicillin",
        "I am allergic to penicillin and amoxicillin",
    ]
    assert claim_by_number(user=user, number=1) == new
    assert claim_find(user=user, key="allergic_penicillin") == new
    # The next memory still gets the next number: a version takes none.
    assert claim_create(user=user, statement="I run on Sundays").number == 3


def test_three_versions_share_one_number_and_the_newest_answers(user: User) -> None:
    first = claim_create(user=user, statement="I live in Leeds")
    second = claim_supersede(claim=first, statement="I live in York")
    third = claim_supersede(claim=second, statement="I live in Hull")

    assert Claim.objects.filter(user=user, number=1).count() == 3
    assert claim_by_number(user=user, number=1) == third
    found = claim_found_by_number(user=user, number=1)
    assert found is not None
    assert (found.claim, found.note) == (third, "")


def test_a_new_version_may_take_a_new_name_and_the_old_one_still_finds_it(user: User) -> None:
    old = claim_create(user=user, statement="I drive a Golf")

    new = claim_supersede(claim=old, statement="I drive a Polo", friendly_id="my_car")

    found = claim_found_by_friendly_id(user=user, friendly_id="drive_golf")
    assert found is not None
    assert found.claim == new
    assert found.note == "@drive_golf was edited; showing the current version."


def test_an_earlier_version_cannot_be_revived_or_marked_superseded_by_hand(user: User) -> None:
    old = claim_create(user=user, statement="I am vegetarian")
    claim_supersede(claim=old, statement="I am vegan")
    other = claim_create(user=user, statement="I like jazz")

    with pytest.raises(ValidationError) as revived:
        claim_update(claim=old, status=ClaimStatus.ACTIVE)
    with pytest.raises(ValidationError) as marked:
        claim_update(claim=other, status=ClaimStatus.SUPERSEDED)

    assert "earlier version" in revived.value.message_dict["status"][0]
    assert "new version" in marked.value.message_dict["status"][0]
    assert Claim.objects.get(pk=other.pk).status == ClaimStatus.ACTIVE


def test_a_rename_leaves_an_alias_and_renaming_back_drops_it(user: User) -> None:
    claim = claim_create(user=user, statement="I prefer morning workouts")

    claim_update(claim=claim, friendly_id="mornings")

    found = claim_found_by_friendly_id(user=user, friendly_id="prefer_morning_workouts")
    assert found is not None
    assert found.claim == claim
    assert found.note == "@prefer_morning_workouts is now #1 (@mornings)."
    claim_update(claim=claim, friendly_id="prefer_morning_workouts")
    assert list(ClaimAlias.objects.values_list("friendly_id", flat=True)) == ["mornings"]


def test_plain_ids_first_and_a_short_hash_only_on_a_collision(user: User) -> None:
    first = claim_create(user=user, statement="I am allergic to penicillin")
    second = claim_create(user=user, statement="Allergic to penicillin!")
    context = context_create(user=user, name="Fitness")
    clash = claim_create(user=user, statement="Fitness")

    assert first.friendly_id == "allergic_penicillin"
    assert second.friendly_id.startswith("allergic_penicillin_")
    assert len(second.friendly_id) == len("allergic_penicillin_") + 4
    assert context.friendly_id == "fitness"
    # Claims and contexts share the @name space: the claim does not hide the context.
    assert clash.friendly_id.startswith("fitness_")


def test_a_chosen_id_taken_by_the_other_kind_is_refused(user: User) -> None:
    context_create(user=user, name="Fitness")

    with pytest.raises(ValidationError) as refused:
        claim_create(user=user, statement="Run", friendly_id="fitness")

    assert refused.value.message_dict["friendly_id"] == ["'fitness' is already taken."]


def test_another_users_versions_are_not_found(user: User, other_user: User) -> None:
    old = claim_create(user=other_user, statement="Secret plan")
    claim_supersede(claim=old, statement="Secret plan, revised")

    assert claim_found_by_number(user=user, number=1) is None
    assert claim_found_by_friendly_id(user=user, friendly_id="secret_plan") is None
