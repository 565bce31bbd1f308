"""The ledger of background work (DESIGN §8): every piece of work is a row, written in the
same transaction as what it is about; the job queue only wakes workers, which take rows
under a lease. Nothing here is a user's knowledge: ``user_id`` only says whose work it is,
for the statuses their pages show."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.db.models.functions import Now


class WorkState(models.TextChoices):
    DUE = "due", "Waiting"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


OPEN_STATES = (WorkState.DUE, WorkState.RUNNING)


class Work(models.Model):
    """One piece of work: call ``task`` (a dotted path) with ``args``.

    ``due``: waiting until ``due_at``; ``running``: held by a worker until ``lease_until``,
    which its worker keeps moving forward while it lives (a row whose lease ran out belongs
    to a dead worker and is taken again); ``done`` or ``failed`` for good. ``key`` names
    what the work is about, so that asking twice for the same work while it waits adds
    nothing; ``group`` ties the pieces of one larger job (an import) together, whose status
    is read from them."""

    task = models.CharField(max_length=120)
    args = models.JSONField(default=list)
    key = models.CharField(max_length=300)
    group = models.CharField(max_length=120, blank=True, db_index=True)
    user_id = models.BigIntegerField(null=True, blank=True)
    state = models.CharField(max_length=10, choices=WorkState.choices, default=WorkState.DUE)
    attempts = models.PositiveIntegerField(default=0)
    # The database's clock, as the claim's: web and worker machines' clocks may differ.
    due_at = models.DateTimeField(db_default=Now())
    lease_until = models.DateTimeField(null=True, blank=True)
    # Who holds the lease now: a worker whose lease was taken over finds its own writes
    # refused (the work is idempotent, so running twice is only wasted effort).
    holder = models.UUIDField(null=True, blank=True)
    error = models.TextField(blank=True)
    outcome = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            # At most one waiting row per piece of work: asking again while it waits is a
            # no-op. A running one may have a waiting successor (its subject changed since).
            models.UniqueConstraint(
                fields=["task", "key"], condition=Q(state="due"), name="core_work_one_due"
            ),
        ]
        indexes = [
            models.Index(fields=["due_at"], condition=Q(state="due"), name="core_work_due"),
            models.Index(
                fields=["lease_until"], condition=Q(state="running"), name="core_work_leased"
            ),
            models.Index(fields=["finished_at"], name="core_work_finished"),
        ]

    def __str__(self) -> str:
        return f"{self.task}({self.key}) {self.state}"


class WorkerBeat(models.Model):
    """The last time a worker on ``name`` (its host) was seen working or sweeping:
    ``/healthz`` says whether any worker is alive."""

    name = models.CharField(max_length=200, unique=True)
    seen_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.name} at {self.seen_at:%Y-%m-%d %H:%M:%S}"
