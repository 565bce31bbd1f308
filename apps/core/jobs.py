"""The one way Cairn hands work to django-q2."""

from __future__ import annotations

import contextlib
import os
import threading
from typing import Any

from django.db import transaction
from django_q.brokers import Broker, get_broker
from django_q.conf import Conf
from django_q.tasks import async_task

_brokers: dict[tuple[object, ...], Broker] = {}
_brokers_lock = threading.Lock()


def queue_task(func: str, *args: object, **options: Any) -> Any:
    """``async_task`` that leaves the caller's database connection alone, through this
    process's one broker.

    Outside an atomic block, django-q2's ORM broker calls ``close_old_connections()``
    before it writes, which with ``CONN_MAX_AGE=0`` closes the connection of the request
    (or turn) that queues the task, so its next query reconnects, costing milliseconds
    each time. Inside one it just inserts the row.
    """
    # Redis needs no transaction: it would only cost the turn four round trips.
    with transaction.atomic() if queue_in_database() else contextlib.nullcontext():
        try:
            return async_task(func, *args, broker=_broker(), **options)
        except Exception:
            # A connection the queue dropped (Redis restarted while it sat idle): once
            # more on a new one, which raises if the queue is really down.
            _forget_broker()
            return async_task(func, *args, broker=_broker(), **options)


def queue_in_database() -> bool:
    """Whether tasks are queued as rows of the database (django-q2's ORM broker, when
    ``REDIS_URL`` is unset) rather than in Redis."""
    return bool(Conf.ORM)


def _broker_key() -> tuple[object, ...]:
    # Per process (a forked worker opens its own connections) and per configuration
    # (a test that points the queue at another Redis gets a broker for that one).
    return (os.getpid(), str(Conf.REDIS), Conf.ORM, Conf.BROKER_CLASS)


def _broker() -> Broker:
    """django-q2 makes a broker for every task it is given, and with Redis each opened a
    connection of its own: 3 ms of every wake-up, two of them after every chat message
    saved (bench/bench_chat.py). One per process keeps its connection open instead."""
    key = _broker_key()
    with _brokers_lock:
        broker = _brokers.get(key)
        if broker is None:
            broker = _brokers[key] = get_broker()
    return broker


def _forget_broker() -> None:
    with _brokers_lock:
        _brokers.pop(_broker_key(), None)
