from __future__ import annotations

import pytest
from django.test import Client

from config import health

pytestmark = pytest.mark.django_db


def test_healthz_reports_database_vector_and_queue(client: Client) -> None:
    response = client.get("/healthz")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert set(body["checks"]) == {"database", "vector", "queue"}
    assert body["checks"]["vector"]["detail"].startswith("pgvector 0.8")


def test_healthz_answers_503_when_a_check_fails(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken() -> tuple[bool, str]:
        raise ConnectionError("broker unreachable")

    monkeypatch.setitem(health.CHECKS, "queue", broken)

    response = client.get("/healthz")

    assert response.status_code == 503
    assert response.json()["checks"]["queue"] == {
        "ok": False,
        "detail": "ConnectionError: broker unreachable",
    }
