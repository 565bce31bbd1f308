"""``/api/v1/claims/``: CRUD, look-up by UUID / number / friendly ID, filters, actions."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.claims.models import Claim
from apps.claims.services import claim_create, claim_supersede
from tests.knowledge_factories import ClaimFactory, ContextFactory, EntityFactory, TagFactory

pytestmark = pytest.mark.django_db

URL = "/api/v1/claims/"
OUTPUT_FIELDS = {
    "id",
    "number",
    "friendly_id",
    "statement",
    "claim_types",
    "domains",
    "status",
    "possible_questions",
    "pinned",
    "confidence",
    "valid_from",
    "valid_until",
    "supersedes",
    "superseded_by",
    "origin",
    "origin_token_name",
    "source_message",
    "metadata",
    "reinforced_count",
    "contexts",
    "tags",
    "entities",
    "created_at",
    "updated_at",
}


def post(client: APIClient, url: str, data: dict[str, Any] | None = None) -> Any:
    return client.post(url, data or {}, format="json")


def test_create_records_an_api_claim_with_every_field(token_client: APIClient, user: User) -> None:
    response = post(
        token_client,
        URL,
        {
            "statement": "I prefer morning workouts",
            "claim_types": ["preference", "fact"],
            "domains": ["health"],
            "possible_questions": ["When do I exercise?"],
            "confidence": 0.8,
            "metadata": {"strength": "strong"},
            "friendly_id": "morning_gym",
            "valid_from": "2025-01-01T00:00:00Z",
        },
    )

    assert response.status_code == 201
    body = response.json()
    assert set(body) == OUTPUT_FIELDS
    assert body["number"] == 1
    assert body["friendly_id"] == "morning_gym"
    assert body["claim_types"] == ["preference", "fact"]
    assert (body["origin"], body["status"], body["pinned"]) == ("api", "active", False)
    assert body["metadata"] == {"strength": "strong"}
    assert (body["supersedes"], body["superseded_by"]) == (None, None)
    claim = Claim.objects.get(user=user)
    assert str(claim.id) == body["id"]
    assert claim.possible_questions == ["When do I exercise?"]


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"statement": ""}, "statement"),
        ({"statement": "   "}, "statement"),
        ({"statement": "x" * 10_001}, "statement"),
        ({}, "statement"),
        ({"statement": "ok", "claim_types": ["opinion"]}, "claim_types"),
        ({"statement": "ok", "domains": ["outer_space"]}, "domains"),
        ({"statement": "ok", "status": "maybe"}, "status"),
        ({"statement": "ok", "confidence": 1.5}, "confidence"),
        ({"statement": "ok", "friendly_id": "Not Valid!"}, "friendly_id"),
        ({"statement": "ok", "friendly_id": "claim_7"}, "friendly_id"),
        ({"statement": "ok", "friendly_id": "taken_one"}, "friendly_id"),
        (
            {
                "statement": "ok",
                "valid_from": "2025-02-01T00:00:00Z",
                "valid_until": "2025-01-01T00:00:00Z",
            },
            "valid_until",
        ),
    ],
)
def test_bad_input_is_a_field_error_and_writes_nothing(
    token_client: APIClient, user: User, data: dict[str, Any], field: str
) -> None:
    ClaimFactory(user=user, statement="Existing", friendly_id="taken_one")

    response = post(token_client, URL, data)

    assert response.status_code == 400
    assert field in response.json()
    assert list(Claim.objects.filter(user=user).values_list("statement", flat=True)) == ["Existing"]


def test_unknown_type_message_names_the_choices(token_client: APIClient) -> None:
    response = post(token_client, URL, {"statement": "ok", "claim_types": ["opinion"]})

    assert "Unknown claim type 'opinion'" in response.json()["claim_types"][0]


def test_a_claim_is_found_by_uuid_number_or_friendly_id(
    token_client: APIClient, user: User
) -> None:
    ClaimFactory(user=user)
    claim = ClaimFactory(user=user, statement="I prefer tea", friendly_id="prefer_tea_a3f2")

    for key in [str(claim.id), "2", "claim_2", "%232", "prefer_tea_a3f2"]:
        response = token_client.get(f"{URL}{key}/")
        assert response.status_code == 200, key
        assert response.json()["id"] == str(claim.id)
    assert token_client.get(f"{URL}3/").status_code == 404
    assert token_client.get(f"{URL}no_such_claim/").status_code == 404


def test_another_users_claim_is_404_on_every_route_and_unchanged(
    token_client: APIClient, user: User, other_user: User
) -> None:
    theirs = ClaimFactory(user=other_user, statement="Their secret", status="pending")
    routes = [
        ("get", ""),
        ("patch", ""),
        ("delete", ""),
        ("post", "supersede/"),
        ("post", "retract/"),
        ("post", "pin/"),
        ("post", "unpin/"),
        ("post", "review/"),
    ]
    body = {"statement": "Mine now", "approve": True}

    for key in [str(theirs.id), theirs.friendly_id, "1"]:
        for method, suffix in routes:
            response = getattr(token_client, method)(f"{URL}{key}/{suffix}", body, format="json")
            assert response.status_code == 404, (method, key, suffix)

    theirs.refresh_from_db()
    assert (theirs.statement, theirs.status, theirs.pinned) == ("Their secret", "pending", False)
    assert Claim.objects.count() == 1


def test_my_number_never_reaches_another_users_claim(
    token_client: APIClient, user: User, other_user: User
) -> None:
    ClaimFactory(user=other_user, statement="Theirs")
    mine = ClaimFactory(user=user, statement="Mine")

    assert token_client.get(f"{URL}1/").json()["id"] == str(mine.id)


def test_no_credentials_is_401(api_client: APIClient, user: User) -> None:
    claim = ClaimFactory(user=user)

    assert api_client.get(URL).status_code == 401
    assert post(api_client, URL, {"statement": "x"}).status_code == 401
    assert api_client.get(f"{URL}{claim.number}/").status_code == 401
    assert post(api_client, f"{URL}{claim.number}/pin/").status_code == 401
    assert not Claim.objects.get().pinned


def test_list_is_mine_paginated_newest_first(
    token_client: APIClient, user: User, other_user: User
) -> None:
    for n in range(5):
        ClaimFactory(user=user, statement=f"Mine {n}")
    ClaimFactory(user=other_user, statement="Theirs")

    first = token_client.get(URL, {"limit": 2}).json()
    second = token_client.get(URL, {"limit": 2, "offset": 2}).json()

    assert first["count"] == 5
    assert [c["statement"] for c in first["results"] + second["results"]] == [
        "Mine 4",
        "Mine 3",
        "Mine 2",
        "Mine 1",
    ]


def statements(client: APIClient, **params: Any) -> list[str]:
    response = client.get(URL, params)
    assert response.status_code == 200, response.json()
    return sorted(claim["statement"] for claim in response.json()["results"])


def test_filters(token_client: APIClient, user: User, other_user: User) -> None:
    tea = ClaimFactory(
        user=user,
        statement="I drink green tea",
        claim_types=["preference"],
        domains=["health"],
        pinned=True,
    )
    run = ClaimFactory(
        user=user,
        statement="I run on Mondays",
        claim_types=["fact"],
        domains=["health", "personal"],
    )
    job = ClaimFactory(
        user=user,
        statement="I work at Acme",
        claim_types=["fact", "decision"],
        domains=["work"],
        status="pending",
    )
    drinks = TagFactory(user=user, name="Drinks")
    TagFactory(user=user, name="Green", parent=drinks, claims=[tea])
    acme = EntityFactory(user=user, name="Acme", entity_type="organisation", claims=[job])
    life = ContextFactory(user=user, name="Life")
    ContextFactory(
        user=user,
        name="Sport",
        parent=ContextFactory(user=user, name="Health", parent=life),
        claims=[run],
    )
    their_tag = TagFactory(user=other_user, name="Theirs")

    assert statements(token_client, status="pending") == ["I work at Acme"]
    assert statements(token_client, status="active,pending") == sorted(
        [tea.statement, run.statement, job.statement]
    )
    assert statements(token_client, claim_type="decision") == ["I work at Acme"]
    assert statements(token_client, domain="health") == ["I drink green tea", "I run on Mondays"]
    assert statements(token_client, pinned="true") == ["I drink green tea"]
    assert statements(token_client, pinned="false") == ["I run on Mondays", "I work at Acme"]
    assert statements(token_client, tag=str(drinks.id)) == ["I drink green tea"]  # child tag
    assert statements(token_client, entity=str(acme.id)) == ["I work at Acme"]
    assert statements(token_client, context=str(life.id)) == ["I run on Mondays"]  # subtree
    assert statements(token_client, q="tea") == ["I drink green tea"]
    assert statements(token_client, q="running") == ["I run on Mondays"]  # stemmed
    assert statements(token_client, domain="health", q="Mondays") == ["I run on Mondays"]
    assert statements(token_client, tag=str(drinks.id), q="green tea") == ["I drink green tea"]
    assert statements(token_client, tag=str(their_tag.id)) == []
    assert token_client.get(URL, {"status": "maybe"}).status_code == 400
    assert token_client.get(URL, {"context": "not-a-uuid"}).status_code == 400


def test_list_query_count_does_not_grow_with_claims(
    token_client: APIClient, user: User, django_assert_max_num_queries: Any
) -> None:
    tag, context = TagFactory(user=user), ContextFactory(user=user)
    for n in range(15):
        claim = ClaimFactory(user=user, statement=f"Claim {n}")
        tag.claims.add(claim)
        context.claims.add(claim)
    claim_supersede(claim=claim, statement="Newer")

    with django_assert_max_num_queries(9):  # auth, count, page, 5 prefetches
        response = token_client.get(URL)

    # One row per memory (issue 30): the earlier version is asked for by its status.
    assert response.json()["count"] == 15
    earlier = token_client.get(URL, {"status": "superseded"}).json()
    assert [row["statement"] for row in earlier["results"]] == ["Claim 14"]


def test_patch_changes_given_fields_all_or_nothing(token_client: APIClient, user: User) -> None:
    claim = ClaimFactory(user=user, statement="I like tea", domains=["personal"])

    bad = token_client.patch(
        f"{URL}{claim.number}/",
        {"statement": "I like coffee", "domains": ["nowhere"]},
        format="json",
    )
    good = token_client.patch(
        f"{URL}{claim.friendly_id}/",
        {"statement": "I like coffee", "status": "contested"},
        format="json",
    )

    assert bad.status_code == 400
    assert good.status_code == 200
    assert (good.json()["statement"], good.json()["status"]) == ("I like coffee", "contested")
    assert good.json()["domains"] == ["personal"]


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"statement": ""}, "statement"),
        ({"friendly_id": "taken_one"}, "friendly_id"),
        ({"friendly_id": "ends_in_tag"}, "friendly_id"),
        ({"claim_types": ["nope"]}, "claim_types"),
        ({"valid_until": "1999-01-01T00:00:00Z"}, "valid_until"),
    ],
)
def test_bad_patch_changes_nothing(
    token_client: APIClient, user: User, data: dict[str, Any], field: str
) -> None:
    ClaimFactory(user=user, friendly_id="taken_one")
    claim = ClaimFactory(
        user=user,
        statement="Keep me",
        friendly_id="keep_me",
        valid_from=datetime(2020, 1, 1, tzinfo=UTC),
    )

    response = token_client.patch(f"{URL}keep_me/", data, format="json")

    assert response.status_code == 400
    assert field in response.json()
    claim.refresh_from_db()
    assert (claim.statement, claim.friendly_id, claim.claim_types, claim.valid_until) == (
        "Keep me",
        "keep_me",
        ["fact"],
        None,
    )


def test_put_is_not_offered(token_client: APIClient, user: User) -> None:
    claim = ClaimFactory(user=user)

    assert (
        token_client.put(f"{URL}{claim.number}/", {"statement": "x"}, format="json").status_code
        == 405
    )


def test_claim_created_by_service_elsewhere_keeps_its_origin(
    token_client: APIClient, user: User
) -> None:
    claim = claim_create(user=user, statement="From chat", origin="chat")

    assert token_client.get(f"{URL}{claim.number}/").json()["origin"] == "chat"
