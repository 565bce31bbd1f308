"""User B never reads, changes or learns of user A's data through any REST route.

The routes come from the OpenAPI schema, so a new endpoint is covered without editing
this test; a path parameter the test cannot map to one of A's objects fails loudly."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from apps.accounts.services import api_token_create
from tests.isolation.world import SECRET, Account, build_world

pytestmark = pytest.mark.django_db

# Routes every user may call and that hold no per-object data of anyone.
PUBLIC = {"/api/v1/auth/token/", "/api/v1/schema/", "/api/v1/docs/"}
# A body to send with writes: wrong for most endpoints, but ownership is checked first.
BODY = {
    "statement": "hijack",
    "name": "hijack",
    "title": "hijack",
    "text": "hijack",
    "claims": ["1"],
    "claim": "1",
    "key": "user.locker.code",
    "value": "x",
    "parent": None,
    "approve": True,
}


def _object_id(path: str, param: str, a: Account) -> str:
    """Which of A's objects a path parameter names, from the collection before it."""
    before = path.split("{" + param + "}")[0].rstrip("/").rsplit("/", 1)[-1]
    ids: dict[str, Any] = {
        "claims": a.claim.id,
        "contexts": a.context.id,
        "entities": a.entity.id,
        "tags": a.tag.id,
        "projects": a.project.id,
        "conversations": a.conversation.id,
        "facts": "user.locker.code",
        "pins": a.claim.number,
        "messages": a.message.id,
    }
    for name, value in a.extra.items():
        ids.setdefault(name, value.pk if hasattr(value, "pk") else value)
    if before not in ids:
        raise AssertionError(
            f"{path}: no id of user A's for {{{param}}} after '{before}'; "
            "add the collection to tests/isolation/test_rest.py"
        )
    return str(ids[before])


def _routes() -> list[tuple[str, str]]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return [
        (path, method.upper())
        for path, operations in schema["paths"].items()
        for method in operations
        if method in ("get", "post", "put", "patch", "delete")
    ]


def _client_for(account: Account) -> APIClient:
    _, key = api_token_create(user=account.user, name="isolation")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def _snapshot(a: Account) -> dict[str, Any]:
    a.claim.refresh_from_db()
    a.context.refresh_from_db()
    a.conversation.refresh_from_db()
    return {
        "claim": (a.claim.statement, a.claim.status, a.claim.pinned),
        "context": (a.context.name, a.context.parent_id, a.context.claims.count()),
        "conversation": (
            a.conversation.title,
            a.conversation.archived,
            a.conversation.messages.count(),
        ),
        "claims": a.user.claims.count(),
        "contexts": a.user.contexts.count(),
    }


def test_every_rest_route_keeps_user_a_invisible_and_unchanged_to_user_b() -> None:
    a, b = build_world()
    before = _snapshot(a)
    as_b = _client_for(b)
    checked = 0
    for path, method in _routes():
        if path in PUBLIC:
            continue
        params = re.findall(r"{(\w+)}", path)
        url = path
        for param in params:
            url = url.replace("{" + param + "}", _object_id(path, param, a))
        response = as_b.generic(method, url, data=json.dumps(BODY), content_type="application/json")
        body = response.content.decode(errors="replace")
        assert SECRET not in body, f"{method} {url} leaked A's data to B"
        if params:
            assert response.status_code in (404, 405), (
                f"{method} {url} answered {response.status_code} to another user"
            )
        else:
            assert response.status_code < 500, f"{method} {url} failed: {response.status_code}"
        checked += 1

    assert checked > 40
    assert _snapshot(a) == before


def test_without_credentials_every_private_route_answers_401() -> None:
    a, _ = build_world()
    anonymous = APIClient()
    for path, method in _routes():
        if path in PUBLIC:
            continue
        url = re.sub(r"{(\w+)}", lambda m, p=path: _object_id(p, m.group(1), a), path)
        status = anonymous.generic(method, url).status_code
        assert status in (401, 405), f"{method} {url} answered {status} without credentials"
