"""``/api/v1/entities/`` and ``/api/v1/tags/``: CRUD and linking claims."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.claims.models import Claim, Entity, Tag
from tests.knowledge_factories import ClaimFactory, EntityFactory, TagFactory

pytestmark = pytest.mark.django_db


def test_entity_crud(token_client: APIClient, user: User) -> None:
    created = token_client.post(
        "/api/v1/entities/",
        {"name": "John Smith", "entity_type": "person", "description": "My dentist"},
        format="json",
    )
    assert created.status_code == 201
    body = created.json()
    assert body["friendly_id"].startswith("john_smith_person_")
    assert body["friendly_id"].endswith("_entity")
    url = f"/api/v1/entities/{body['id']}/"

    patched = token_client.patch(url, {"friendly_id": "dr_smith_entity"}, format="json")
    listed = token_client.get("/api/v1/entities/").json()

    assert patched.json()["friendly_id"] == "dr_smith_entity"
    assert [e["name"] for e in listed["results"]] == ["John Smith"]
    assert token_client.delete(url).status_code == 204
    assert not Entity.objects.exists()


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"name": ""}, "name"),
        ({"name": "Bob", "entity_type": "robot"}, "entity_type"),
        ({"name": "Bob", "friendly_id": "Bob Smith"}, "friendly_id"),
        ({"name": "Bob", "friendly_id": "taken_entity"}, "friendly_id"),
    ],
)
def test_bad_entity_input(
    token_client: APIClient, user: User, data: dict[str, str], field: str
) -> None:
    EntityFactory(user=user, name="Taken", friendly_id="taken_entity")

    response = token_client.post("/api/v1/entities/", data, format="json")

    assert response.status_code == 400
    assert field in response.json()
    assert Entity.objects.count() == 1


def test_linking_claims_to_an_entity(token_client: APIClient, user: User, other_user: User) -> None:
    entity = EntityFactory(user=user, name="Acme")
    first, second = ClaimFactory(user=user), ClaimFactory(user=user, friendly_id="second_one")
    theirs = ClaimFactory(user=other_user)
    url = f"/api/v1/entities/{entity.id}/claims/"

    linked = token_client.post(url, {"claims": [1, "second_one"]}, format="json")
    refused = token_client.post(url, {"claims": [str(theirs.id), "#1"]}, format="json")
    unlinked = token_client.delete(url, {"claims": [str(first.id)]}, format="json")

    assert linked.status_code == 200
    assert sorted(linked.json()["claims"]) == sorted([str(first.id), str(second.id)])
    assert refused.status_code == 400
    assert str(theirs.id) in refused.json()["claims"][0]
    assert unlinked.json()["claims"] == [str(second.id)]
    assert list(theirs.entities.all()) == []
    detail = token_client.get(f"/api/v1/claims/{second.number}/").json()
    assert detail["entities"] == [str(entity.id)]


def test_tag_tree_and_links(token_client: APIClient, user: User, other_user: User) -> None:
    food = token_client.post("/api/v1/tags/", {"name": "Food"}, format="json").json()
    fruit = token_client.post(
        "/api/v1/tags/", {"name": "Fruit", "parent": food["id"]}, format="json"
    )
    their_tag = TagFactory(user=other_user, name="Theirs")
    refused = token_client.post(
        "/api/v1/tags/", {"name": "X", "parent": str(their_tag.id)}, format="json"
    )
    claim = ClaimFactory(user=user, statement="I like apples")
    url = f"/api/v1/tags/{fruit.json()['id']}/"

    tagged = token_client.post(f"{url}claims/", {"claims": ["1"]}, format="json")
    cycle = token_client.patch(
        f"/api/v1/tags/{food['id']}/", {"parent": fruit.json()["id"]}, format="json"
    )
    to_root = token_client.patch(url, {"parent": None}, format="json")

    assert fruit.status_code == 201
    assert fruit.json()["parent"] == food["id"]
    assert fruit.json()["friendly_id"].endswith("_tag")
    assert (refused.status_code, refused.json()) == (400, {"parent": ["No such tag."]})
    assert tagged.json()["claims"] == [str(claim.id)]
    assert cycle.status_code == 400
    assert Tag.objects.get(id=food["id"]).parent is None
    assert to_root.json()["parent"] is None
    untagged = token_client.delete(f"{url}claims/?claims=1")
    assert untagged.json()["claims"] == []
    assert token_client.delete(f"/api/v1/tags/{food['id']}/").status_code == 204
    assert Claim.objects.filter(id=claim.id).exists()


def test_another_users_labels_are_404_everywhere(
    token_client: APIClient, user: User, other_user: User
) -> None:
    entity = EntityFactory(user=other_user, name="Theirs")
    tag = TagFactory(user=other_user, name="Theirs")
    ClaimFactory(user=user)

    for url in [f"/api/v1/entities/{entity.id}/", f"/api/v1/tags/{tag.id}/"]:
        assert token_client.get(url).status_code == 404
        assert token_client.patch(url, {"name": "Mine"}, format="json").status_code == 404
        assert token_client.delete(url).status_code == 404
        assert token_client.post(f"{url}claims/", {"claims": [1]}, format="json").status_code == 404
        assert (
            token_client.delete(f"{url}claims/", {"claims": [1]}, format="json").status_code == 404
        )
    assert token_client.get("/api/v1/tags/").json()["count"] == 0
    assert token_client.get("/api/v1/entities/").json()["count"] == 0
    assert (Entity.objects.get().name, Tag.objects.get().name) == ("Theirs", "Theirs")


def test_labels_need_credentials(api_client: APIClient) -> None:
    assert api_client.get("/api/v1/entities/").status_code == 401
    assert api_client.post("/api/v1/tags/", {"name": "x"}, format="json").status_code == 401
