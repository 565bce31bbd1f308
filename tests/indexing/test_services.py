"""Indexing services: uploads, documents, messages, claims (with the fake provider)."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import OperationalError

from apps.accounts.consumers import user_group_name
from apps.accounts.models import User
from apps.claims.models import Claim
from apps.core.models import Work, WorkState
from apps.core.work import work_run_due, work_sweep
from apps.indexing.embeddings import Matrix
from apps.indexing.models import Chunk, Document, DocumentStatus, Source, SourceStatus
from apps.indexing.selectors import document_text_for_user
from apps.indexing.services import (
    IndexRun,
    claims_embed,
    document_delete,
    documents_index,
    documents_upload,
    message_index,
    message_index_enqueue,
    upload_name_clean,
)
from apps.indexing.services import chunk_writes as chunks_writes
from apps.projects.models import Project
from tests.indexing import samples
from tests.indexing.conftest import Committed, conversation_with, upload
from tests.indexing.fakes import HashEmbeddingProvider
from tests.knowledge_factories import ClaimFactory

pytestmark = pytest.mark.django_db

LONG_TEXT = "\n\n".join(
    f"Paragraph {n} talks about mountain trail number {n} and the weather there." * 6
    for n in range(40)
)


def test_upload_is_stored_under_the_user_and_indexed(
    user: User,
    project: Project,
    media_root: Path,
    fake_provider: HashEmbeddingProvider,
    committed: Committed,
) -> None:
    with committed():
        results = documents_upload(project=project, files=[upload("notes.txt", LONG_TEXT)])

    document = Document.objects.get(pk=results[0].document.pk)
    assert document.status == DocumentStatus.INDEXED
    assert re.fullmatch(rf"uploads/{user.pk}/[0-9a-f]{{32}}/notes\.txt", document.file.name)
    assert (media_root / document.file.name).is_file()
    assert document.chunk_count > 1
    assert document.chunks.count() == document.chunk_count
    assert document.doc_type == "txt"
    assert document.sha256
    assert document.indexed_at is not None
    chunk = document.chunks.first()
    assert chunk is not None
    assert (chunk.user_id, chunk.project_id) == (user.pk, project.pk)
    assert chunk.embedding_model == fake_provider.name
    source = Source.objects.get(pk=document.source_id)
    assert (source.status, source.progress_done, source.progress_total) == (
        SourceStatus.READY,
        1,
        1,
    )


def test_each_passage_keeps_its_own_vector_when_batches_overlap(
    project: Project,
    media_root: Path,
    fake_provider: HashEmbeddingProvider,
    monkeypatch: pytest.MonkeyPatch,
    committed: Committed,
) -> None:
    # Given a flush after every document, so each is embedded while the one before it is
    # written and the one after it is read
    monkeypatch.setattr("apps.indexing.services.documents.FLUSH_CHUNKS", 1)
    files = [upload(f"trail{n}.txt", LONG_TEXT.replace("trail", f"trail{n}")) for n in range(5)]

    # When they are indexed
    with committed():
        documents_upload(project=project, files=files)

    # Then every passage is stored with the vector of its own text
    chunks = list(Chunk.objects.filter(project=project))
    documents = Document.objects.filter(source__project=project)
    assert len(chunks) == sum(document.chunk_count for document in documents)
    assert len(fake_provider.batches) == 5
    for chunk in chunks:
        assert chunk.embedding is not None
        np.testing.assert_allclose(chunk.embedding, fake_provider._vector(chunk.text), atol=1e-6)


class ThreadRecordingProvider(HashEmbeddingProvider):
    """Records the thread of every call, and signals when the second one starts."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[str] = []
        self.second_call_started = threading.Event()

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        self.threads.append(threading.current_thread().name)
        if len(self.threads) == 2:
            self.second_call_started.set()
        return super().embed_documents(texts)


def test_the_next_batch_is_embedded_while_the_last_is_written(
    project: Project, media_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given three documents, each a batch of its own, not yet indexed
    monkeypatch.setattr("apps.indexing.services.documents.FLUSH_CHUNKS", 1)
    provider = ThreadRecordingProvider()
    results = documents_upload(
        project=project, files=[upload(f"note{n}.txt", f"Note {n} on glaciers.") for n in range(3)]
    )
    real_chunks_replace = chunks_writes.chunks_replace
    overlapped: list[bool] = []

    def chunks_replace(prepared: Any, vectors: Any, model_name: str) -> Any:
        # Writing the first batch waits for the model to start on the second: it only
        # can if the two run side by side.
        if not overlapped:
            overlapped.append(provider.second_call_started.wait(timeout=10))
        return real_chunks_replace(prepared, vectors, model_name)

    monkeypatch.setattr("apps.indexing.services.documents.chunks_replace", chunks_replace)

    # When they are indexed
    run = documents_index(
        document_ids=[result.document.pk for result in results], provider=provider
    )

    # Then the second batch was being embedded while the first was written, on the
    # model's own thread, and every document was indexed
    assert overlapped == [True]
    assert len(provider.threads) == 3
    assert all(name.startswith("cairn-embed") for name in provider.threads)
    assert len(run.indexed) == 3
    assert set(Document.objects.values_list("status", flat=True)) == {DocumentStatus.INDEXED}


def test_a_failed_write_leaves_no_thread_and_no_document_finished(
    project: Project,
    media_root: Path,
    fake_provider: HashEmbeddingProvider,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("apps.indexing.services.documents.FLUSH_CHUNKS", 1)
    results = documents_upload(
        project=project, files=[upload(f"note{n}.txt", f"Note {n} on deserts.") for n in range(3)]
    )

    def database_gone(*args: object) -> None:
        raise OperationalError("the database went away")

    monkeypatch.setattr("apps.indexing.services.documents.chunks_replace", database_gone)
    run = IndexRun()

    with pytest.raises(OperationalError, match="went away"):
        documents_index(document_ids=[result.document.pk for result in results], run=run)

    # Nothing is counted as finished (the task retries them all), and the model's thread
    # has ended with the call
    assert run.finished == set()
    assert Chunk.objects.count() == 0
    names = [thread.name for thread in threading.enumerate()]
    assert not [name for name in names if name.startswith("cairn-embed")]


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("../../etc/passwd", "passwd"),
        ("..\\..\\windows\\system.ini", "system.ini"),
        ("/abs/path/report.pdf", "report.pdf"),
        ("..", "upload"),
        (".hidden", "hidden"),
        ("a\x00b<c>.txt", "a_b_c_.txt"),
        ("", "upload"),
    ],
)
def test_upload_names_are_neutralised(raw: str, clean: str) -> None:
    assert upload_name_clean(raw) == clean


def test_dotdot_upload_stays_inside_the_users_directory(
    user: User,
    project: Project,
    media_root: Path,
    fake_provider: HashEmbeddingProvider,
    committed: Committed,
) -> None:
    with committed():
        [result] = documents_upload(project=project, files=[upload("../../evil.txt", "hello")])

    assert result.document.path == "evil.txt"
    stored = (media_root / result.document.file.name).resolve()
    assert stored.is_relative_to((media_root / "uploads" / str(user.pk)).resolve())


def test_same_file_uploaded_twice_makes_no_duplicate_chunks(
    project: Project,
    media_root: Path,
    fake_provider: HashEmbeddingProvider,
    committed: Committed,
) -> None:
    with committed():
        [first] = documents_upload(project=project, files=[upload("a.md", LONG_TEXT)])
    chunks = Chunk.objects.count()
    with committed():
        [second] = documents_upload(project=project, files=[upload("copy.md", LONG_TEXT)])

    assert second.duplicate
    assert second.document.pk == first.document.pk
    assert Document.objects.count() == 1
    assert Chunk.objects.count() == chunks


def test_reupload_under_the_same_name_replaces_the_content(
    project: Project,
    media_root: Path,
    fake_provider: HashEmbeddingProvider,
    committed: Committed,
) -> None:
    with committed():
        [first] = documents_upload(project=project, files=[upload("a.txt", "old words here")])
    with committed():
        [second] = documents_upload(project=project, files=[upload("a.txt", "new words now")])

    assert second.replaced
    assert second.document.pk == first.document.pk
    assert [c.text for c in Chunk.objects.all()] == ["new words now"]


def test_indexing_twice_gives_the_same_chunks_and_does_not_re_embed(
    project: Project,
    media_root: Path,
    fake_provider: HashEmbeddingProvider,
    committed: Committed,
) -> None:
    with committed():
        [result] = documents_upload(project=project, files=[upload("a.txt", LONG_TEXT)])
    document = Document.objects.get(pk=result.document.pk)
    before = list(document.chunks.values_list("chunk_index", "start", "end"))
    embedded = len(fake_provider.embedded_texts)

    run = documents_index(document_ids=[document.pk])

    assert run.unchanged == [str(document.pk)]
    assert len(fake_provider.embedded_texts) == embedded
    assert list(document.chunks.values_list("chunk_index", "start", "end")) == before


def test_forced_reindex_re_embeds_and_keeps_one_set(
    project: Project,
    media_root: Path,
    fake_provider: HashEmbeddingProvider,
    committed: Committed,
) -> None:
    with committed():
        [result] = documents_upload(project=project, files=[upload("a.txt", LONG_TEXT)])
    count = Chunk.objects.count()

    run = documents_index(document_ids=[result.document.pk], force=True)

    assert run.indexed == [str(result.document.pk)]
    assert Chunk.objects.count() == count


def test_worker_killed_mid_document_leaves_no_partial_chunks(
    project: Project,
    media_root: Path,
    fake_provider: HashEmbeddingProvider,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Stored, but its indexing task never ran (no commit in this test's transaction).
    [result] = documents_upload(project=project, files=[upload("a.txt", LONG_TEXT)])
    real_bulk_create = Chunk.objects.bulk_create

    def crash_half_way(objs: list[Chunk], **kwargs: object) -> list[Chunk]:
        real_bulk_create(list(objs)[:2], **kwargs)  # type: ignore[arg-type]
        raise SystemExit("worker killed")

    monkeypatch.setattr(Chunk.objects, "bulk_create", crash_half_way)
    with pytest.raises(SystemExit):
        documents_index(document_ids=[result.document.pk])
    assert Chunk.objects.count() == 0  # the transaction rolled the two chunks back
    monkeypatch.undo()

    run = documents_index(document_ids=[result.document.pk])

    document = Document.objects.get(pk=result.document.pk)
    assert run.indexed == [str(document.pk)]
    assert document.status == DocumentStatus.INDEXED
    assert document.chunks.count() == document.chunk_count
    indexes = list(document.chunks.values_list("chunk_index", flat=True))
    assert indexes == list(range(document.chunk_count))


def test_corrupt_file_fails_with_a_message_while_siblings_index(
    project: Project,
    media_root: Path,
    fake_provider: HashEmbeddingProvider,
    tmp_path: Path,
    committed: Committed,
) -> None:
    docx = samples.write_docx(tmp_path / "good.docx", ["Quarterly planning notes"])
    with committed():
        results = documents_upload(
            project=project,
            files=[
                upload("broken.docx", b"PK\x03\x04 this is not really a zip"),
                upload("good.docx", docx.read_bytes()),
                upload("fine.md", "# Title\n\nSome markdown text."),
            ],
        )

    statuses = {r.document.path: Document.objects.get(pk=r.document.pk) for r in results}
    assert statuses["broken.docx"].status == DocumentStatus.FAILED
    assert "zip container is unreadable" in statuses["broken.docx"].error
    assert statuses["good.docx"].status == DocumentStatus.INDEXED
    assert statuses["fine.md"].status == DocumentStatus.INDEXED
    assert Source.objects.get().progress_done == 3


def test_decompression_bomb_is_refused_with_the_reason(
    project: Project,
    media_root: Path,
    fake_provider: HashEmbeddingProvider,
    tmp_path: Path,
    committed: Committed,
) -> None:
    bomb = samples.write_zip_bomb(tmp_path / "bomb.docx", size=300 * 1024 * 1024)
    with committed():
        [result] = documents_upload(project=project, files=[upload("bomb.docx", bomb.read_bytes())])

    document = Document.objects.get(pk=result.document.pk)
    assert document.status == DocumentStatus.FAILED
    assert "over the" in document.error
    assert "limit" in document.error
    assert document.chunk_count == 0


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("empty.txt", b"", "empty"),
        ("binary.txt", bytes(range(256)) * 20, "binary content"),
        ("song.mp3", b"ID3 not really", "audio files are not indexed"),
    ],
)
def test_files_without_text_are_skipped_with_the_reason(
    project: Project,
    media_root: Path,
    fake_provider: HashEmbeddingProvider,
    committed: Committed,
    name: str,
    content: bytes,
    reason: str,
) -> None:
    with committed():
        [result] = documents_upload(project=project, files=[upload(name, content)])

    document = Document.objects.get(pk=result.document.pk)
    assert document.status == DocumentStatus.SKIPPED
    assert reason in document.error


def test_deleting_a_document_removes_its_chunks_and_file(
    project: Project,
    media_root: Path,
    fake_provider: HashEmbeddingProvider,
    committed: Committed,
) -> None:
    with committed():
        [result] = documents_upload(project=project, files=[upload("a.txt", LONG_TEXT)])
    stored = media_root / result.document.file.name

    with committed():
        document_delete(document=Document.objects.get(pk=result.document.pk))

    assert not Chunk.objects.exists()
    assert not stored.exists()
    assert not stored.parent.exists()


def test_document_text_is_rebuilt_with_its_offsets(
    user: User,
    other_user: User,
    project: Project,
    media_root: Path,
    fake_provider: HashEmbeddingProvider,
    committed: Committed,
) -> None:
    with committed():
        [result] = documents_upload(project=project, files=[upload("a.txt", LONG_TEXT)])

    title, text, doc_id = document_text_for_user(user=user, key=result.document.pk)

    assert (title, doc_id) == ("a.txt", str(result.document.pk))
    assert text == LONG_TEXT
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError):
        document_text_for_user(user=other_user, key=result.document.pk)


def test_progress_is_published_to_the_owners_pages(
    user: User,
    project: Project,
    media_root: Path,
    fake_provider: HashEmbeddingProvider,
    committed: Committed,
) -> None:
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(user_group_name(user.pk), channel)

    with committed():
        documents_upload(project=project, files=[upload("a.txt", "alpha"), upload("b.txt", "b")])

    async def next_message() -> dict[str, Any]:
        # A layer's receive waits forever for a message that never comes: bound it.
        return dict(await asyncio.wait_for(layer.receive(channel), timeout=10))

    events = []
    while True:
        try:
            message = async_to_sync(next_message)()
        except TimeoutError:
            break
        events.append(message["payload"])
        if message["payload"]["status"] == SourceStatus.READY:
            break
    assert events[0]["type"] == "indexing.progress"
    assert events[-1] == {**events[-1], "done": 2, "total": 2, "status": "ready"}
    assert {"source_id", "done", "total", "current", "status"} <= set(events[-1])


def test_message_is_indexed_with_its_neighbouring_turns(
    user: User,
    project: Project,
    fake_provider: HashEmbeddingProvider,
) -> None:
    _, (question, answer, _) = conversation_with(
        user,
        project,
        [
            ("assistant", "Have you ever been to Lisbon?"),
            ("user", "Yes, last May!"),
            ("assistant", "How was the weather?"),
        ],
    )

    assert message_index(message_id=answer.pk) == 1
    assert message_index(message_id=answer.pk) == 1  # idempotent

    [chunk] = Chunk.objects.filter(message=answer)
    # The turn alone is embedded; its window (with the turns around it) is text-indexed
    assert chunk.text == "Yes, last May!"
    assert chunk.context.startswith("user, ")
    assert fake_provider.embedded_texts[-1] == chunk.text
    assert "Lisbon" in chunk.context
    assert "How was the weather?" in chunk.context
    assert answer.content[chunk.start : chunk.end] == "Yes, last May!"
    assert (chunk.user_id, chunk.project_id) == (user.pk, project.pk)
    assert question.index_chunks.count() == 0


def test_long_message_is_cut_into_windows(
    user: User, project: Project, fake_provider: HashEmbeddingProvider
) -> None:
    _, [message] = conversation_with(user, project, [("user", " ".join(["word"] * 1500))])

    # 512-token windows starting every 448 tokens: 0, 448, 896, 1344.
    assert message_index(message_id=message.pk) == 4
    assert list(Chunk.objects.filter(message=message).values_list("chunk_index", flat=True)) == [
        0,
        1,
        2,
        3,
    ]


def test_message_index_enqueue_runs_the_task(
    user: User,
    project: Project,
    fake_provider: HashEmbeddingProvider,
    committed: Committed,
) -> None:
    _, [message] = conversation_with(user, project, [("user", "I moved to Porto in 2021")])

    with committed():
        assert message_index_enqueue(message_id=message.pk) == "accepted"

    assert Chunk.objects.filter(message=message).count() == 1


@pytest.mark.django_db(transaction=True)  # outside a transaction the bell rings at once
def test_a_queue_that_is_down_loses_no_indexing(
    user: User,
    project: Project,
    fake_provider: HashEmbeddingProvider,
    monkeypatch: pytest.MonkeyPatch,
    settings: Any,
) -> None:
    # Given a queue (Redis) that refuses everything, and workers of their own
    settings.Q_CLUSTER = {**settings.Q_CLUSTER, "sync": False}

    def broker_down(*args: object, **kwargs: object) -> None:
        raise ConnectionError("Redis is down")

    monkeypatch.setattr("apps.core.work.queue_task", broker_down)
    _, [message] = conversation_with(user, project, [("user", "hello")])

    # When the message's indexing is asked for
    assert message_index_enqueue(message_id=message.pk) == "accepted"

    # Then it is owed in the ledger, though no worker could be woken
    [row] = Work.objects.filter(task="apps.indexing.tasks.index_message", args=[str(message.pk)])
    assert row.state == WorkState.DUE
    assert not Chunk.objects.filter(message=message).exists()

    # And once the queue is back, the sweep wakes a worker, which indexes it
    monkeypatch.setattr("apps.core.work.queue_task", lambda *args, **kwargs: work_run_due())
    work_sweep()
    row.refresh_from_db()
    assert row.state == WorkState.DONE
    assert Chunk.objects.filter(message=message).count() == 1


def test_claims_are_embedded_when_created_and_edited(
    user: User,
    fake_provider: HashEmbeddingProvider,
    committed: Committed,
) -> None:
    from apps.claims.services import claim_update

    with committed():
        claim = ClaimFactory(user=user, statement="I prefer green tea")
    claim.refresh_from_db()
    assert claim.embedding_model == fake_provider.name
    first = list(claim.embedding)

    with committed():
        claim_update(claim=claim, statement="I prefer black coffee")
    claim.refresh_from_db()
    assert list(claim.embedding) != first


def test_claims_embed_skips_a_claim_whose_statement_changed_meanwhile(
    user: User,
    fake_provider: HashEmbeddingProvider,
) -> None:
    claim = ClaimFactory(user=user, statement="Old statement")
    original = fake_provider.embed_documents

    def edit_while_embedding(texts: list[str]) -> object:
        Claim.objects.filter(pk=claim.pk).update(statement="Newer statement")
        return original(texts)

    fake_provider.embed_documents = edit_while_embedding  # type: ignore[method-assign]

    assert claims_embed(claim_ids=[claim.pk]) == 0
