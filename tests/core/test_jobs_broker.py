"""The queue's bells go through one broker per process (apps/core/jobs.py): one Redis
connection kept open, not one opened for every task, and a connection Redis dropped (a
restart while it sat idle) is replaced at the next bell instead of losing it."""

from __future__ import annotations

import subprocess
from typing import Any

import pytest
import redis
from django_q.conf import Conf

from apps.core import jobs
from apps.core.jobs import queue_task
from tests.processes import start_redis

QUEUE = "django_q:cairn:q"


@pytest.fixture
def queue(
    own_redis: tuple[int, list[subprocess.Popen[bytes]]], monkeypatch: pytest.MonkeyPatch
) -> tuple[redis.Redis, list[subprocess.Popen[bytes]], int]:
    """django-q2 pointed at a Redis of this test's own, not running tasks inline."""
    port, servers = own_redis
    monkeypatch.setattr(Conf, "REDIS", f"redis://127.0.0.1:{port}/0")
    monkeypatch.setattr(Conf, "ORM", None)
    monkeypatch.setattr(Conf, "SYNC", False)
    monkeypatch.setattr(jobs, "_brokers", {})
    return redis.Redis(port=port), servers, port


def _connections_made(client: redis.Redis) -> int:
    return int(client.info("stats")["total_connections_received"])


def test_every_bell_goes_through_one_connection(queue: Any) -> None:
    client, _, _ = queue
    before = _connections_made(client)

    for _ in range(5):
        queue_task("apps.core.work.work_run_due", task_name="run due work", group="work")

    assert client.llen(QUEUE) == 5
    assert _connections_made(client) - before == 1


def test_a_bell_after_redis_restarted_still_rings(queue: Any) -> None:
    _, servers, port = queue
    queue_task("apps.core.work.work_run_due", task_name="run due work", group="work")

    # When Redis restarts (forgetting everything) while the broker's connection is idle
    servers[0].terminate()
    servers[0].wait(timeout=10)
    servers.append(start_redis(port))

    # Then the next bell is rung on a new connection, not lost with the old one
    queue_task("apps.core.work.work_run_due", task_name="run due work", group="work")
    assert redis.Redis(port=port).llen(QUEUE) == 1
