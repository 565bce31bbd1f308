"""The ledger of background work (DESIGN §8): the database says what is to be done, the
queue only wakes workers.

``work_add`` writes a ``Work`` row in the caller's transaction, so the work exists exactly
when what it is about does: a message saved is a message whose indexing is owed, even if
the queue (Redis, or the ORM broker) loses every message, the worker is killed mid-task or
the web process dies right after the commit. On commit it wakes workers through django-q2
(``queue_task``); that wake-up carries nothing and may be lost.

A worker takes a row under a lease (``SELECT … FOR UPDATE SKIP LOCKED``), keeps the lease
alive from a thread while the work runs, and marks it done or failed. A row whose lease ran
out belongs to a worker that died (SIGKILL, out of memory, a lost machine) and is taken
again. A failure is retried with back-off up to the task's ``max_attempts``, then the row
is failed and the task's ``on_give_up`` records it where the user sees it. A sweep,
scheduled every minute in django-q2 and run at every worker's start, wakes workers for
anything due, so a lost wake-up costs at most a minute.

We chose this over django-q2's ORM broker and its retry timeout: that broker only exists
without Redis (with Redis, django-q2 pops a task off a list and a killed worker loses it),
its retry delay must exceed the task timeout (10 minutes), and it knows nothing of what a
task is about, so an import's status could not be read from it. Every task is idempotent:
running one twice (a lease taken over from a worker that was only slow) is wasted effort,
never a duplicate.
"""

from __future__ import annotations

import hashlib
import json
import logging
import socket
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any, TypeVar

from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.db.models import Min
from django.utils import timezone
from django.utils.module_loading import import_string

from .health import CheckResult, health_check
from .jobs import queue_in_database, queue_task
from .models import OPEN_STATES, Work, WorkerBeat, WorkState

logger = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])

RUN_DUE = "apps.core.work.work_run_due"
DONE_KEPT = timedelta(days=7)
"""Finished work is deleted after this long; failed work stays until its subject goes."""
RETRY_BASE_SECONDS = 30


class WorkFailed(Exception):
    """Raised by a task whose failure no retry can mend (a file that is no export): the
    work is failed at once, with this message as its reason."""


FailureHook = Callable[[list[Any], str, int], None]


@dataclass(frozen=True)
class Policy:
    """How a task is retried: ``on_retry(args, reason, attempt)`` after a failed attempt
    that will be tried again, ``on_give_up(args, reason, attempts)`` after the last;
    ``on_finish(args)`` once the row is done or failed for good (its state written), to
    bring whatever reads the ledger up to date."""

    max_attempts: int = 5
    on_retry: FailureHook | None = None
    on_give_up: FailureHook | None = None
    on_finish: Callable[[list[Any]], None] | None = None


def durable(
    *,
    max_attempts: int = 5,
    on_retry: FailureHook | None = None,
    on_give_up: FailureHook | None = None,
    on_finish: Callable[[list[Any]], None] | None = None,
) -> Callable[[F], F]:
    """Mark a function as a task of the ledger, with its retry policy."""

    def mark(func: F) -> F:
        policy = Policy(max_attempts, on_retry, on_give_up, on_finish)
        func.work_policy = policy  # type: ignore[attr-defined]
        return func

    return mark


def work_add(
    *,
    task: str,
    args: Sequence[object] = (),
    key: str = "",
    group: str = "",
    user_id: int | None = None,
) -> None:
    """Owe ``task(*args)``: a row in the caller's transaction, workers woken on commit.

    ``key`` names what the work is about (by default its arguments): while a row with the
    same task and key waits, asking again adds nothing."""
    arguments = json.loads(json.dumps(list(args), default=str))
    Work.objects.bulk_create(
        [
            Work(
                task=task,
                args=arguments,
                key=key or _key_of(arguments),
                group=group,
                user_id=user_id,
            )
        ],
        ignore_conflicts=True,
    )
    work_wake()


def _key_of(arguments: list[Any]) -> str:
    text = json.dumps(arguments, sort_keys=True)
    return text if len(text) <= 300 else hashlib.sha256(text.encode()).hexdigest()


def work_wake() -> None:
    """Wake workers once the current transaction commits (at once outside one); once per
    transaction however much it added."""
    if connection.in_atomic_block:
        # Work added in a loop rings once: the last hook registered is this bell, in this
        # same (sub)transaction.
        last = connection.run_on_commit[-1] if connection.run_on_commit else None
        if last is None or last[1] is not _send_wake or last[0] != set(connection.savepoint_ids):
            transaction.on_commit(_send_wake)
    else:
        _send_wake()


_local = threading.local()


def _sync() -> bool:
    return bool(settings.Q_CLUSTER.get("sync"))


def _send_wake() -> None:
    if _sync():
        # Tests (and `manage.py` commands run inline) see the work done at commit, as they
        # would see a task of django-q2's sync mode.
        work_run_due()
        return
    workers = int(settings.Q_CLUSTER.get("workers") or 1)  # type: ignore[call-overload]
    try:
        if not queue_in_database():
            for _ in range(max(1, workers)):
                queue_task(RUN_DUE, task_name="run due work", group="work")
            return
        # One transaction for every worker's bell, committed without waiting for the disk:
        # with the ORM broker each bell was a commit of its own, flushed, two after every
        # chat message saved (4 ms of a turn: bench/bench_chat.py). A bell lost to a crash
        # costs what a lost one always does: the sweep rings again.
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL synchronous_commit = off")
            for _ in range(max(1, workers)):
                queue_task(RUN_DUE, task_name="run due work", group="work")
    except Exception:  # the queue is only a bell: the rows wait, and the sweep rings again
        logger.warning("could not wake a worker; the next sweep will", exc_info=True)


@dataclass(frozen=True)
class Claimed:
    id: int
    task: str
    args: list[Any]
    attempts: int
    holder: uuid.UUID


def lease_seconds() -> float:
    return float(settings.CAIRN_WORK_LEASE_SECONDS)


def work_run_due(group: str = "") -> str:
    """The task behind every wake-up: take due work, one row at a time, until none is due
    or half the worker's timeout has passed (then ring again for the rest). With ``group``,
    only that group's work (a command that imports in its own process)."""
    if getattr(_local, "running", False):
        return "already running in this thread"  # sync mode: the outer loop takes it
    _local.running = True
    try:
        _beat()
        timeout = float(settings.Q_CLUSTER.get("timeout") or 600)  # type: ignore[arg-type]
        deadline = time.monotonic() + timeout / 2
        done = 0
        while True:
            if time.monotonic() >= deadline:
                if claimable_count():
                    _send_wake()
                break
            claimed = _claim(group)
            if claimed is None:
                break
            _execute(claimed)
            done += 1
        return f"{done} pieces of work run"
    finally:
        _local.running = False


_CLAIM = """
UPDATE core_work
   SET state = 'running', attempts = attempts + 1, holder = %s,
       lease_until = clock_timestamp() + make_interval(secs => %s)
 WHERE id = (
       SELECT id FROM core_work
        WHERE ((state = 'due' AND due_at <= clock_timestamp())
               OR (state = 'running' AND lease_until < clock_timestamp()))
          AND (%s = '' OR "group" = %s)
        ORDER BY due_at, id
        LIMIT 1
          FOR UPDATE SKIP LOCKED)
RETURNING id, task, args, attempts
"""


def _claim(group: str = "") -> Claimed | None:
    if not connection.in_atomic_block:
        # A connection broken by a database restart is replaced, not reused for every
        # remaining row of this wake-up.
        connection.close_if_unusable_or_obsolete()
    holder = uuid.uuid4()
    with connection.cursor() as cursor:
        cursor.execute(_CLAIM, [holder, lease_seconds(), group, group])
        row = cursor.fetchone()
    if row is None:
        return None
    args = row[2] if isinstance(row[2], list) else json.loads(row[2])
    return Claimed(id=row[0], task=row[1], args=args, attempts=row[3], holder=holder)


def _describe(error: BaseException) -> str:
    return f"{error.__class__.__name__}: {error}"[:1000]


def _execute(claimed: Claimed) -> None:
    try:
        func = import_string(claimed.task)
    except ImportError as error:
        _finish(claimed, WorkState.FAILED, error=f"no such task: {_describe(error)}")
        return
    policy: Policy = getattr(func, "work_policy", Policy())
    keeper = None if connection.in_atomic_block else _LeaseKeeper(claimed)
    try:
        outcome = func(*claimed.args)
    except WorkFailed as error:
        _after_failure(claimed, replace(policy, max_attempts=claimed.attempts), str(error))
    except Exception as error:  # recorded on the row and retried; a worker never dies of it
        logger.exception(
            "work %s %s failed (attempt %d)", claimed.id, claimed.task, claimed.attempts
        )
        _after_failure(claimed, policy, _describe(error))
    else:
        _finish(claimed, WorkState.DONE, outcome=str(outcome or "")[:300])
        _call(policy.on_finish, claimed, claimed.args)
    finally:
        if keeper is not None:
            keeper.stop()


def _after_failure(claimed: Claimed, policy: Policy, reason: str) -> None:
    if claimed.attempts >= policy.max_attempts:
        _finish(claimed, WorkState.FAILED, error=reason)
        _call(policy.on_give_up, claimed, claimed.args, reason, claimed.attempts)
        _call(policy.on_finish, claimed, claimed.args)
        return
    delay = RETRY_BASE_SECONDS * 2 ** (claimed.attempts - 1)
    _update(
        claimed,
        "state = 'due', holder = NULL, lease_until = NULL, error = %s, "
        "due_at = clock_timestamp() + make_interval(secs => %s)",
        [reason, delay],
    )
    _call(policy.on_retry, claimed, claimed.args, reason, claimed.attempts)


def _call(hook: Callable[..., None] | None, claimed: Claimed, *args: Any) -> None:
    if hook is None:
        return
    try:
        hook(*args)
    except Exception:  # the row says what happened; the subject's own record is a courtesy
        logger.exception("a hook of work %s (%s) failed", claimed.id, claimed.task)


def _finish(claimed: Claimed, state: WorkState, *, outcome: str = "", error: str = "") -> None:
    _update(
        claimed,
        "state = %s, holder = NULL, lease_until = NULL, outcome = %s, error = %s, "
        "finished_at = clock_timestamp()",
        [state.value, outcome, error],
    )


def _update(claimed: Claimed, assignments: str, params: list[object]) -> None:
    """Write the outcome, if this worker still holds the row; if the database cannot take
    it, the lease runs out and the work is done again (it is idempotent)."""
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE core_work SET {assignments} WHERE id = %s AND holder = %s",  # noqa: S608 - assignments written in this module, values as parameters
                [*params, claimed.id, claimed.holder],  # type: ignore[list-item]
            )
    except DatabaseError:
        logger.exception("could not record the outcome of work %s; it will run again", claimed.id)


class _LeaseKeeper:
    """Moves the lease of the row being worked on forward, a third of a lease at a time,
    on a connection of its own, for as long as this process lives."""

    def __init__(self, claimed: Claimed) -> None:
        self._claimed = claimed
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="cairn-lease", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        every = max(0.2, lease_seconds() / 3)
        try:
            while not self._stop.wait(every):
                try:
                    with connection.cursor() as cursor:
                        cursor.execute(
                            "UPDATE core_work SET lease_until = clock_timestamp() "
                            "+ make_interval(secs => %s) WHERE id = %s AND holder = %s",
                            [lease_seconds(), self._claimed.id, self._claimed.holder],
                        )
                except DatabaseError:
                    logger.warning("could not renew the lease of work %s", self._claimed.id)
                    connection.close()
        finally:
            connection.close()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)


def claimable_count() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM core_work WHERE (state = 'due' AND due_at <= clock_timestamp())"
            " OR (state = 'running' AND lease_until < clock_timestamp())"
        )
        return int(cursor.fetchone()[0])


def _beat() -> None:
    try:
        WorkerBeat.objects.update_or_create(
            name=socket.gethostname()[:200], defaults={"seen_at": timezone.now()}
        )
    except DatabaseError:
        logger.warning("could not record this worker's heartbeat", exc_info=True)


def work_sweep() -> str:
    """Every minute (a django-q2 schedule) and at every worker's start: say this worker is
    alive, forget work finished long ago, and wake workers for whatever is due, including
    work whose worker died."""
    _beat()
    Work.objects.filter(state=WorkState.DONE, finished_at__lt=timezone.now() - DONE_KEPT).delete()
    due = claimable_count()
    if due:
        _send_wake()
    return f"{due} due"


def on_worker_start(**_: object) -> None:
    """django-q2's ``post_spawn``, in each worker process: take up at once what a
    predecessor left (after a crash, or a deploy), then sweep every
    ``CAIRN_WORK_SWEEP_SECONDS`` from a thread of this process, so that work whose wake-up
    was lost (Redis down, a worker killed) waits no longer than that, whatever django-q2's
    own scheduler does."""
    _sweep_logged()
    if not _SWEEPING.is_set():
        _SWEEPING.set()
        threading.Thread(target=_sweep_forever, name="cairn-sweep", daemon=True).start()


_SWEEPING = threading.Event()
"""Set in a worker process once its sweeping thread runs."""


def _sweep_logged() -> None:
    try:
        work_sweep()
    except Exception:  # the database may be down: the next sweep tries again
        logger.exception("a sweep of the work ledger failed")
    finally:
        if threading.current_thread().name == "cairn-sweep":
            connection.close()


def _sweep_forever() -> None:
    while True:
        time.sleep(float(settings.CAIRN_WORK_SWEEP_SECONDS))
        _sweep_logged()


# Reads


@dataclass(frozen=True)
class GroupState:
    total: int
    open: int
    failed: int
    error: str

    @property
    def finished(self) -> bool:
        return self.total > 0 and self.open == 0


def work_group_state(*, group: str, task: str | None = None) -> GroupState:
    rows = Work.objects.filter(group=group)
    if task is not None:
        rows = rows.filter(task=task)
    counts = {state: 0 for state in WorkState}
    for state in rows.values_list("state", flat=True):
        counts[WorkState(state)] += 1
    failed = rows.filter(state=WorkState.FAILED).order_by("-finished_at").first()
    return GroupState(
        total=sum(counts.values()),
        open=counts[WorkState.DUE] + counts[WorkState.RUNNING],
        failed=counts[WorkState.FAILED],
        error=failed.error if failed is not None else "",
    )


def work_open_for(*, task: str, key: str) -> bool:
    return Work.objects.filter(task=task, key=key, state__in=OPEN_STATES).exists()


@dataclass(frozen=True)
class LedgerHealth:
    due: int
    oldest_due_seconds: float | None
    failed: int
    last_beat_seconds: float | None


def work_health() -> LedgerHealth:
    """What ``/healthz`` says of background work: how much is due, since when, and when a
    worker was last seen."""
    now = timezone.now()
    due = Work.objects.filter(state=WorkState.DUE, due_at__lte=now)
    oldest = due.aggregate(oldest=Min("due_at"))["oldest"]
    beat = WorkerBeat.objects.order_by("-seen_at").first()
    return LedgerHealth(
        due=due.count(),
        oldest_due_seconds=(now - oldest).total_seconds() if oldest else None,
        failed=Work.objects.filter(state=WorkState.FAILED).count(),
        last_beat_seconds=(now - beat.seen_at).total_seconds() if beat else None,
    )


STUCK_SECONDS = 600
"""Work due this long with nobody taking it means no worker is running: ``/healthz`` fails."""


@health_check("work")
def work_health_check() -> CheckResult:
    """How much background work is due and since when, and when a worker was last seen."""
    health = work_health()
    seen = (
        f"a worker was seen {health.last_beat_seconds:.0f} s ago"
        if health.last_beat_seconds is not None
        else "no worker has been seen yet"
    )
    oldest = (
        f", the oldest waiting {health.oldest_due_seconds:.0f} s"
        if health.oldest_due_seconds is not None
        else ""
    )
    detail = f"{health.due} due{oldest}; {health.failed} failed; {seen}"
    stuck = (health.oldest_due_seconds or 0) > STUCK_SECONDS
    if stuck:
        detail = f"Background work is waiting with no worker taking it: {detail}."
    return CheckResult(ok=not stuck, detail=detail)
