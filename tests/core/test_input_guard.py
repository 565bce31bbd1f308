"""Hostile input at every door gets a 400 naming its field, and writes nothing (issue 15).

Each test here is one of the 5xx an outside probe found: NUL characters, unpaired
surrogates, integers beyond any column, JSON nested thousands deep, dates PostgreSQL
stores but Python cannot read, and text that shows nothing.
"""

from __future__ import annotations

import json

import pytest
from django.apps import apps as django_apps
from django.db import connection
from django.test import Client
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.claims.models import Claim
from apps.claims.services import claim_create
from apps.core.repair import timestamps_clamp
from apps.projects.models import Project

pytestmark = pytest.mark.django_db

NUL = "\x00"
SURROGATE = "\ud800"


def post_json(client: APIClient | Client, url: str, body: str, method: str = "post") -> object:
    """Raw JSON text, so escapes like \\ud800 reach the server as a client sends them."""
    return getattr(client, method)(url, data=body, content_type="application/json")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ('{"statement": "I like tea\\u0000"}', "statement"),
        ('{"statement": "I like \\ud800 tea"}', "statement"),
        (
            '{"statement": "Tea", "possible_questions": ["ok", "bad\\u0000"]}',
            "possible_questions[1]",
        ),
        ('{"statement": "Tea", "metadata": {"a\\u0000b": 1}}', "metadata.(a key)"),
        ('{"statement": "Tea", "metadata": {"n": 1099511627776}}', "metadata.n"),
        ('{"statement": "Tea", "confidence": NaN}', "confidence"),
    ],
)
def test_a_bad_claim_body_is_400_naming_the_field_and_nothing_is_written(
    token_client: APIClient, body: str, field: str
) -> None:
    response = post_json(token_client, "/api/v1/claims/", body)

    assert response.status_code == 400  # type: ignore[attr-defined]
    assert field in response.json()  # type: ignore[attr-defined]
    assert Claim.objects.count() == 0


def test_json_nested_thousands_deep_is_400(token_client: APIClient) -> None:
    body = '{"statement": ' + "[" * 5000 + "]" * 5000 + "}"

    response = post_json(token_client, "/api/v1/claims/", body)

    assert response.status_code == 400
    assert "Nested too deeply" in json.dumps(response.json())


@pytest.mark.parametrize(
    ("url", "field"),
    [
        ("/api/v1/search?q=tea%00", "q"),
        ("/api/v1/claims/?limit=99999999999999999999", "limit"),
        ("/api/v1/claims/?offset=99999999999999999999", "offset"),
        ("/api/v1/claims/%00/", "path"),
        ("/api/ui/autocomplete?q=%00", "q"),
    ],
)
def test_bad_query_parameters_and_paths_are_400_naming_them(
    client: Client, user: User, url: str, field: str
) -> None:
    client.force_login(user)

    response = client.get(url)

    assert response.status_code == 400
    assert field in response.json()


def test_a_large_limit_is_served_as_the_largest_page(token_client: APIClient, user: User) -> None:
    for n in range(3):
        claim_create(user=user, statement=f"Claim {n}")

    response = token_client.get("/api/v1/claims/?limit=100000")

    assert response.status_code == 200
    assert len(response.json()["results"]) == 3


def test_a_claim_number_beyond_the_column_is_400(token_client: APIClient, user: User) -> None:
    response = token_client.get(f"/api/v1/claims/{2**31}/")
    huge = token_client.get(f"/api/v1/claims/claim_{10**30}/")

    assert response.status_code == 404
    assert huge.status_code == 404


@pytest.mark.parametrize("text", [" \t\n", "\u200b\u200b", "\u202e", "\u2066\u2069\ufeff"])
def test_text_that_shows_nothing_is_refused_where_text_is_required(
    token_client: APIClient, text: str
) -> None:
    claim = token_client.post("/api/v1/claims/", {"statement": text}, format="json")
    project = token_client.post("/api/v1/projects/", {"name": text}, format="json")

    assert claim.status_code == 400
    assert "statement" in claim.json()
    assert project.status_code == 400
    assert "name" in project.json()
    assert Claim.objects.count() == 0
    assert not Project.objects.filter(name=text.strip()).exists()


def test_a_page_form_with_a_nul_answers_the_sites_400_page(client: Client, user: User) -> None:
    client.force_login(user)

    response = client.post("/facts/set/", {"key": "crypto list, #1", "value": f"BTC{NUL}"})

    assert response.status_code == 400
    page = response.content.decode()
    assert "value: Remove the NUL character" in page
    assert "Traceback" not in page


def _document(**claim: object) -> dict[str, object]:
    return {
        "format": "cairn-knowledge",
        "version": 1,
        "last_claim_number": 1,
        "claims": [{"number": 1, "statement": "Old news", **claim}],
    }


@pytest.mark.parametrize(
    ("claim", "document_extra", "field"),
    [
        ({"created_at": "0001-01-01T00:00:00+14:00"}, {}, "claims[0].created_at"),
        ({"number": 2**31}, {"last_claim_number": 2**31}, "claims[0].number"),
        ({}, {"last_claim_number": 2**40}, "last_claim_number"),
        ({"statement": "\u200b"}, {}, "claims[0].statement"),
    ],
)
def test_a_knowledge_import_with_a_bad_row_is_refused_whole(
    token_client: APIClient, claim: dict[str, object], document_extra: dict[str, object], field: str
) -> None:
    from apps.knowledge.portability import FORMAT_NAME, FORMAT_VERSION

    document = _document(**claim)
    document.update(format=FORMAT_NAME, version=FORMAT_VERSION, **document_extra)

    response = token_client.post("/api/v1/knowledge/import/", document, format="json")

    assert response.status_code == 400
    assert field in json.dumps(response.json())
    assert Claim.objects.count() == 0


def test_an_account_already_holding_an_unreadable_date_lists_exports_and_searches_again(
    token_client: APIClient, user: User
) -> None:
    claim = claim_create(user=user, statement="I met Ada at the harbour")
    with connection.cursor() as cursor:  # what the old importer let in: year 0 in UTC
        cursor.execute(
            "UPDATE claims_claim SET created_at = '0001-01-01 00:00:00+14:00' WHERE id = %s",
            [claim.pk],
        )

    with connection.schema_editor() as editor:
        timestamps_clamp(django_apps, editor)

    assert token_client.get("/api/v1/claims/").status_code == 200
    assert token_client.get("/api/v1/knowledge/export/").status_code == 200
    assert token_client.get("/api/v1/search?q=harbour").status_code == 200
    claim.refresh_from_db()
    assert claim.created_at.year == 1


def test_another_users_project_answers_like_a_missing_one_and_is_never_ignored(
    token_client: APIClient, user: User, other_user: User
) -> None:
    from apps.projects.services import project_create

    theirs = project_create(owner=other_user, name="Theirs")
    mine = project_create(owner=user, name="Mine")

    foreign = token_client.post(
        "/api/v1/conversations/", {"project": str(theirs.pk)}, format="json"
    )
    missing = token_client.post(
        "/api/v1/conversations/",
        {"project": "00000000-0000-4000-8000-000000000000"},
        format="json",
    )
    malformed = token_client.post("/api/v1/conversations/", {"project": "nope"}, format="json")

    assert foreign.status_code == missing.status_code == malformed.status_code == 400
    assert foreign.json() == missing.json() == malformed.json() == {"project": ["No such project."]}

    created = token_client.post("/api/v1/conversations/", {"title": "Chat"}, format="json")
    url = f"/api/v1/conversations/{created.json()['id']}/"
    moved_to_theirs = token_client.patch(url, {"project": str(theirs.pk)}, format="json")
    moved_to_mine = token_client.patch(url, {"project": str(mine.pk)}, format="json")

    assert moved_to_theirs.status_code == 400
    assert moved_to_theirs.json() == {"project": ["No such project."]}
    assert moved_to_mine.status_code == 400
    assert moved_to_mine.json() == {
        "project": ["A conversation stays in the project it was started in."]
    }
