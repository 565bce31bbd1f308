"""Faults: the worker killed in the middle of indexing. A real ``manage.py qcluster`` is
SIGKILLed (with its forked workers) while it embeds an upload, or a folder that its scan
task indexes itself; django-q2 re-delivers the unacknowledged task to a fresh cluster,
which finishes it with no duplicate chunks."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django_q.conf import Conf
from django_q.models import OrmQ, Task

from apps.indexing.models import Document, DocumentStatus, Source, SourceStatus
from apps.indexing.services import documents_upload, source_create_folder
from apps.indexing.services.queue import enqueue_now
from apps.projects.services import project_ensure_personal
from tests.factories import UserFactory
from tests.processes import kill_group, process_env, start_qcluster

# About 300 passages: more than one embedding flush (FLUSH_CHUNKS = 128), so the first
# document's chunks are written on their own, while the second one is embedded.
LONG_TEXT = "\n\n".join(
    f"Paragraph {n} talks about mountain trail number {n} and the weather there." * 6
    for n in range(1200)
)
NEXT_TEXT = "\n\n".join(
    f"Section {n} of the river guide: the ford at mile {n} floods in spring." * 6
    for n in range(100)
)
# The killed worker's lock on the task lasts Q_RETRY seconds, then the task is visible to
# the next cluster; django-q2 wants it longer than Q_TIMEOUT. The first run reaches the
# second document well within half of Q_TIMEOUT (the task's deadline for starting another
# document; about half a second here), and is killed there long before the timeout.
Q_TIMEOUT, Q_RETRY = 6, 7
APP_NAME = "cairn-test-worker-killed"
"""The workers' ``application_name`` in PostgreSQL (libpq reads ``PGAPPNAME``)."""


def _wait_until(condition: Callable[[], Any], timeout: float, what: str, log: Path) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"{what} within {timeout} s; worker log:\n{log.read_text()[-4000:]}")


def _worker_sessions() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", [APP_NAME]
        )
        return int(cursor.fetchone()[0])


@pytest.fixture
def clusters(transactional_db: None) -> Iterator[list[subprocess.Popen[bytes]]]:
    """The qcluster processes a test starts, all killed at the end whatever happened, and
    their database sessions gone (the test database is dropped after the last test)."""
    started: list[subprocess.Popen[bytes]] = []
    try:
        yield started
    finally:
        for process in started:
            kill_group(process)
        deadline = time.monotonic() + 10
        while _worker_sessions() and time.monotonic() < deadline:
            time.sleep(0.05)


@dataclass
class GatedWorker:
    """A real cluster whose embedding is held after its first call
    (``GatedHashEmbeddingProvider``), to be killed there; then a fresh one with the plain
    fake provider, which gets the unacknowledged task again."""

    env: dict[str, str]
    gate: Path
    held: Path
    log: Path
    clusters: list[subprocess.Popen[bytes]]

    def kill_when(self, condition: Callable[[], bool], what: str) -> None:
        """Start the cluster and kill it once its embedding is held and ``condition``."""
        self.clusters.append(start_qcluster(self.env, self.log))
        _wait_until(lambda: self.held.exists() and condition(), 30, what, self.log)
        kill_group(self.clusters[-1])

    def rerun(self, task_id: str, what: str) -> Task:
        """Start a fresh cluster and wait until it has run the task again: its result saved
        and the queue entry acknowledged (in that order)."""
        self.gate.unlink()
        plain = {
            **self.env,
            "CAIRN_EMBEDDING_PROVIDER": "tests.indexing.fakes.HashEmbeddingProvider",
        }
        self.clusters.append(start_qcluster(plain, self.log))
        _wait_until(
            lambda: Task.objects.filter(id=task_id).exists() and not OrmQ.objects.exists(),
            Q_RETRY + 30,
            what,
            self.log,
        )
        return Task.objects.get(id=task_id)


@pytest.fixture
def gated_worker(
    tmp_path: Path,
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
    clusters: list[subprocess.Popen[bytes]],
) -> GatedWorker:
    media = tmp_path / "media"
    settings.MEDIA_ROOT = str(media)
    # This process queues tasks in the ORM broker, as the web process does, instead of
    # running them at once as the test settings do.
    monkeypatch.setattr(Conf, "SYNC", False)
    monkeypatch.setattr(Conf, "ORM", "default")
    gate = tmp_path / "embed-gate"
    gate.touch()
    env = process_env(
        MEDIA_ROOT=str(media),
        REDIS_URL=None,  # the ORM broker, in this test's database
        PGAPPNAME=APP_NAME,
        Q_WORKERS="1",
        Q_TIMEOUT=str(Q_TIMEOUT),
        Q_RETRY=str(Q_RETRY),
        CAIRN_EMBEDDING_PROVIDER="tests.indexing.fakes.GatedHashEmbeddingProvider",
        CAIRN_TEST_EMBED_GATE=str(gate),
        # The long document's embedding goes through; the next one is held.
        CAIRN_TEST_EMBED_FREE_CALLS="1",
    )
    return GatedWorker(env, gate, tmp_path / "embed-gate.held", tmp_path / "qcluster.log", clusters)


def _indexed(**document: object) -> Callable[[], bool]:
    return lambda: Document.objects.filter(**document, status=DocumentStatus.INDEXED).exists()


def _assert_each_passage_once(*documents: Document) -> None:
    for document in documents:
        document.refresh_from_db()
        assert document.status == DocumentStatus.INDEXED, document.error
        assert document.chunks.count() == document.chunk_count > 0
        indexes = sorted(document.chunks.values_list("chunk_index", flat=True))
        assert indexes == list(range(document.chunk_count))


@pytest.mark.django_db(transaction=True)
def test_worker_killed_mid_indexing_the_task_reruns_and_finishes_without_duplicates(
    gated_worker: GatedWorker,
) -> None:
    project = project_ensure_personal(user=UserFactory())
    first, second = (
        result.document
        for result in documents_upload(
            project=project,
            files=[
                SimpleUploadedFile("a-trails.txt", LONG_TEXT.encode()),
                SimpleUploadedFile("b-rivers.txt", NEXT_TEXT.encode()),
            ],
        )
    )
    [queued] = OrmQ.objects.all()
    task_id = queued.task["id"]
    assert queued.task["args"][0] == [str(first.pk), str(second.pk)]

    # A worker indexes the upload: the long document is written, the next one is being
    # embedded when the whole cluster is killed. (The second is embedded while the first
    # is written, so its embedding being held does not yet mean the first is committed.)
    gated_worker.kill_when(
        _indexed(pk=first.pk), "the worker did not write the first document and reach the second"
    )

    first.refresh_from_db()
    second.refresh_from_db()
    assert first.status == DocumentStatus.INDEXED
    assert first.chunk_count > 256
    written = sorted(first.chunks.values_list("pk", flat=True))
    assert len(written) == first.chunk_count
    assert second.status == DocumentStatus.INDEXING  # not indexed before the kill
    assert second.chunks.count() == 0
    assert OrmQ.objects.filter(pk=queued.pk).exists()  # never acknowledged
    assert not Task.objects.filter(id=task_id).exists()

    rerun = gated_worker.rerun(task_id, "the killed task was not run again")

    assert rerun.success, rerun.result
    assert rerun.attempt_count == 1
    assert rerun.result.startswith("1 indexed"), rerun.result
    assert "1 unchanged" in rerun.result, rerun.result
    _assert_each_passage_once(first, second)
    # The document written before the kill was not embedded or written again.
    assert sorted(first.chunks.values_list("pk", flat=True)) == written
    source = Source.objects.get(pk=first.source_id)
    assert source.status == SourceStatus.READY
    assert source.progress_done == source.progress_total == 2


@pytest.mark.django_db(transaction=True)
def test_worker_killed_while_a_scan_indexes_its_own_documents_the_rescan_finishes_them(
    tmp_path: Path, gated_worker: GatedWorker
) -> None:
    # A scan task indexes its first documents itself (tasks.scan_folder_source), so a kill
    # in the middle of them leaves the scan unacknowledged: django-q2 runs the scan again,
    # which finds the unfinished document and indexes it, and leaves the finished one be.
    folder = tmp_path / "guides"
    folder.mkdir()
    (folder / "a-trails.txt").write_text(LONG_TEXT)
    (folder / "b-rivers.txt").write_text(NEXT_TEXT)
    user = UserFactory()
    source = source_create_folder(
        user=user, project=project_ensure_personal(user=user), root_path=str(folder), trusted=True
    )
    enqueue_now("scan_folder_source", str(source.pk))
    [queued] = OrmQ.objects.all()

    gated_worker.kill_when(
        _indexed(source=source, path="a-trails.txt"),
        "the scan task did not write the first document and reach the second",
    )

    first = Document.objects.get(source=source, path="a-trails.txt")
    second = Document.objects.get(source=source, path="b-rivers.txt")
    written = sorted(first.chunks.values_list("pk", flat=True))
    assert len(written) == first.chunk_count > 128
    assert second.status == DocumentStatus.INDEXING
    assert second.chunks.count() == 0
    assert list(OrmQ.objects.values_list("pk", flat=True)) == [queued.pk]  # only the scan

    rerun = gated_worker.rerun(queued.task["id"], "the killed scan was not run again")

    assert rerun.success, rerun.result
    assert "1 retried, 1 unchanged" in rerun.result, rerun.result
    assert "; first 1: 1 indexed" in rerun.result, rerun.result
    _assert_each_passage_once(first, second)
    assert sorted(first.chunks.values_list("pk", flat=True)) == written
    source.refresh_from_db()
    assert source.status == SourceStatus.READY
    assert source.progress_done == source.progress_total
