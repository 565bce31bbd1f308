"""The tokens page hands a person what an MCP client needs, and a token's access level holds
on the REST API (issue 30)."""

from __future__ import annotations

import json
import re

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from apps.accounts.handoff import KEY_PLACEHOLDER, mcp_snippets
from apps.accounts.models import ApiToken, TokenAccess, User
from apps.accounts.services import READ_ONLY_REFUSAL, api_token_create
from apps.claims.models import Claim
from apps.facts.models import ProjectFact
from apps.projects.services import project_ensure_personal
from tests.factories import DEFAULT_PASSWORD

pytestmark = pytest.mark.django_db

URL = "http://testserver/mcp/"


def page_text(response: object) -> str:
    return response.content.decode()  # type: ignore[attr-defined]


def test_the_page_shows_the_mcp_url_the_bearer_header_and_a_snippet_per_client(
    client: Client, user: User
) -> None:
    client.force_login(user)

    html = page_text(client.get(reverse("accounts:tokens")))

    assert f'<code id="mcp-url">{URL}</code>' in html
    assert "Authorization: Bearer &lt;your token&gt;" in html
    for client_name in ("Claude Desktop", "Claude Code", "Cursor", "MCP Inspector"):
        assert f">{client_name}</h3>" in html
    assert "claude_desktop_config.json" in html
    assert (
        "claude mcp add --transport http cairn http://testserver/mcp/ "
        "--header &quot;Authorization: Bearer &lt;your token&gt;&quot;"
    ) in html
    assert "npx @modelcontextprotocol/inspector --cli http://testserver/mcp/" in html
    assert html.count('data-copy="') == 6  # the URL, the header and four snippets


def test_a_new_token_fills_its_key_into_the_snippets_once(client: Client, user: User) -> None:
    client.force_login(user)

    created = page_text(
        client.post(reverse("accounts:tokens"), {"name": "laptop", "access": "write"})
    )
    key = ApiToken.objects.get(user=user).prefix
    new_key = re.search(r'id="new-token">([^<]+)<', created)
    assert new_key
    full = new_key.group(1)
    assert full.startswith(key)
    assert f"Authorization: Bearer {full}" in created
    assert (
        f"claude mcp add --transport http cairn {URL} "
        f"--header &quot;Authorization: Bearer {full}&quot;"
    ) in created
    assert f"&quot;CAIRN_TOKEN&quot;: &quot;{full}&quot;" in created
    assert "(read and write)" in created

    later = page_text(client.get(reverse("accounts:tokens")))
    assert full not in later
    assert "Authorization: Bearer &lt;your token&gt;" in later


def test_a_token_is_created_read_only_when_asked_and_listed_so(client: Client, user: User) -> None:
    client.force_login(user)

    client.post(reverse("accounts:tokens"), {"name": "reader", "access": "read"})

    token = ApiToken.objects.get(user=user)
    assert token.access == TokenAccess.READ
    listing = page_text(client.get(reverse("accounts:tokens")))
    assert '<td data-label="Access">Read only</td>' in listing


def test_an_unknown_access_level_is_refused_naming_the_field(client: Client, user: User) -> None:
    client.force_login(user)

    response = client.post(reverse("accounts:tokens"), {"name": "odd", "access": "admin"})

    assert response.status_code == 200
    assert "Select a valid choice" in page_text(response)
    assert not ApiToken.objects.exists()
    with pytest.raises(ValidationError) as error:
        api_token_create(user=user, name="odd", access="admin")
    assert "access" in error.value.message_dict


def test_the_claude_desktop_snippet_is_valid_json_for_mcp_remote() -> None:
    (desktop, _, cursor, _) = mcp_snippets(url="http://127.0.0.1:8000/mcp/", key="k3y")

    server = json.loads(desktop.text)["mcpServers"]["cairn"]
    assert server["command"] == "npx"
    assert server["args"] == [
        "-y",
        "mcp-remote",
        "http://127.0.0.1:8000/mcp/",
        "--header",
        "Authorization: Bearer ${CAIRN_TOKEN}",
    ]
    assert server["env"] == {"CAIRN_TOKEN": "k3y"}
    assert json.loads(cursor.text) == {
        "mcpServers": {
            "cairn": {
                "url": "http://127.0.0.1:8000/mcp/",
                "headers": {"Authorization": "Bearer k3y"},
            }
        }
    }


def test_mcp_remote_is_told_to_allow_plain_http_only_beyond_this_machine() -> None:
    lan = json.loads(mcp_snippets(url="http://cairn.lan:8000/mcp/", key=None)[0].text)
    tls = json.loads(mcp_snippets(url="https://cairn.example/mcp/", key=None)[0].text)

    assert "--allow-http" in lan["mcpServers"]["cairn"]["args"]
    assert lan["mcpServers"]["cairn"]["env"] == {"CAIRN_TOKEN": KEY_PLACEHOLDER}
    assert "--allow-http" not in tls["mcpServers"]["cairn"]["args"]


# The REST door


def bearer(key: str) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return api


def test_the_rest_api_takes_the_bearer_header_too(user: User) -> None:
    _, key = api_token_create(user=user, name="mcp and rest")

    assert bearer(key).get("/api/v1/projects/").status_code == 200
    assert bearer("not-a-key").get("/api/v1/projects/").status_code == 401


def test_a_read_only_token_reads_but_cannot_write_over_rest(user: User) -> None:
    _, key = api_token_create(user=user, name="reader", access=TokenAccess.READ)
    api = bearer(key)

    personal = project_ensure_personal(user=user)

    listed = api.get("/api/v1/claims/")
    added = api.post("/api/v1/claims/", {"statement": "I like tea"}, format="json")
    fact = api.post(
        f"/api/v1/projects/{personal.pk}/facts/",
        {"key": "user.favorites.tea.1", "value": "green"},
        format="json",
    )

    assert listed.status_code == 200
    assert added.status_code == 403
    assert added.json()["detail"] == READ_ONLY_REFUSAL
    assert fact.status_code == 403
    assert not Claim.objects.filter(user=user).exists()
    assert not ProjectFact.objects.exists()


def test_a_read_and_write_token_writes_over_rest(user: User) -> None:
    _, key = api_token_create(user=user, name="writer", access=TokenAccess.WRITE)

    added = bearer(key).post("/api/v1/claims/", {"statement": "I like tea"}, format="json")

    assert added.status_code == 201, added.json()
    assert Claim.objects.get(user=user).statement == "I like tea"


def test_a_signed_in_person_is_not_limited_by_token_levels(client: Client, user: User) -> None:
    api = APIClient()
    api.force_login(user)

    added = api.post("/api/v1/claims/", {"statement": "I like tea"}, format="json")

    assert added.status_code == 201


def test_a_script_can_trade_its_password_for_a_read_only_token(user: User) -> None:
    response = APIClient().post(
        "/api/v1/auth/token/",
        {"email": user.email, "password": DEFAULT_PASSWORD, "name": "cron", "access": "read"},
        format="json",
    )

    assert response.status_code == 201
    assert response.json()["access"] == "read"
    refused = bearer(response.json()["token"]).post(
        "/api/v1/claims/", {"statement": "I like tea"}, format="json"
    )
    assert refused.status_code == 403
