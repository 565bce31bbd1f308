"""Schemathesis against the OpenAPI schema: generated requests to every operation, as an
authenticated user with some knowledge. No 5xx, and every response matches the schema."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

from apps.accounts.models import User
from apps.accounts.services import api_token_create
from apps.claims.services import claim_create
from apps.contexts.services import context_add_claims, context_create

schema = schemathesis.openapi.from_wsgi("/api/v1/schema/", get_wsgi_application())
# Bodies that import or post chat turns are exercised by their own tests; fuzzing them
# would spend the budget on the offline model and large imports.
schema = schema.exclude(path_regex=r"knowledge/import|/messages/$")

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def keep_the_test_connection() -> Iterator[None]:
    """The WSGI handler closes database connections after each request, which would end
    the test's transaction; Django's own test client disconnects the same receivers."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def auth(user: User) -> dict[str, str]:
    claim = claim_create(user=user, statement="I prefer morning workouts")
    context_add_claims(context=context_create(user=user, name="Health"), claims=[claim])
    _, key = api_token_create(user=user, name="fuzz")
    return {"Authorization": f"Token {key}"}


@schema.parametrize()
@settings(max_examples=4, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_api_answers_without_server_errors_and_to_its_schema(
    case: Any, auth: dict[str, str]
) -> None:
    case.call_and_validate(headers=auth, checks=[not_a_server_error, response_schema_conformance])
