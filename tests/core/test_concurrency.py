"""run_beside: work on a pool thread with its own connection, or here when it must be."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection, connections, transaction

from apps.core.concurrency import close_pool_connections, run_beside


def _where() -> tuple[str, int, Any]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    return threading.current_thread().name, pid, connections["default"]


def _my_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


@pytest.mark.django_db(transaction=True)
def test_runs_on_a_pool_thread_with_a_connection_of_its_own(settings: Any) -> None:
    settings.CAIRN_BESIDE_THREADS = 1

    thread, pid, wrapper = run_beside(_where)()

    assert thread.startswith("cairn-beside")
    assert pid != _my_pid()
    # Kept between tasks (a new backend costs more than most tasks), closed on demand.
    assert wrapper.connection is not None
    close_pool_connections()
    assert wrapper.connection is None


@pytest.mark.django_db(transaction=True)
def test_a_broken_pool_connection_is_replaced(settings: Any) -> None:
    settings.CAIRN_BESIDE_THREADS = 1
    _, pid, _ = run_beside(_where)()
    with connection.cursor() as cursor:  # as a database restart would
        cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    # Whichever pool thread takes the next task, none may fail on a dead connection.
    for _ in range(8):
        _, new_pid, _ = run_beside(_where)()
        assert new_pid != pid


@pytest.mark.django_db(transaction=True)
def test_runs_here_inside_a_transaction_or_a_pool_thread(settings: Any) -> None:
    settings.CAIRN_BESIDE_THREADS = 2
    with transaction.atomic():
        thread, pid, _ = run_beside(_where)()
        assert (thread, pid) == (threading.current_thread().name, _my_pid())

    def nested() -> tuple[str, str]:
        inner_thread, _, _ = run_beside(_where)()
        return threading.current_thread().name, inner_thread

    outer, inner = run_beside(nested)()
    assert outer == inner  # no pool thread ever waits on the pool


@pytest.mark.django_db(transaction=True)
def test_an_error_reaches_the_caller(settings: Any) -> None:
    settings.CAIRN_BESIDE_THREADS = 2

    def fail() -> None:
        raise LookupError("nothing here")

    wait = run_beside(fail)
    with pytest.raises(LookupError, match="nothing here"):
        wait()
