from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.accounts.services import api_token_create
from tests.factories import UserFactory
from tests.processes import free_port, start_redis


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


@pytest.fixture
def own_redis(redis_url: str) -> Iterator[tuple[int, list[subprocess.Popen[bytes]]]]:
    """A Redis of this test's own on a free port, which it may stop and start again
    (``servers.append(start_redis(port))``): never the shared one. Yields the port and the
    servers started on it, all stopped at the end."""
    if not shutil.which("redis-server"):
        pytest.skip("redis-server is not installed")
    port = free_port()
    servers = [start_redis(port)]
    yield port, servers
    for server in servers:
        server.terminate()
        server.wait(timeout=10)


@pytest.fixture(scope="session", autouse=True)
def _close_pool_connections(django_db_setup: None) -> Iterator[None]:
    """Pool threads (apps/core/concurrency.py) keep their connections between tasks; they
    must be closed before pytest-django drops the test database."""
    yield
    from apps.core.concurrency import close_pool_connections

    close_pool_connections()
