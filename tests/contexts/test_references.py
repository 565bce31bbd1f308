from __future__ import annotations

from typing import Any

import pytest

from apps.accounts.models import User
from apps.claims.services import (
    claim_create,
    entity_create,
    entity_link_claims,
    tag_create,
    tag_link_claims,
)
from apps.contexts.models import Context
from apps.contexts.references import resolve_message, resolve_reference
from apps.contexts.services import context_add_claims, context_create

pytestmark = pytest.mark.django_db


def _statements(result: Any) -> list[str]:
    return [claim.statement for claim in result.claims]


def test_every_form_resolves_in_order(user: User) -> None:
    morning = claim_create(
        user=user,
        statement="I prefer morning workouts",
        friendly_id="prefer_morning_a3f2",
        domains=["health"],
    )
    alpha = context_create(user=user, name="Project Alpha", friendly_id="ssdva")
    backend = context_create(user=user, name="Backend", parent=alpha)
    api = claim_create(user=user, statement="The API is REST")
    context_add_claims(context=backend, claims=[api])
    john = entity_create(user=user, name="John Smith", entity_type="person")
    entity_link_claims(entity=john, claims=[api])
    sport = tag_create(user=user, name="Sport")
    tag_link_claims(tag=sport, claims=[morning])

    assert resolve_reference(user, "claim_1").kind == "claim"
    assert _statements(resolve_reference(user, "CLAIM_1")) == ["I prefer morning workouts"]
    assert resolve_reference(user, "prefer_morning_a3f2").object_id == morning.id
    context = resolve_reference(user, "ssdva")
    assert (context.kind, context.title, _statements(context)) == (
        "context",
        "Project Alpha",
        ["The API is REST"],
    )
    assert context.label == "REFERENCED @ssdva"
    assert resolve_reference(user, john.friendly_id).kind == "entity"
    assert _statements(resolve_reference(user, sport.friendly_id)) == [morning.statement]
    domain = resolve_reference(user, "health_domain")
    assert (domain.kind, _statements(domain)) == ("domain", [morning.statement])
    by_name = resolve_reference(user, "project_alpha")
    assert (by_name.kind, by_name.object_id) == ("context", alpha.id)


def test_a_claim_friendly_id_wins_over_a_context_with_the_same_id(user: User) -> None:
    claim_create(user=user, statement="Claim first", friendly_id="shared")
    # The services now refuse a name the other kind holds (issue 30); an account from
    # before that may still have one, written here past them.
    Context.objects.create(user=user, name="Ctx", friendly_id="shared")

    assert resolve_reference(user, "shared").kind == "claim"


@pytest.mark.parametrize(
    "identifier",
    ["nothing_here", "claim_99", "", "x" * 500, "'; drop table claims_claim; --", "a\x00b", ".*+?"],
)
def test_not_found_is_a_result_with_a_message(user: User, identifier: str) -> None:
    result = resolve_reference(user, identifier)

    assert result.kind == "not_found"
    assert not result.found
    assert result.message
    assert result.claims == ()


def test_a_retracted_claim_resolves_but_brings_nothing(user: User) -> None:
    claim_create(user=user, statement="Old news", status="retracted")

    result = resolve_reference(user, "claim_1")

    assert (result.kind, result.claims) == ("claim", ())
    assert "retracted" in result.message


def test_two_users_with_the_same_ids_and_names_each_resolve_their_own(
    user: User, other_user: User
) -> None:
    for owner in (user, other_user):
        claim_create(user=owner, statement=f"{owner.email} claim", friendly_id="same_claim")
        ctx = context_create(user=owner, name="Same Name", friendly_id="same_ctx")
        context_add_claims(
            context=ctx, claims=[claim_create(user=owner, statement=f"{owner.email} ctx")]
        )

    for owner in (user, other_user):
        assert _statements(resolve_reference(owner, "same_claim")) == [f"{owner.email} claim"]
        assert _statements(resolve_reference(owner, "same_ctx")) == [f"{owner.email} ctx"]
        assert _statements(resolve_reference(owner, "same_name")) == [f"{owner.email} ctx"]
        assert _statements(resolve_reference(owner, "claim_1")) == [f"{owner.email} claim"]


def test_resolve_message_keeps_order_spans_and_uuid_form(user: User) -> None:
    first = claim_create(user=user, statement="First")
    claim_create(user=user, statement="Second", friendly_id="second_one")
    text = f"@memory:{first.id} and #2 vs @second_one or @missing_ref?"

    clean, results = resolve_message(user, text)

    assert [r.kind for r in results] == ["claim", "claim", "claim", "not_found"]
    assert results[0].claims[0].id == first.id
    assert results[0].label == "REFERENCED"
    start, end = results[1].span  # type: ignore[misc]
    assert text[start:end] == "#2"
    assert "@" not in clean


def test_the_integration_api_resolves_one_reference_and_a_message(
    token_client: Any, user: User, other_user: User
) -> None:
    claim_create(user=user, statement="Mine", friendly_id="mine_one")
    claim_create(user=other_user, statement="Theirs", friendly_id="theirs_one")

    one = token_client.get("/api/v1/references/resolve/", {"ref": "mine_one"}).json()
    assert (one["kind"], one["claims"][0]["statement"]) == ("claim", "Mine")
    assert (
        token_client.get("/api/v1/references/resolve/", {"ref": "theirs_one"}).json()["kind"]
        == "not_found"
    )
    assert token_client.get("/api/v1/references/resolve/").status_code == 400

    batch = token_client.post(
        "/api/v1/references/resolve-message/",
        {"text": "see @mine_one and #1, not me@x.com"},
        format="json",
    )
    assert batch.status_code == 200
    assert [r["identifier"] for r in batch.json()["references"]] == ["mine_one", "claim_1"]
    too_long = token_client.post(
        "/api/v1/references/resolve-message/", {"text": "x" * 40_000}, format="json"
    )
    assert too_long.status_code == 400
