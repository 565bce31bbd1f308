from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.accounts.services import api_token_create
from tests.factories import UserFactory


@pytest.fixture
def user(db: None) -> User:
    return UserFactory(email="alice@example.com")


@pytest.fixture
def other_user(db: None) -> User:
    return UserFactory(email="bob@example.com")


@pytest.fixture
def api_client() -> APIClient:
    return APIClient()


@pytest.fixture
def token_client(user: User) -> APIClient:
    """An API client authenticated with one of ``user``'s API tokens, as an integration is."""
    _, key = api_token_create(user=user, name="tests")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


@pytest.fixture
def redis_url() -> str:
    url = os.environ.get("REDIS_URL", "")
    if not url:
        pytest.skip(
            "REDIS_URL is not set: Redis-backed behaviour is tested in CI (.ci/run sets it)"
        )
    return url


@pytest.fixture(scope="session", autouse=True)
def _close_pool_connections(django_db_setup: None) -> Iterator[None]:
    """Pool threads (apps/core/concurrency.py) keep their connections between tasks; they
    must be closed before pytest-django drops the test database."""
    yield
    from apps.core.concurrency import close_pool_connections

    close_pool_connections()
