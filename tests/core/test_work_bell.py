"""The ledger's wake-up (apps/core/work.py): every worker's bell in one transaction that
does not wait for the disk, after the work's own commit; a bell that cannot ring never
fails the work's writer."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django_q.conf import Conf

from apps.core import work
from apps.core.work import Work, work_add

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def bells(settings: Any, monkeypatch: pytest.MonkeyPatch) -> list[tuple[bool, str]]:
    """Workers woken through the queue (not run inline), two of them; each bell rung is
    recorded with whether it was inside a transaction, and its savepoint."""
    settings.Q_CLUSTER = {**settings.Q_CLUSTER, "sync": False, "workers": 2}
    rung: list[tuple[bool, str]] = []

    def ring(func: str, *args: object, **options: object) -> None:
        rung.append((connection.in_atomic_block, str(connection.savepoint_ids)))

    monkeypatch.setattr(work, "queue_task", ring)
    return rung


def test_every_worker_is_rung_once_in_one_transaction_after_the_commit(
    bells: list[tuple[bool, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given the queue in the database (django-q2's ORM broker, without REDIS_URL)
    monkeypatch.setattr(Conf, "ORM", "default")

    # When two pieces of work are owed in one transaction
    with CaptureQueriesContext(connection) as queries, transaction.atomic():
        work_add(task="apps.indexing.tasks.index_message", args=["a"])
        work_add(task="apps.indexing.tasks.index_message", args=["b"])
        assert bells == []  # nothing rings before the work is committed

    # Then each worker's bell rang once, both in one transaction, which did not wait for
    # the disk
    assert len(bells) == 2
    assert bells[0] == bells[1]
    assert bells[0][0]
    statements = [query["sql"] for query in queries.captured_queries]
    assert "SET LOCAL synchronous_commit = off" in statements
    assert Work.objects.filter(args__in=[["a"], ["b"]]).count() == 2


def test_with_redis_the_bells_ring_outside_any_transaction(
    bells: list[tuple[bool, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given the queue in Redis
    monkeypatch.setattr(Conf, "ORM", None)

    # When a piece of work is owed
    with CaptureQueriesContext(connection) as queries, transaction.atomic():
        work_add(task="apps.indexing.tasks.index_message", args=["d"])
    statements = [query["sql"] for query in queries.captured_queries]

    # Then each worker's bell rang after the commit, and the database was not asked for
    # a transaction of its own for them
    assert bells == [(False, "[]"), (False, "[]")]
    assert "SET LOCAL synchronous_commit = off" not in statements


def test_a_bell_that_cannot_ring_leaves_the_work_owed(
    bells: list[tuple[bool, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(func: str, *args: object, **options: object) -> None:
        raise ConnectionError("the queue is down")

    monkeypatch.setattr(work, "queue_task", broken)
    with transaction.atomic():
        work_add(task="apps.indexing.tasks.index_message", args=["c"])
    assert Work.objects.filter(args=["c"]).exists()
