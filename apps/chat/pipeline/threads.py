"""Running the pipeline's synchronous steps from the websocket's event loop.

Channels' `database_sync_to_async` runs everything on one shared thread by default, so
every conversation's database work would queue behind every other's. A turn's steps
touch only their own rows, so they run in the thread pool instead
(`thread_sensitive=False`), each thread with its own connection.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from channels.db import database_sync_to_async
from django.db import connections

P = ParamSpec("P")
R = TypeVar("R")


def _drop_dead_connections() -> None:
    """A pool thread may hold a connection the server has since dropped (a restart, an
    idle timeout). Django checks health only when a cursor opens, not when a transaction
    begins, so a step starting with `atomic()` would fail: check first."""
    for connection in connections.all(initialized_only=True):
        if connection.connection is not None and not connection.is_usable():
            connection.close()


def in_worker_thread(func: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    @functools.wraps(func)
    def checked(*args: P.args, **kwargs: P.kwargs) -> R:
        _drop_dead_connections()
        return func(*args, **kwargs)

    return database_sync_to_async(checked, thread_sensitive=False)  # type: ignore[no-any-return]
