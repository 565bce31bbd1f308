"""Handing indexing work to django-q2: by id, after the surrounding transaction commits, with
retries on failure.

Two layers of retry: django-q2 re-delivers a task whose worker died or timed out without
acknowledging it (``Q_CLUSTER["retry"]`` / ``max_attempts``); a task that *fails* (an
exception the task catches) schedules its own next attempt with exponential back-off,
counting attempts in its arguments, and gives up after ``MAX_ATTEMPTS`` with the error
recorded.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from django_q.models import Schedule
from django_q.tasks import schedule

from apps.core.jobs import queue_task

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 4
RETRY_BASE_SECONDS = 30
DOCUMENTS_PER_TASK = 64
"""Documents one indexing task takes. A task of 16 made embedding calls of about 20
passages and paid a task's fixed costs (the queue, the row locks, a commit, progress) every
20: through a real cluster the worker indexed at 0.78 of the raw model's speed, against
0.85 at 64 together with flushes of 128 chunks (bench/bench_indexing.py). A task still
stops at its deadline and queues the rest, and its progress is published as it goes, so
larger ones neither time out nor look stuck. The cost: a file that kills its worker
outright (out of memory) takes the task's other documents with it until django-q2
re-delivers the task; after its last attempt they stay "indexing" until the next scan or
re-index, which picks them up again."""


def task_path(name: str) -> str:
    return f"apps.indexing.tasks.{name}"


def enqueue_now(name: str, *args: object, label: str = "") -> None:
    """Queue ``tasks.<name>(*args)`` at once; raises if the broker refuses it."""
    queue_task(task_path(name), *args, task_name=label or name, group=f"indexing.{name}")


def enqueue_on_commit(name: str, *args: object, label: str = "") -> None:
    """Queue ``tasks.<name>(*args)`` once the current transaction commits (at once outside
    one). A broker failure is logged, not raised: the rows it concerns stay pending and are
    picked up by the next re-index or scan."""

    def send() -> None:
        try:
            enqueue_now(name, *args, label=label)
        except Exception:  # broker errors differ by backend (ORM, Redis); none may escape
            logger.exception("could not enqueue %s%r", name, args)

    transaction.on_commit(send)


def enqueue_documents(document_ids: list[str], *, force: bool = False) -> None:
    """Index these documents, in tasks of ``DOCUMENTS_PER_TASK``: one task embeds their
    chunks together, which keeps the model's batches full."""
    for first in range(0, len(document_ids), DOCUMENTS_PER_TASK):
        batch = document_ids[first : first + DOCUMENTS_PER_TASK]
        enqueue_on_commit("index_documents", batch, force, label=f"index {len(batch)} documents")


def retry_delay(attempt: int) -> timedelta:
    """Back-off before attempt ``attempt + 1``: 30 s, 1 min, 2 min …"""
    return timedelta(seconds=RETRY_BASE_SECONDS * 2 ** max(0, attempt - 1))


def schedule_retry(name: str, *args: object, attempt: int) -> bool:
    """Schedule attempt ``attempt + 1`` of ``tasks.<name>``; False when attempts are used up
    (or the retry could not even be scheduled)."""
    if attempt >= MAX_ATTEMPTS:
        return False
    try:
        schedule(
            task_path(name),
            *args,
            attempt=attempt + 1,
            schedule_type=Schedule.ONCE,
            next_run=timezone.now() + retry_delay(attempt),
        )
    except Exception:  # the schedule table is the database: if that is down, give up
        logger.exception("could not schedule a retry of %s%r", name, args)
        return False
    return True
