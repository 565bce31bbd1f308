from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.projects.models import Project
from tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db


def test_list_shows_only_my_projects(token_client: APIClient, user: User, other_user: User) -> None:
    mine = ProjectFactory(owner=user, name="Alpha")
    ProjectFactory(owner=other_user, name="Theirs")

    response = token_client.get("/api/v1/projects/")

    assert response.status_code == 200
    assert [p["id"] for p in response.json()["results"]] == [str(mine.id)]


def test_create_update_and_archive(token_client: APIClient, user: User) -> None:
    created = token_client.post("/api/v1/projects/", {"name": "Garden plans"}, format="json")
    assert created.status_code == 201
    project_id = created.json()["id"]
    assert created.json()["slug"] == "garden-plans"

    updated = token_client.patch(
        f"/api/v1/projects/{project_id}/", {"description": "Tomatoes"}, format="json"
    )
    assert updated.json()["description"] == "Tomatoes"

    archived = token_client.post(f"/api/v1/projects/{project_id}/archive/")
    assert archived.status_code == 200
    assert Project.objects.get(id=project_id, owner=user).archived is True


def test_slugs_stay_unique_per_owner(token_client: APIClient, other_user: User) -> None:
    ProjectFactory(owner=other_user, name="Same", slug="same")
    first = token_client.post("/api/v1/projects/", {"name": "Same"}, format="json").json()
    second = token_client.post("/api/v1/projects/", {"name": "Same"}, format="json").json()

    assert (first["slug"], second["slug"]) == ("same", "same-2")


def test_another_users_project_answers_404_and_is_unchanged(
    token_client: APIClient, other_user: User
) -> None:
    theirs = ProjectFactory(owner=other_user, name="Secret")

    assert token_client.get(f"/api/v1/projects/{theirs.id}/").status_code == 404
    assert (
        token_client.patch(
            f"/api/v1/projects/{theirs.id}/", {"name": "Mine now"}, format="json"
        ).status_code
        == 404
    )
    assert token_client.post(f"/api/v1/projects/{theirs.id}/archive/").status_code == 404
    theirs.refresh_from_db()
    assert (theirs.name, theirs.archived) == ("Secret", False)


@pytest.mark.parametrize("project_id", ["not-a-uuid", "00000000-0000-0000-0000-000000000000"])
def test_unknown_or_malformed_ids_answer_404(token_client: APIClient, project_id: str) -> None:
    assert token_client.get(f"/api/v1/projects/{project_id}/").status_code == 404


@pytest.mark.parametrize("name", ["", "   ", "x" * 121])
def test_bad_names_are_field_errors(token_client: APIClient, name: str) -> None:
    response = token_client.post("/api/v1/projects/", {"name": name}, format="json")

    assert response.status_code == 400
    assert "name" in response.json()
    assert not Project.objects.exists()
