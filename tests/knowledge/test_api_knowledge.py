"""``/api/v1/knowledge/export/`` and ``/import/``: the portability services over HTTP."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.accounts.services import api_token_create
from apps.claims.models import Claim
from apps.contexts.models import Context
from apps.knowledge.api.knowledge import (
    DocumentClaimSerializer,
    DocumentContextSerializer,
    DocumentEntitySerializer,
    DocumentTagSerializer,
    KnowledgeDocumentSerializer,
)
from tests.knowledge.rich_account import build_rich_account, snapshot
from tests.knowledge_factories import ClaimFactory

pytestmark = pytest.mark.django_db

EXPORT, IMPORT = "/api/v1/knowledge/export/", "/api/v1/knowledge/import/"


def client_for(user: User) -> APIClient:
    _, key = api_token_create(user=user, name="tests")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_export_then_import_into_another_account(
    token_client: APIClient, user: User, other_user: User
) -> None:
    build_rich_account(user)

    exported = token_client.get(EXPORT)
    imported = client_for(other_user).post(IMPORT, exported.json(), format="json")

    assert exported.status_code == 200
    assert exported["Content-Disposition"].startswith('attachment; filename="cairn-knowledge-')
    assert imported.status_code == 201
    assert imported.json()["claims"] == 10
    assert set(imported.json()["id_map"]) == {"claims", "contexts", "tags", "entities"}
    assert snapshot(other_user) == snapshot(user)


def test_export_holds_only_my_knowledge(
    token_client: APIClient, user: User, other_user: User
) -> None:
    ClaimFactory(user=user, statement="Mine")
    ClaimFactory(user=other_user, statement="Theirs")

    document = token_client.get(EXPORT).json()

    assert [claim["statement"] for claim in document["claims"]] == ["Mine"]


def test_import_into_a_non_empty_account_is_a_conflict(
    token_client: APIClient, user: User, other_user: User
) -> None:
    build_rich_account(other_user)
    document = client_for(other_user).get(EXPORT).json()
    ClaimFactory(user=user, statement="Already mine")

    response = token_client.post(IMPORT, document, format="json")

    assert response.status_code == 409
    assert "already holds knowledge" in response.json()["detail"]
    assert list(Claim.objects.filter(user=user).values_list("statement", flat=True)) == [
        "Already mine"
    ]


def test_a_bad_document_is_400_with_paths_and_writes_nothing(
    token_client: APIClient, user: User
) -> None:
    document = {
        "format": "cairn-knowledge",
        "version": 1,
        "claims": [
            {"id": "a", "number": 1, "friendly_id": "good_one", "statement": "Ok"},
            {"id": "b", "number": 2, "friendly_id": "bad", "statement": "", "domains": ["nowhere"]},
        ],
        "contexts": [{"id": "x", "name": "X", "friendly_id": "x_context", "claims": ["a"]}],
    }

    response = token_client.post(IMPORT, document, format="json")

    assert response.status_code == 400
    assert {"claims[1].statement", "claims[1].domains"} <= set(response.json())
    assert not Claim.objects.exists()
    assert not Context.objects.exists()


def test_knowledge_endpoints_need_credentials(api_client: APIClient) -> None:
    assert api_client.get(EXPORT).status_code == 401
    assert api_client.post(IMPORT, {}, format="json").status_code == 401


def test_the_documented_format_matches_the_export(token_client: APIClient, user: User) -> None:
    build_rich_account(user)
    document = token_client.get(EXPORT).json()

    def fields(serializer: Any) -> set[str]:
        return set(serializer().fields)

    assert set(document) == fields(KnowledgeDocumentSerializer)
    assert set(document["claims"][0]) == fields(DocumentClaimSerializer)
    assert set(document["contexts"][0]) == fields(DocumentContextSerializer)
    assert set(document["tags"][0]) == fields(DocumentTagSerializer)
    assert set(document["entities"][0]) == fields(DocumentEntitySerializer)
    assert KnowledgeDocumentSerializer(data=document).is_valid()
