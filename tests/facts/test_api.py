"""``/api/v1/projects/{id}/facts/``: list, history, manual set and retract — the user's own
projects only, with field errors for bad input."""

from __future__ import annotations

import uuid

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.facts.models import FactOrigin, ProjectFact
from apps.facts.services import fact_retract, fact_store
from apps.projects.models import Project
from tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db


def facts_url(project: Project | str, suffix: str = "") -> str:
    project_id = project.pk if isinstance(project, Project) else project
    return f"/api/v1/projects/{project_id}/facts/{suffix}"


def test_list_shows_current_facts_by_topic_in_rank_order(
    token_client: APIClient, project: Project
) -> None:
    for rank, value in [(2, "ETH"), (1, "BTC"), (10, "DOGE")]:
        fact_store(project=project, key=f"user.favorites.crypto.{rank}", value=value)
    fact_store(project=project, key="user.favorites.crypto.1", value="XMR")
    fact_store(project=project, key="user.email", value="a@b.io")

    response = token_client.get(facts_url(project))

    assert response.status_code == 200
    rows = response.json()["results"]
    assert [(r["key"], r["value"]) for r in rows] == [
        ("user.favorites.crypto.1", "XMR"),
        ("user.favorites.crypto.2", "ETH"),
        ("user.favorites.crypto.10", "DOGE"),
        ("user.email", "a@b.io"),
    ]
    first = rows[0]
    assert (first["topic"], first["rank"], first["status"], first["is_current"]) == (
        "crypto",
        1,
        "current",
        True,
    )
    assert first["supersedes"] is not None


def test_include_history_lists_every_row(token_client: APIClient, project: Project) -> None:
    fact_store(project=project, key="user.email", value="old@b.io")
    fact_store(project=project, key="user.email", value="new@b.io")

    response = token_client.get(facts_url(project), {"include_history": "1"})

    assert [(r["value"], r["status"]) for r in response.json()["results"]] == [
        ("new@b.io", "current"),
        ("old@b.io", "superseded"),
    ]


def test_a_key_s_history_follows_its_chain(token_client: APIClient, project: Project) -> None:
    key = "user.favorites.crypto.1"
    for value in ("BTC", "ETH"):
        fact_store(project=project, key=key, value=value)
    fact_retract(project=project, key=key)
    fact_store(project=project, key=key, value="XMR")

    response = token_client.get(facts_url(project, f"{key}/history/"))

    assert response.status_code == 200
    rows = response.json()["results"]
    assert [(r["value"], r["status"]) for r in rows] == [
        ("XMR", "current"),
        ("ETH", "retracted"),
        ("BTC", "superseded"),
    ]
    assert [r["supersedes"] for r in rows] == [rows[1]["id"], rows[2]["id"], None]


def test_keys_with_slashes_work_in_paths(token_client: APIClient, project: Project) -> None:
    key = "mentioned.url.https://example.com/a/b"
    fact_store(project=project, key=key, value="https://example.com/a/b")

    history = token_client.get(facts_url(project, f"{key}/history/"))
    retracted = token_client.post(facts_url(project, f"{key}/retract/"))

    assert history.status_code == 200
    assert history.json()["results"][0]["key"] == key
    assert retracted.status_code == 200
    assert retracted.json()["status"] == "retracted"


def test_manual_set_reports_each_outcome(token_client: APIClient, project: Project) -> None:
    body = {"key": "user.dates.birthday", "value": "1990-03-03", "value_type": "date"}

    stored = token_client.post(facts_url(project), body, format="json")
    again = token_client.post(facts_url(project), body, format="json")
    updated = token_client.post(facts_url(project), {**body, "value": "1990-03-04"}, format="json")

    assert (stored.status_code, stored.json()["outcome"]) == (201, "stored")
    assert (again.status_code, again.json()["outcome"]) == (200, "unchanged")
    assert (updated.status_code, updated.json()["outcome"]) == (201, "updated")
    fact = updated.json()["fact"]
    assert (fact["value"], fact["origin"], fact["value_type"]) == (
        "1990-03-04",
        FactOrigin.API,
        "date",
    )
    assert ProjectFact.objects.filter(project=project).count() == 2


@pytest.mark.parametrize(
    ("body", "stored"),
    [
        ({"key": "n", "value": 42, "value_type": "number"}, "42"),
        ({"key": "n", "value": "4.20", "value_type": "number"}, "4.2"),
        ({"key": "b", "value": True, "value_type": "bool"}, "true"),
        ({"key": "j", "value": {"b": [1], "a": None}, "value_type": "json"}, '{"a":null,"b":[1]}'),
        ({"key": "j", "value": '{"a": 1}', "value_type": "json"}, '{"a":1}'),
        ({"key": "s", "value": "  Zoë 🚀  "}, "Zoë 🚀"),
    ],
)
def test_manual_values_are_typed_and_normalised(
    token_client: APIClient, project: Project, body: dict[str, object], stored: str
) -> None:
    response = token_client.post(facts_url(project), body, format="json")

    assert response.status_code == 201, response.json()
    assert response.json()["fact"]["value"] == stored


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"key": "", "value": "x"}, "key"),
        ({"key": "   ", "value": "x"}, "key"),
        ({"key": "two words", "value": "x"}, "key"),
        ({"value": "x"}, "key"),
        ({"key": "k"}, "value"),
        ({"key": "k", "value": ""}, "value"),
        ({"key": "k", "value": None}, "value"),
        ({"key": "k", "value": "x", "value_type": "colour"}, "value_type"),
        ({"key": "k", "value": "twelve", "value_type": "number"}, "value"),
        ({"key": "k", "value": "2025-13-01", "value_type": "date"}, "value"),
        ({"key": "k", "value": "perhaps", "value_type": "bool"}, "value"),
        ({"key": "k", "value": "{oops", "value_type": "json"}, "value"),
        ({"key": "k", "value": ["a"], "value_type": "string"}, "value"),
        ({"key": "k" * 501, "value": "x"}, "key"),
    ],
)
def test_bad_input_answers_400_with_field_errors(
    token_client: APIClient, project: Project, body: dict[str, object], field: str
) -> None:
    response = token_client.post(facts_url(project), body, format="json")

    assert response.status_code == 400
    assert field in response.json()
    assert not ProjectFact.objects.exists()


def test_retract_keeps_history_and_404s_without_a_current_value(
    token_client: APIClient, project: Project
) -> None:
    fact_store(project=project, key="user.email", value="a@b.io")

    first = token_client.post(facts_url(project, "user.email/retract/"))
    second = token_client.post(facts_url(project, "user.email/retract/"))

    assert first.status_code == 200
    assert first.json()["status"] == "retracted"
    assert first.json()["value"] == "a@b.io"
    assert second.status_code == 404
    assert token_client.get(facts_url(project)).json()["results"] == []
    assert ProjectFact.objects.filter(project=project).count() == 1


def test_history_of_an_unknown_key_is_404(token_client: APIClient, project: Project) -> None:
    assert token_client.get(facts_url(project, "nothing.here/history/")).status_code == 404


@pytest.mark.parametrize("suffix", ["", "user.email/history/"])
def test_another_user_s_project_is_404_for_reads(
    token_client: APIClient, other_user: User, suffix: str
) -> None:
    theirs = ProjectFactory(owner=other_user)
    fact_store(project=theirs, key="user.email", value="bob@example.com")

    response = token_client.get(facts_url(theirs, suffix))

    assert response.status_code == 404
    assert "bob@example.com" not in response.content.decode()


def test_another_user_s_project_is_404_for_writes(
    token_client: APIClient, other_user: User
) -> None:
    theirs = ProjectFactory(owner=other_user)
    fact_store(project=theirs, key="user.email", value="bob@example.com")

    set_response = token_client.post(
        facts_url(theirs), {"key": "user.email", "value": "evil@x.io"}, format="json"
    )
    retract_response = token_client.post(facts_url(theirs, "user.email/retract/"))

    assert (set_response.status_code, retract_response.status_code) == (404, 404)
    assert ProjectFact.objects.get(project=theirs).value_text == "bob@example.com"


@pytest.mark.parametrize("project_id", ["not-a-uuid", str(uuid.uuid4()), "1"])
def test_a_project_id_that_names_nothing_is_404(token_client: APIClient, project_id: str) -> None:
    assert token_client.get(facts_url(project_id)).status_code == 404
    assert token_client.post(facts_url(project_id), {"key": "k", "value": "v"}).status_code == 404


def test_anonymous_requests_are_refused(api_client: APIClient, project: Project) -> None:
    assert api_client.get(facts_url(project)).status_code in (401, 403)


def test_the_schema_documents_the_endpoints(token_client: APIClient) -> None:
    schema = token_client.get("/api/v1/schema/", {"format": "json"}).json()

    paths = schema["paths"]
    assert set(paths["/api/v1/projects/{project_id}/facts/"]) >= {"get", "post"}
    assert "get" in paths["/api/v1/projects/{project_id}/facts/{key}/history/"]
    assert "post" in paths["/api/v1/projects/{project_id}/facts/{key}/retract/"]


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "\\ud800"}',  # an escape the door reads as six plain characters
        '["a\\udfffb"]',
        '{"\\ud800": 1}',
    ],
)
def test_a_json_fact_whose_text_decodes_to_unstorable_characters_is_a_400(
    token_client: APIClient, project: Project, text: str
) -> None:
    """Issue 29: json.loads in the normaliser made the escape a lone surrogate after the
    input guard had passed it, and PostgreSQL's refusal was a 500. (An escaped NUL is
    stored: json.dumps writes it back as its escape.)"""
    body = {"key": "user.profile", "value": text, "value_type": "json"}

    response = token_client.post(facts_url(project), body, format="json")

    assert response.status_code == 400
    assert "value" in response.json()
    assert not ProjectFact.objects.exists()
