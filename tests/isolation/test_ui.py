"""User B never sees user A's data through the pages, the admin, the UI endpoints, the
websocket, autocomplete or reference resolution."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.contrib import admin
from django.test import Client
from django.urls import reverse

from apps.contexts.autocomplete import reference_suggestions
from apps.contexts.references import resolve_message, resolve_reference
from config.api import ui_api
from tests.isolation.test_rest import BODY, _object_id, _snapshot
from tests.isolation.world import SECRET, Account, build_world

pytestmark = pytest.mark.django_db


def _session(account: Account) -> tuple[Client, str]:
    client = Client(enforce_csrf_checks=True)
    client.force_login(account.user)
    client.get(reverse("accounts:settings"))  # sets the CSRF cookie
    return client, client.cookies["csrftoken"].value


def test_every_ui_endpoint_keeps_a_invisible_to_b() -> None:
    a, b = build_world()
    before = _snapshot(a)
    client, token = _session(b)
    schema = ui_api.get_openapi_schema()
    checked = 0
    for path, operations in schema["paths"].items():
        for method in operations:
            params = re.findall(r"{(\w+)}", path)
            url = re.sub(r"{(\w+)}", lambda m, p=path: _object_id(p, m.group(1), a), path)
            response = client.generic(
                method.upper(),
                url,
                json.dumps(BODY),
                content_type="application/json",
                HTTP_X_CSRFTOKEN=token,
            )
            assert SECRET not in response.content.decode(errors="replace"), f"{method} {url}"
            if params:
                assert response.status_code in (400, 404, 405), f"{method} {url}"
            checked += 1
    assert checked >= 3
    assert _snapshot(a) == before


def _admin_urls(a: Account, twin: Account) -> list[tuple[str, str]]:
    """(A's URL, the same page for B's twin object) for each admin page of A's objects."""
    urls = []
    for model, _model_admin in admin.site._registry.items():
        meta = model._meta
        if meta.app_label in ("auth", "accounts", "django_q"):
            continue  # superusers' own business; ordinary users are refused there
        pairs = [
            (value, vars(twin)[name]) for name, value in vars(a).items() if isinstance(value, model)
        ]
        pairs += [
            (value, twin.extra[name]) for name, value in a.extra.items() if isinstance(value, model)
        ]
        for obj, twin_obj in pairs:
            for view in ("change", "delete", "history"):
                name = f"admin:{meta.app_label}_{meta.model_name}_{view}"
                urls.append((reverse(name, args=[obj.pk]), reverse(name, args=[twin_obj.pk])))
    return urls


def test_admin_pages_answer_404_for_a_and_list_only_bs_rows() -> None:
    a, b = build_world()
    client = Client()
    client.force_login(b.user)

    urls = _admin_urls(a, b)
    assert len(urls) >= 12
    for url, own_url in urls:
        for send in (client.get, lambda u: client.post(u, {"post": "yes"})):
            status = send(url).status_code
            # 403 is no leak when B is refused the same page for B's own twin object.
            if status == 403:
                assert client.get(own_url).status_code == 403, url
            else:
                assert status == 404, url
    for model in admin.site._registry:
        meta = model._meta
        if meta.app_label in ("auth", "django_q"):
            continue
        page = client.get(reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist"))
        assert SECRET not in page.content.decode(), meta.label
    assert SECRET not in client.get(reverse("admin:index")).content.decode()


@pytest.mark.parametrize("name", ["knowledge:claim", "knowledge:context", "chat:conversation"])
def test_site_pages_of_a_are_404_for_b(name: str) -> None:
    a, b = build_world()
    client = Client()
    client.force_login(b.user)
    target: dict[str, Any] = {
        "knowledge:claim": a.claim.id,
        "knowledge:context": a.context.id,
        "chat:conversation": a.conversation.id,
    }

    assert client.get(reverse(name, args=[target[name]])).status_code == 404


def test_lists_and_search_pages_never_show_a() -> None:
    _, b = build_world()
    client = Client()
    client.force_login(b.user)
    for url in (
        reverse("knowledge:home") + "?q=locker",
        reverse("knowledge:contexts"),
        reverse("knowledge:pending"),
        reverse("chat:home"),
        "/facts/",
        "/files/",
    ):
        response = client.get(url, follow=True)
        assert SECRET not in response.content.decode(), url


def test_resolution_and_autocomplete_with_identical_ids_stay_with_their_owner() -> None:
    a, b = build_world()

    for identifier in (
        "locker_code",
        "work_secrets",
        "agent_person_entity",
        "private_tag",
        "claim_1",
        "work_secrets",
    ):
        result = resolve_reference(b.user, identifier)
        assert result.found
        assert all(SECRET not in claim.statement for claim in result.claims)
        assert result.object_id not in {a.claim.id, a.context.id, a.entity.id, a.tag.id}
    _, results = resolve_message(b.user, f"@memory:{a.claim.id} please")
    assert not results[0].found
    for query in ("locker", "work", "agent", "private", "1", SECRET.lower()):
        assert all(SECRET not in s.preview for s in reference_suggestions(user=b.user, query=query))
