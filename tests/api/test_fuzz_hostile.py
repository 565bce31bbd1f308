"""Hostile fuzzing of both APIs (issue 15): schemathesis generates each operation's
requests from its schema, then one value of every body and query is replaced by input a
polite generator never sends — NUL characters, unpaired surrogates, integers beyond any
column, dates out of Python's range, JSON nested thousands deep, text of invisible
characters. The only check: no 5xx, ever. The REST schema, the ninja ``/api/ui/`` schema
and the knowledge import document are all covered; the chat socket has its own fuzz
(tests/chat/test_consumer_hostile.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.middleware.csrf import _get_new_csrf_string
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error

from apps.accounts.models import User
from apps.accounts.services import api_token_create
from apps.claims.services import claim_create
from apps.contexts.services import context_add_claims, context_create
from tests.indexing.conftest import fake_provider  # noqa: F401 - fixture

HOSTILE_VALUES: list[object] = [
    "\x00",
    "tea\x00time",
    "\ud800",
    "mixed \udfff text",
    "\u200b\u202e",
    "0001-01-01T00:00:00+14:00",
    2**31,
    2**40,
    -(2**63) - 1,
    10**20,
    [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["deep"]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],
]
# A URL carries UTF-8 bytes: unpaired surrogates reach the server only in JSON escapes.
HOSTILE_TEXT = [
    value for value in HOSTILE_VALUES if isinstance(value, str) and "\ud800" not in value
] + ["99999999999999999999", "-99999999999999999999"]
HOSTILE_TEXT = [text for text in HOSTILE_TEXT if "\udfff" not in text]


def _leaves(value: object, path: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    if isinstance(value, dict):
        found = [(*path, key) for key in value]
        for key, child in value.items():
            found += _leaves(child, (*path, key))
        return found
    if isinstance(value, list):
        found = [(*path, index) for index in range(len(value))]
        for index, child in enumerate(value):
            found += _leaves(child, (*path, index))
        return found
    return []


def _replaced(value: Any, path: tuple[object, ...], new: object) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {
            key: _replaced(child, rest, new) if key == head else child
            for key, child in value.items()
        }
    return [
        _replaced(child, rest, new) if index == head else child for index, child in enumerate(value)
    ]


def hostile_body(body: Any) -> st.SearchStrategy[Any]:
    """The generated body with one value (or the whole body) made hostile, or a hostile
    key added to an object."""
    leaves = _leaves(body)
    replace = st.tuples(st.sampled_from([(), *leaves]), st.sampled_from(HOSTILE_VALUES)).map(
        lambda choice: _replaced(body, choice[0], choice[1])
    )
    if isinstance(body, dict):
        add_key = st.sampled_from(HOSTILE_TEXT).map(lambda key: {**body, key: "x"})
        return st.one_of(replace, add_key)
    return replace


def hostile_query(query: dict[str, Any] | None) -> st.SearchStrategy[dict[str, Any]]:
    names = sorted((query or {}).keys() | {"limit", "offset", "q", "k", "page"})
    return st.tuples(st.sampled_from(names), st.sampled_from(HOSTILE_TEXT)).map(
        lambda choice: {**(query or {}), choice[0]: choice[1]}
    )


def _encodable(value: Any) -> Any:
    """Form bodies are UTF-8 bytes: a surrogate cannot be sent there by any client."""
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, dict):
        return {_encodable(key): _encodable(child) for key, child in value.items()}
    if isinstance(value, list):
        return [_encodable(child) for child in value]
    return value


def send(case: Any, headers: dict[str, str]) -> None:
    if case.media_type and "json" not in case.media_type:
        case.body = _encodable(case.body)
    case.call_and_validate(headers=headers, checks=[not_a_server_error])


def _hostile(schema: Any) -> Any:
    schema.hook("flatmap_body")(lambda context, body: hostile_body(body))
    schema.hook("flatmap_query")(lambda context, query: hostile_query(query))
    return schema


application = get_wsgi_application()
rest = _hostile(
    schemathesis.openapi.from_wsgi("/api/v1/schema/", application).exclude(
        # Posting a chat turn runs the model; its text goes through the same door.
        path_regex=r"/messages/$"
    )
)
ui = _hostile(schemathesis.openapi.from_wsgi("/api/ui/openapi.json", application))

pytestmark = pytest.mark.django_db
FUZZ_SETTINGS = settings(
    max_examples=4, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)


@pytest.fixture(autouse=True)
def keep_the_test_connection() -> Iterator[None]:
    """The WSGI handler closes connections after each request, which would end the test's
    transaction; Django's own test client disconnects the same receivers."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def knowledge(user: User) -> None:
    claim = claim_create(user=user, statement="I prefer morning workouts")
    context_add_claims(context=context_create(user=user, name="Health"), claims=[claim])


@pytest.fixture
def token_headers(user: User, knowledge: None) -> dict[str, str]:
    _, key = api_token_create(user=user, name="fuzz")
    return {"Authorization": f"Token {key}"}


@pytest.fixture
def session_headers(user: User, knowledge: None) -> dict[str, str]:
    client = Client()
    client.force_login(user)
    csrf = _get_new_csrf_string()
    return {
        "Cookie": f"sessionid={client.cookies['sessionid'].value}; csrftoken={csrf}",
        "X-CSRFToken": csrf,
    }


@rest.parametrize()
@FUZZ_SETTINGS
def test_the_rest_api_never_answers_5xx_to_hostile_input(
    case: Any, token_headers: dict[str, str]
) -> None:
    send(case, token_headers)


@ui.parametrize()
@FUZZ_SETTINGS
def test_the_ui_api_never_answers_5xx_to_hostile_input(
    case: Any, session_headers: dict[str, str]
) -> None:
    send(case, session_headers)


# History imports (issue 29): generated exports, ChatGPT's and Claude's, zipped or bare,
# with one value made hostile or of another type. Never a 5xx, and an accepted import
# always ends (done or failed), never left waiting or half-stored.

EXPORT_VALUES: list[object] = [*HOSTILE_VALUES, "x" * 300, 5, True, None, {"a": 1}, [1, "b"]]


def _export_document(vendor: str) -> Any:
    from tests.chat.test_exports import chatgpt_export, claude_export

    return chatgpt_export() if vendor == "chatgpt" else claude_export()


@st.composite
def hostile_exports(draw: st.DrawFn) -> tuple[str, bytes]:
    import io
    import json
    import zipfile

    document = _export_document(draw(st.sampled_from(["chatgpt", "claude"])))
    path = draw(st.sampled_from([(), *_leaves(document)]))
    document = _replaced(document, path, draw(st.sampled_from(EXPORT_VALUES)))
    data = json.dumps(document).encode()
    if draw(st.booleans()):
        return "conversations.json", data
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("conversations.json", data)
    return "export.zip", buffer.getvalue()


@pytest.mark.usefixtures("fake_provider")
@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(export=hostile_exports())
def test_hostile_export_files_never_answer_5xx_and_every_import_ends(
    export: tuple[str, bytes], token_headers: dict[str, str]
) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.test import TestCase
    from rest_framework.test import APIClient

    from apps.chat.models import ChatImport

    name, data = export
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=token_headers["Authorization"])
    with TestCase.captureOnCommitCallbacks(execute=True):  # the import runs, as the worker would
        response = client.post(
            "/api/v1/imports/", {"file": SimpleUploadedFile(name, data)}, format="multipart"
        )

    assert response.status_code < 500, response.content
    if response.status_code == 202:
        row = ChatImport.objects.get(pk=response.json()["id"])
        assert row.status in (ChatImport.Status.DONE, ChatImport.Status.FAILED), row.status
    else:
        assert response.status_code == 400
        assert "file" in response.json()
