"""`/healthz` is cheap and says what is wrong in words (issue 26, item 7)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.core import health
from apps.core.health import CheckResult, health_check
from apps.core.models import Work
from apps.core.work import work_run_due
from tests.processes import free_port, running_site

pytestmark = pytest.mark.django_db


def test_healthz_reports_database_extensions_and_queue(client: Client) -> None:
    response = client.get("/healthz")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert set(body["checks"]) == {"database", "extensions", "queue", "work"}
    assert body["checks"]["extensions"]["detail"].startswith("vector 0.8.6, pg_trgm ")


def test_healthz_says_how_old_the_oldest_waiting_work_is_and_fails_when_it_is_stuck(
    client: Client,
) -> None:
    # Given work owed for an hour that no worker took (no worker is running)
    Work.objects.create(task="apps.gone.tasks.removed_in_an_upgrade", args=["x"], key="x")
    Work.objects.update(due_at=timezone.now() - timedelta(hours=1))

    response = client.get("/healthz")

    assert response.status_code == 503
    detail = response.json()["checks"]["work"]["detail"]
    assert detail.startswith("Background work is waiting with no worker taking it: 1 due")
    assert "the oldest waiting 3600 s" in detail

    # And once a worker has taken it, all is well again
    work_run_due()
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["checks"]["work"]["detail"].startswith("0 due; 1 failed; a worker")


def test_healthz_builds_nothing(client: Client) -> None:
    """No table, no index, no extension: it is called every few seconds."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/healthz")

    assert response.status_code == 200
    statements = [query["sql"] for query in queries.captured_queries]
    assert any("pg_extension" in sql for sql in statements)
    assert not [sql for sql in statements if "CREATE" in sql.upper()]


def test_healthz_answers_503_when_a_check_fails(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken() -> CheckResult:
        raise ConnectionError("broker unreachable")

    monkeypatch.setitem(health.HEALTH_CHECKS, "queue", broken)

    response = client.get("/healthz")

    assert response.status_code == 503
    assert response.json()["checks"]["queue"] == {
        "ok": False,
        "detail": "ConnectionError: broker unreachable",
    }


def test_another_app_adds_a_check(client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(health, "HEALTH_CHECKS", dict(health.HEALTH_CHECKS))

    @health_check("workers")
    def workers() -> CheckResult:
        return CheckResult(ok=False, detail="No worker has reported for 5 minutes.")

    response = client.get("/healthz")

    assert response.status_code == 503
    assert response.json()["checks"]["workers"] == {
        "ok": False,
        "detail": "No worker has reported for 5 minutes.",
    }
    assert response.json()["checks"]["database"]["ok"] is True


@pytest.fixture
def site_without_database() -> Iterator[int]:
    """The site served by uvicorn with DATABASE_URL naming a port nothing listens on: a
    database that is down (stopped, restarting, or the network between is)."""
    dead_port = free_port()
    with running_site(
        lifespan=False, DATABASE_URL=f"postgres://cairn:secret@127.0.0.1:{dead_port}/cairn"
    ) as port:
        yield port


def test_a_database_that_is_down_is_503_in_words(site_without_database: int) -> None:
    with pytest.raises(urllib.error.HTTPError) as answer:
        urllib.request.urlopen(f"http://127.0.0.1:{site_without_database}/healthz", timeout=30)

    assert answer.value.code == 503
    checks = json.loads(answer.value.read())["checks"]
    assert checks["database"]["ok"] is False
    assert checks["database"]["detail"].startswith("The database is unreachable (")
    assert checks["extensions"]["detail"].startswith("The database is unreachable (")
    assert "pgvector" not in json.dumps(checks)
