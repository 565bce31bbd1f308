"""Running independent database work side by side, on a small shared thread pool.

A chat turn and a hybrid search each have parts that need neither each other's results
nor each other's transaction (full-text and vector rankings; searching files while
gathering claims). ``run_beside`` starts such a part on a pool thread, with a database
connection of its own, and returns the function that waits for its result.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from django.conf import settings
from django.db import connection, connections
from django.db.backends.base.base import BaseDatabaseWrapper

P = ParamSpec("P")
T = TypeVar("T")

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()
_local = threading.local()
_pool_connections: set[BaseDatabaseWrapper] = set()


def run_beside(fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Callable[[], T]:
    """Start ``fn(*args, **kwargs)`` on a pool thread; call the result to wait for it.

    It runs here instead, when called, if:
    - this thread is inside a transaction: another connection could not see the rows it
      has not committed;
    - this thread is a pool thread already: waiting on the pool from inside it could
      leave every pool thread waiting for a task that none of them is free to run;
    - ``CAIRN_BESIDE_THREADS`` is 0.
    """
    threads = int(settings.CAIRN_BESIDE_THREADS)
    if threads <= 0 or connection.in_atomic_block or getattr(_local, "in_pool", False):
        return lambda: fn(*args, **kwargs)
    return _executor(threads).submit(_on_own_connection, fn, *args, **kwargs).result


def settle(waits: Iterable[Callable[[], object]]) -> None:
    """Wait for the work ``run_beside`` started on pool threads (``waits``, what it
    returned), whatever it raises: a caller that fails leaves none of its work running on
    the database (its locks would meet the caller's next step). Work that ``run_beside``
    left to run on the calling thread, when waited for, is not started."""
    for wait in waits:
        future = getattr(wait, "__self__", None)
        if isinstance(future, Future):
            with contextlib.suppress(BaseException):  # the caller raises its own error
                future.result()


def _executor(threads: int) -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="cairn-beside")
        return _pool


def _on_own_connection(fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    # Each pool thread keeps its connection between tasks: a new PostgreSQL backend costs
    # a fork and cold catalog caches, more than the work it would take on. One that broke
    # meanwhile (the database restarted) is replaced before it is used.
    wrapper = connections["default"]
    if wrapper.connection is not None and not wrapper.is_usable():
        wrapper.close()
    with _pool_lock:
        _pool_connections.add(wrapper)
    _local.in_pool = True
    try:
        return fn(*args, **kwargs)
    finally:
        _local.in_pool = False


def close_pool_connections() -> None:
    """Close the pool threads' idle connections (the test suite does, before it drops its
    database; pool threads only ever hold a connection between tasks)."""
    with _pool_lock:
        wrappers = list(_pool_connections)
    for wrapper in wrappers:
        # Django guards a connection against use from other threads; closing an idle one
        # from here is safe, so the guard is lifted for just that.
        wrapper.inc_thread_sharing()
        try:
            wrapper.close()
        finally:
            wrapper.dec_thread_sharing()
