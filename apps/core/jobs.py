"""The one way Cairn hands work to django-q2."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django_q.tasks import async_task


def queue_task(func: str, *args: object, **options: Any) -> Any:
    """``async_task`` that leaves the caller's database connection alone.

    Outside an atomic block, django-q2's ORM broker calls ``close_old_connections()``
    before it writes, which with ``CONN_MAX_AGE=0`` closes the connection of the request
    (or turn) that queues the task, so its next query reconnects, costing milliseconds
    each time. Inside one it just inserts the row.
    """
    with transaction.atomic():
        return async_task(func, *args, **options)
