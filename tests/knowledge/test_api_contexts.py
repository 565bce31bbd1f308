"""``/api/v1/contexts/``: the tree, moves, memberships and resolution over the API.

A context in the URL that is not the user's answers 404; one named in the body (``parent``)
is a 400 "No such context." like any other bad field value."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.claims.models import Claim
from apps.contexts.models import Context, ContextClaim
from tests.knowledge_factories import ClaimFactory, ContextFactory

pytestmark = pytest.mark.django_db

URL = "/api/v1/contexts/"


def post(client: APIClient, url: str, data: dict[str, Any]) -> Any:
    return client.post(url, data, format="json")


def chain(user: User, levels: int) -> list[Context]:
    contexts: list[Context] = []
    for level in range(levels):
        contexts.append(
            ContextFactory(
                user=user, name=f"Level {level + 1}", parent=contexts[-1] if contexts else None
            )
        )
    return contexts


def test_create_read_update_list(token_client: APIClient, user: User, other_user: User) -> None:
    root = post(token_client, URL, {"name": "Project Alpha", "friendly_id": "ssdva"}).json()
    child = post(
        token_client, URL, {"name": "Design", "parent": root["id"], "description": "UI work"}
    )
    ContextFactory(user=other_user, name="Theirs")

    assert child.status_code == 201
    assert child.json()["friendly_id"] == "design"
    assert child.json()["parent"] == root["id"]
    detail = token_client.get(f"{URL}{root['id']}/").json()
    assert (detail["friendly_id"], detail["children"], detail["claim_count"]) == (
        "ssdva",
        [child.json()["id"]],
        0,
    )
    renamed = token_client.patch(f"{URL}{root['id']}/", {"name": "Alpha"}, format="json")
    assert renamed.json()["name"] == "Alpha"
    assert [c["name"] for c in token_client.get(URL).json()["results"]] == ["Alpha", "Design"]


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"name": ""}, "name"),
        ({"name": "x" * 201}, "name"),
        ({"name": "Ok", "friendly_id": "No Good"}, "friendly_id"),
        ({"name": "Ok", "friendly_id": "taken_context"}, "friendly_id"),
        ({"name": "Ok", "parent": "not-a-uuid"}, "parent"),
        ({"name": "Ok", "parent": "00000000-0000-0000-0000-000000000000"}, "parent"),
    ],
)
def test_bad_input_is_a_field_error(
    token_client: APIClient, user: User, data: dict[str, Any], field: str
) -> None:
    ContextFactory(user=user, name="Taken", friendly_id="taken_context")

    response = post(token_client, URL, data)

    assert response.status_code == 400
    assert field in response.json()
    assert Context.objects.count() == 1


def test_another_users_parent_is_no_such_context(
    token_client: APIClient, user: User, other_user: User
) -> None:
    theirs = ContextFactory(user=other_user, name="Theirs")
    mine = ContextFactory(user=user, name="Mine")

    created = post(token_client, URL, {"name": "Sneaky", "parent": str(theirs.id)})
    moved = post(token_client, f"{URL}{mine.id}/move/", {"parent": str(theirs.id)})
    patched = token_client.patch(f"{URL}{mine.id}/", {"parent": str(theirs.id)}, format="json")

    for response in (created, moved, patched):
        assert (response.status_code, response.json()) == (400, {"parent": ["No such context."]})
    assert list(Context.objects.filter(user=user)) == [mine]
    mine.refresh_from_db()
    assert mine.parent is None
    assert not theirs.children.exists()


def test_move_refuses_cycles_and_depth_and_keeps_the_tree(
    token_client: APIClient, user: User
) -> None:
    levels = chain(user, 10)
    other_root = ContextFactory(user=user, name="Other")
    sub = ContextFactory(user=user, name="Sub", parent=other_root)

    cycle = post(token_client, f"{URL}{levels[0].id}/move/", {"parent": str(levels[5].id)})
    too_deep = post(token_client, f"{URL}{other_root.id}/move/", {"parent": str(levels[8].id)})
    itself = post(token_client, f"{URL}{levels[2].id}/move/", {"parent": str(levels[2].id)})
    fits = post(token_client, f"{URL}{sub.id}/move/", {"parent": str(levels[8].id)})
    to_root = post(token_client, f"{URL}{levels[3].id}/move/", {"parent": None})

    assert all(r.status_code == 400 and "parent" in r.json() for r in (cycle, too_deep, itself))
    assert "10 levels" in too_deep.json()["parent"][0]
    assert fits.json()["parent"] == str(levels[8].id)
    assert to_root.json()["parent"] is None
    levels[0].refresh_from_db()
    other_root.refresh_from_db()
    assert (levels[0].parent, other_root.parent) == (None, None)


def test_patch_with_a_bad_move_changes_nothing(token_client: APIClient, user: User) -> None:
    root, child = chain(user, 2)

    response = token_client.patch(
        f"{URL}{root.id}/", {"name": "Renamed", "parent": str(child.id)}, format="json"
    )

    assert response.status_code == 400
    root.refresh_from_db()
    assert (root.name, root.parent) == ("Level 1", None)


def test_add_and_remove_claims_by_any_key(token_client: APIClient, user: User) -> None:
    context = ContextFactory(user=user)
    # Not "Claim {n}": a generated "claim_<4 digits>" friendly ID would read as a number
    # (a friendly_ids bug, reported separately).
    claims = [ClaimFactory(user=user, statement=f"Errand number {n}") for n in range(4)]
    url = f"{URL}{context.id}/claims/"

    added = post(
        token_client,
        url,
        {"claims": [str(claims[0].id), 2, "#3", "claim_3", claims[3].friendly_id]},
    )
    removed_body = token_client.delete(url, {"claims": [1]}, format="json")
    removed_query = token_client.delete(f"{url}?claims=2,{claims[3].friendly_id}")

    assert (added.status_code, added.json()["claim_count"]) == (200, 4)
    assert removed_body.json()["claim_count"] == 3
    assert removed_query.json()["claim_count"] == 1
    assert list(context.claims.all()) == [claims[2]]


@pytest.mark.parametrize("bad_key", ["theirs", 99, "no_such_claim", "", None, []])
def test_adding_a_bad_or_foreign_claim_writes_nothing(
    token_client: APIClient, user: User, other_user: User, bad_key: Any
) -> None:
    context = ContextFactory(user=user)
    ClaimFactory(user=user)
    theirs = ClaimFactory(user=other_user)
    key = str(theirs.id) if bad_key == "theirs" else bad_key

    response = post(token_client, f"{URL}{context.id}/claims/", {"claims": [1, key]})

    assert response.status_code == 400
    assert "claims" in response.json()
    assert not ContextClaim.objects.exists()


def test_empty_claim_list_is_refused(token_client: APIClient, user: User) -> None:
    context = ContextFactory(user=user)

    assert post(token_client, f"{URL}{context.id}/claims/", {"claims": []}).status_code == 400
    assert token_client.delete(f"{URL}{context.id}/claims/").status_code == 400


def test_resolve_is_recursive_usable_newest_first_and_paginated(
    token_client: APIClient, user: User, django_assert_max_num_queries: Any
) -> None:
    root, middle, leaf = chain(user, 3)
    old = ClaimFactory(user=user, statement="Old")
    contested = ClaimFactory(user=user, statement="Contested", status="contested")
    pending = ClaimFactory(user=user, statement="Pending", status="pending")
    retracted = ClaimFactory(user=user, statement="Retracted", status="retracted")
    newest = ClaimFactory(user=user, statement="Newest")
    root.claims.add(old, pending)
    middle.claims.add(contested, retracted, old)
    leaf.claims.add(newest)

    with django_assert_max_num_queries(10):
        full = token_client.get(f"{URL}{root.id}/resolve/").json()
    page = token_client.get(f"{URL}{root.id}/resolve/", {"limit": 1, "offset": 1}).json()
    of_leaf = token_client.get(f"{URL}{leaf.id}/resolve/").json()

    assert full["count"] == 3
    assert [c["statement"] for c in full["results"]] == ["Newest", "Contested", "Old"]
    assert [c["statement"] for c in page["results"]] == ["Contested"]
    assert [c["statement"] for c in of_leaf["results"]] == ["Newest"]


def test_delete_takes_the_subtree_but_never_claims(token_client: APIClient, user: User) -> None:
    root, child = chain(user, 2)
    claim = ClaimFactory(user=user)
    child.claims.add(claim)

    assert token_client.delete(f"{URL}{root.id}/").status_code == 204
    assert not Context.objects.exists()
    assert Claim.objects.filter(id=claim.id).exists()


def test_another_users_context_is_404_on_every_route(
    token_client: APIClient, user: User, other_user: User
) -> None:
    theirs = ContextFactory(user=other_user, name="Theirs")
    mine = ContextFactory(user=user, name="Mine")
    ClaimFactory(user=user)
    url = f"{URL}{theirs.id}/"

    assert token_client.get(url).status_code == 404
    assert token_client.patch(url, {"name": "Mine now"}, format="json").status_code == 404
    assert token_client.delete(url).status_code == 404
    assert post(token_client, f"{url}move/", {"parent": str(mine.id)}).status_code == 404
    assert post(token_client, f"{url}claims/", {"claims": [1]}).status_code == 404
    assert token_client.delete(f"{url}claims/", {"claims": [1]}, format="json").status_code == 404
    assert token_client.get(f"{url}resolve/").status_code == 404
    theirs.refresh_from_db()
    assert (theirs.name, theirs.parent, theirs.claims.count()) == ("Theirs", None, 0)


def test_contexts_need_credentials(api_client: APIClient, user: User) -> None:
    context = ContextFactory(user=user)

    assert api_client.get(URL).status_code == 401
    assert api_client.get(f"{URL}{context.id}/resolve/").status_code == 401
    assert post(api_client, URL, {"name": "x"}).status_code == 401
