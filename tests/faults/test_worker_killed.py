"""Faults: the worker killed in the middle of its work. A real ``manage.py qcluster``, its
queue in Redis (which hands a task out and forgets it), is SIGKILLed with its forked
workers while it embeds an upload or an import; the ledger still owes the work, and a
fresh cluster, once the killed worker's lease has run out, takes it at its start and
finishes it with no duplicate chunks or messages."""

from __future__ import annotations

import io
import json
import subprocess
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.utils import timezone
from django_q.conf import Conf

from apps.chat.exports.store import chat_import_create, chat_import_settle
from apps.chat.models import ChatImport, Message
from apps.core.models import Work, WorkState
from apps.indexing.models import Chunk, Document, DocumentStatus, Source, SourceStatus
from apps.indexing.services import documents_upload
from apps.projects.services import project_ensure_personal
from tests.factories import UserFactory
from tests.processes import kill_group, process_env, redis_server, start_qcluster

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
LEASE_SECONDS = 2
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
    """A real cluster whose embedding is held after its first calls
    (``GatedHashEmbeddingProvider``), to be killed there; then a fresh one with the plain
    fake provider, which finds the work still owed."""

    env: dict[str, str]
    gate: Path
    held: Path
    log: Path
    clusters: list[subprocess.Popen[bytes]]

    def kill_when(self, condition: Callable[[], bool], what: str) -> None:
        """Start the cluster and kill it once its embedding is held and ``condition``."""
        self.clusters.append(start_qcluster(self.env, self.log))
        _wait_until(lambda: self.held.exists() and condition(), 60, what, self.log)
        kill_group(self.clusters[-1])

    def restart(self, done: Callable[[], bool], what: str) -> None:
        """Once the killed worker's leases ran out, start a fresh cluster (its start-up
        sweep takes the work again) and wait until ``done``."""
        _wait_until(
            lambda: (
                not Work.objects.filter(
                    state=WorkState.RUNNING, lease_until__gte=timezone.now()
                ).exists()
            ),
            LEASE_SECONDS + 10,
            "the killed worker's leases did not run out",
            self.log,
        )
        self.gate.unlink()
        plain = {
            **self.env,
            "CAIRN_EMBEDDING_PROVIDER": "tests.indexing.fakes.HashEmbeddingProvider",
        }
        self.clusters.append(start_qcluster(plain, self.log))
        _wait_until(done, 90, what, self.log)


@pytest.fixture
def gated_worker(
    tmp_path: Path,
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
    clusters: list[subprocess.Popen[bytes]],
) -> Iterator[GatedWorker]:
    media = tmp_path / "media"
    settings.MEDIA_ROOT = str(media)
    with redis_server() as redis_url:
        # This process queues its wake-ups in Redis, as the web process does, instead of
        # running the work at once as the test settings do.
        settings.Q_CLUSTER = {**settings.Q_CLUSTER, "sync": False}
        monkeypatch.setattr(Conf, "SYNC", False)
        monkeypatch.setattr(Conf, "REDIS", redis_url)
        monkeypatch.setattr(Conf, "ORM", None)
        gate = tmp_path / "embed-gate"
        gate.touch()
        env = process_env(
            MEDIA_ROOT=str(media),
            REDIS_URL=redis_url,
            PGAPPNAME=APP_NAME,
            Q_WORKERS="1",
            CAIRN_WORK_LEASE_SECONDS=str(LEASE_SECONDS),
            CAIRN_EMBEDDING_PROVIDER="tests.indexing.fakes.GatedHashEmbeddingProvider",
            CAIRN_TEST_EMBED_GATE=str(gate),
            # The long document's embedding goes through; the next one is held.
            CAIRN_TEST_EMBED_FREE_CALLS="1",
        )
        yield GatedWorker(
            env, gate, tmp_path / "embed-gate.held", tmp_path / "qcluster.log", clusters
        )


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
def test_worker_killed_mid_indexing_the_work_is_taken_again_and_finished_without_duplicates(
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
    [owed] = Work.objects.filter(task="apps.indexing.tasks.index_documents")
    assert owed.args[0] == [str(first.pk), str(second.pk)]

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
    owed.refresh_from_db()
    assert (owed.state, owed.attempts) == (WorkState.RUNNING, 1)  # the dead worker's lease

    gated_worker.restart(_indexed(pk=second.pk), "the killed work was not taken again")

    _wait_until(
        lambda: Work.objects.get(pk=owed.pk).state == WorkState.DONE,
        30,
        "not done",
        gated_worker.log,
    )
    owed.refresh_from_db()
    assert owed.attempts == 2
    assert owed.outcome.startswith("1 indexed"), owed.outcome
    assert "1 unchanged" in owed.outcome, owed.outcome
    _assert_each_passage_once(first, second)
    # The document written before the kill was not embedded or written again.
    assert sorted(first.chunks.values_list("pk", flat=True)) == written
    source = Source.objects.get(pk=first.source_id)
    assert source.status == SourceStatus.READY
    assert source.progress_done == source.progress_total == 2


def _export(conversations: int, turns: int) -> bytes:
    """A Claude export of this many conversations, each of ``turns`` messages."""
    data = [
        {
            "uuid": f"conv-{c}",
            "name": f"Trip {c}",
            "created_at": "2024-05-01T10:00:00Z",
            "chat_messages": [
                {
                    "uuid": f"msg-{c}-{t}",
                    "sender": "human" if t % 2 == 0 else "assistant",
                    "text": f"Day {t} of trip {c}: we walked along river number {c * 100 + t}.",
                    "created_at": "2024-05-01T10:00:00Z",
                }
                for t in range(turns)
            ],
        }
        for c in range(conversations)
    ]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("conversations.json", json.dumps(data))
    return buffer.getvalue()


@pytest.mark.django_db(transaction=True)
def test_worker_killed_mid_import_the_import_finishes_searchable_without_duplicates(
    gated_worker: GatedWorker,
) -> None:
    # Given an import of 30 conversations (600 messages: three indexing tasks)
    user = UserFactory()
    gated_worker.env["CAIRN_TEST_EMBED_FREE_CALLS"] = "1"
    chat_import = chat_import_create(
        user=user,
        project=project_ensure_personal(user=user),
        upload=SimpleUploadedFile("export.zip", _export(30, 20)),
    )

    # When the worker is killed while it embeds the import's second batch
    def some_indexed() -> bool:
        return Message.objects.filter(chat_import=chat_import, index_status="indexed").exists()

    gated_worker.kill_when(some_indexed, "the worker did not index a first batch")
    killed_with = Message.objects.filter(chat_import=chat_import, index_status="indexed").count()
    assert 0 < killed_with < 600
    assert ChatImport.objects.get(pk=chat_import.pk).status != ChatImport.Status.DONE

    # Then a fresh worker finishes it: every message stored once and searchable, and the
    # import says so only then
    def searchable() -> bool:
        settled = chat_import_settle(chat_import_id=chat_import.pk)
        return settled is not None and settled.status == ChatImport.Status.DONE

    gated_worker.restart(searchable, "the import did not become searchable")

    messages = Message.objects.filter(chat_import=chat_import)
    assert messages.count() == 600
    assert len(set(messages.values_list("external_id", flat=True))) == 600
    assert not messages.exclude(index_status="indexed").exists()
    assert Chunk.objects.filter(message__chat_import=chat_import).count() == 600
    chat_import.refresh_from_db()
    assert (chat_import.messages_indexed, chat_import.conversations_done) == (600, 30)
    assert not Work.objects.filter(
        group=f"import:{chat_import.pk}", state=WorkState.FAILED
    ).exists()
