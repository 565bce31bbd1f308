"""A source's progress (documents done / total, current file), kept on the row and published
to its owner's open pages over the channel layer as ``indexing.progress`` events.

Several workers may finish documents of one source at once, so counters only move by
single ``UPDATE … SET x = x + 1`` statements, never by read-modify-write in Python.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from dataclasses import asdict, dataclass

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.db.models import F
from django.db.models.functions import Least
from django.utils import timezone

from apps.accounts.consumers import user_group_name

from ..models import PATH_MAX_LENGTH, Source, SourceStatus

logger = logging.getLogger(__name__)

RUNNING = (SourceStatus.QUEUED, SourceStatus.SCANNING, SourceStatus.INDEXING)
PUBLISH_INTERVAL = 0.2
"""Seconds between two events of one source from one process; a page needs no more, and a
run of many small files would otherwise send hundreds a second."""

_last_published: dict[str, float] = {}
_publish_lock = threading.Lock()


@dataclass(frozen=True)
class ProgressEvent:
    """The payload of one ``indexing.progress`` event, as the Files page reads it."""

    source_id: str
    done: int
    total: int
    current: str
    status: str
    error: str
    type: str = "indexing.progress"


def source_run_add(
    *, source_id: uuid.UUID | str, count: int, status: str = SourceStatus.INDEXING
) -> None:
    """``count`` more documents were queued: a new run when none is going, else a larger
    total for the current one."""
    with transaction.atomic():
        source = Source.objects.select_for_update().filter(pk=source_id).first()
        if source is None:
            return
        if source.is_running:
            source.progress_total += count
        else:
            source.progress_done, source.progress_total = 0, count
            source.last_run_at = timezone.now()
        source.status = status if count or source.is_running else SourceStatus.READY
        source.error = ""
        source.save(
            update_fields=[
                "progress_done",
                "progress_total",
                "status",
                "error",
                "last_run_at",
                "updated_at",
            ]
        )
    source_progress_publish(source_id=source_id, force=True)


def source_status_set(*, source_id: uuid.UUID | str, status: str, error: str = "") -> None:
    Source.objects.filter(pk=source_id).update(
        status=status, error=error, updated_at=timezone.now()
    )
    source_progress_publish(source_id=source_id, force=True)


def source_document_finished(*, source_id: uuid.UUID | str) -> None:
    """One document of the run is finished (indexed, unchanged, skipped or failed); the run
    ends when the last one is."""
    Source.objects.filter(pk=source_id).update(
        progress_done=Least(F("progress_done") + 1, F("progress_total"))
    )
    ended = _end_if_done(source_id)
    source_progress_publish(source_id=source_id, force=bool(ended))


class ProgressBatch:
    """Progress of one worker's batch, written to the source rows and published at most
    every ``interval`` seconds (and by ``flush``): a run of many small files then costs a
    few updates a second instead of several per file."""

    def __init__(self, interval: float = 0.5) -> None:
        self.interval = interval
        self._done: dict[str, int] = {}
        self._current: dict[str, str] = {}
        self._flushed = time.monotonic()

    def started(self, *, source_id: uuid.UUID | str, path: str) -> None:
        self._current[str(source_id)] = path[:PATH_MAX_LENGTH]
        self._maybe_flush()

    def finished(self, *, source_id: uuid.UUID | str) -> None:
        key = str(source_id)
        self._done[key] = self._done.get(key, 0) + 1
        self._maybe_flush()

    def _maybe_flush(self) -> None:
        if time.monotonic() - self._flushed >= self.interval:
            self.flush()

    def flush(self) -> None:
        for source_id in {*self._done, *self._current}:
            done = self._done.pop(source_id, 0)
            changes: dict[str, object] = {}
            if done:
                changes["progress_done"] = Least(F("progress_done") + done, F("progress_total"))
            if source_id in self._current:
                changes["progress_current"] = self._current.pop(source_id)
            Source.objects.filter(pk=source_id).update(**changes)
            _end_if_done(source_id)
            source_progress_publish(source_id=source_id, force=True)
        self._flushed = time.monotonic()


def _end_if_done(source_id: uuid.UUID | str) -> int:
    return Source.objects.filter(
        pk=source_id, status__in=RUNNING, progress_done__gte=F("progress_total")
    ).update(status=SourceStatus.READY, progress_current="", updated_at=timezone.now())


def source_progress_event(source: Source) -> ProgressEvent:
    return ProgressEvent(
        source_id=str(source.pk),
        done=source.progress_done,
        total=source.progress_total,
        current=source.progress_current,
        status=source.status,
        error=source.error,
    )


def _due(source_id: str, force: bool) -> bool:
    now = time.monotonic()
    with _publish_lock:
        if not force and now - _last_published.get(source_id, 0.0) < PUBLISH_INTERVAL:
            return False
        _last_published[source_id] = now
        return True


def source_progress_publish(*, source_id: uuid.UUID | str, force: bool = False) -> None:
    """Tell the owner's open pages (at most every ``PUBLISH_INTERVAL`` unless ``force``).
    Best effort: a channel layer that is down (Redis) must not fail indexing; the page
    shows the stored progress on reload."""
    if not _due(str(source_id), force):
        return
    source = (
        Source.objects.filter(pk=source_id)
        .select_related("project")
        .only(
            "id",
            "status",
            "error",
            "progress_done",
            "progress_total",
            "progress_current",
            "project__owner_id",
        )
        .first()
    )
    if source is None:
        return
    payload = asdict(source_progress_event(source))
    try:
        layer = get_channel_layer()
        if layer is None:
            return
        async_to_sync(layer.group_send)(
            user_group_name(source.project.owner_id), {"type": "user.event", "payload": payload}
        )
    except Exception:  # the layer's own errors (Redis connection, full channel) vary by backend
        logger.warning("could not publish indexing progress of source %s", source_id, exc_info=True)
