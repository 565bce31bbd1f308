"""The indexing tasks, run by the ledger of work: folder scans, retries with back-off,
continuation, failures recorded where the user sees them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.db.models import F

from apps.accounts.models import User
from apps.core.models import Work, WorkState
from apps.core.work import work_add, work_run_due
from apps.indexing import tasks
from apps.indexing.models import Chunk, Document, DocumentStatus, Source, SourceStatus
from apps.indexing.services import folder_scan, source_create_folder
from apps.indexing.services.folders import glob_matches
from apps.projects.models import Project
from tests.indexing.conftest import Committed
from tests.indexing.fakes import HashEmbeddingProvider

pytestmark = pytest.mark.django_db


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    (root / "sub").mkdir(parents=True)
    (root / "a.md").write_text("# Alpha\n\nThe alpha notes mention glaciers.")
    (root / "sub" / "b.txt").write_text("Bravo text about volcanoes.")
    (root / "skip.log").write_text("log line")
    return root


@pytest.fixture
def source(user: User, project: Project, folder: Path, settings: object) -> Source:
    user.is_staff = True
    user.save()
    settings.CAIRN_FOLDER_ROOTS = [str(folder.parent)]  # type: ignore[attr-defined]
    return source_create_folder(
        user=user, project=project, root_path=str(folder), exclude_globs=["*.log"]
    )


def scan(source: Source, committed: Committed) -> str:
    with committed():
        return tasks.scan_folder_source(str(source.pk))


def paths(source: Source) -> dict[str, str]:
    return dict(Document.objects.filter(source=source).values_list("path", "status"))


def test_scan_indexes_the_folder_by_its_globs(
    source: Source, fake_provider: HashEmbeddingProvider, committed: Committed
) -> None:
    summary = scan(source, committed)

    assert summary.startswith("2 files: 2 new")
    assert paths(source) == {"a.md": "indexed", "sub/b.txt": "indexed"}
    source.refresh_from_db()
    assert (source.status, source.progress_done, source.progress_total) == ("ready", 2, 2)


def test_a_scan_owes_its_documents_in_tasks_that_the_ledger_runs(
    source: Source,
    fake_provider: HashEmbeddingProvider,
    monkeypatch: pytest.MonkeyPatch,
    committed: Committed,
) -> None:
    # Given tasks of one document
    monkeypatch.setattr("apps.indexing.services.queue.DOCUMENTS_PER_TASK", 1)

    # When the scan task runs
    scan(source, committed)

    # Then each document was a piece of work of its own, each done
    work = Work.objects.filter(task="apps.indexing.tasks.index_documents")
    assert sorted(len(row.args[0]) for row in work) == [1, 1]
    assert {row.state for row in work} == {WorkState.DONE}
    assert paths(source) == {"a.md": "indexed", "sub/b.txt": "indexed"}


def make_due(task: str) -> None:
    """The back-off is over: the waiting row is due now."""
    Work.objects.filter(task=task, state=WorkState.DUE).update(due_at=F("created_at"))


def test_unchanged_files_are_not_read_again(
    source: Source, fake_provider: HashEmbeddingProvider, committed: Committed
) -> None:
    scan(source, committed)
    embedded = len(fake_provider.embedded_texts)

    summary = scan(source, committed)

    assert "2 unchanged" in summary
    assert len(fake_provider.embedded_texts) == embedded


def test_touched_file_with_the_same_content_is_not_re_embedded(
    source: Source, folder: Path, fake_provider: HashEmbeddingProvider, committed: Committed
) -> None:
    scan(source, committed)
    embedded = len(fake_provider.embedded_texts)
    os.utime(folder / "a.md", (1_000_000_000, 1_000_000_000))

    summary = scan(source, committed)

    assert "1 changed" in summary
    assert len(fake_provider.embedded_texts) == embedded
    document = Document.objects.get(source=source, path="a.md")
    assert document.status == DocumentStatus.INDEXED
    assert document.mtime is not None
    assert document.mtime.year == 2001


def test_changed_file_is_re_embedded(
    source: Source, folder: Path, fake_provider: HashEmbeddingProvider, committed: Committed
) -> None:
    scan(source, committed)
    (folder / "a.md").write_text("# Alpha\n\nNow about deserts and dunes instead.")

    scan(source, committed)

    [chunk] = Chunk.objects.filter(document__path="a.md")
    assert "deserts" in chunk.text
    assert "deserts" in fake_provider.embedded_texts[-1]


def test_deleted_file_loses_its_document_and_chunks(
    source: Source, folder: Path, fake_provider: HashEmbeddingProvider, committed: Committed
) -> None:
    scan(source, committed)
    (folder / "sub" / "b.txt").unlink()

    summary = scan(source, committed)

    assert "1 removed" in summary
    assert paths(source) == {"a.md": "indexed"}
    assert not Chunk.objects.filter(document__path="sub/b.txt").exists()


def test_missing_folder_fails_the_source_and_deletes_nothing(
    source: Source, folder: Path, fake_provider: HashEmbeddingProvider, committed: Committed
) -> None:
    scan(source, committed)
    folder.rename(folder.with_name("moved"))

    scan(source, committed)

    source.refresh_from_db()
    assert source.status == SourceStatus.FAILED
    assert "does not exist" in source.error
    assert len(paths(source)) == 2


def test_symlinks_leaving_the_folder_are_refused(
    source: Source,
    folder: Path,
    tmp_path: Path,
    fake_provider: HashEmbeddingProvider,
    committed: Committed,
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("the password is hunter2")
    (folder / "escape.txt").symlink_to(secret)
    (folder / "inside.txt").symlink_to(folder / "a.md")
    outside_dir = tmp_path / "elsewhere"
    outside_dir.mkdir()
    (outside_dir / "c.txt").write_text("outside")
    (folder / "linked_dir").symlink_to(outside_dir, target_is_directory=True)
    fifo = folder / "pipe.txt"
    os.mkfifo(fifo)

    result = folder_scan(source=source)

    assert sorted(result.refused) == ["escape.txt", "pipe.txt"]
    assert set(paths(source)) == {"a.md", "inside.txt", "sub/b.txt"}
    assert not Chunk.objects.filter(text__contains="hunter2").exists()


@pytest.mark.parametrize(
    ("path", "patterns", "matches"),
    [
        ("a.md", ["*.md"], True),
        ("deep/er/a.md", ["*.md"], True),
        ("a.md", ["**/*.md"], True),
        ("docs/x/a.md", ["docs/*.md"], True),
        ("other/a.md", ["docs/*"], False),
        ("drafts/a.txt", ["drafts/"], True),
        ("x/drafts/a.txt", ["drafts/"], True),
        ("a.txt", ["*.md", "*.rst"], False),
    ],
)
def test_glob_matching(path: str, patterns: list[str], matches: bool) -> None:
    assert glob_matches(path, patterns) is matches


def test_failing_batch_is_retried_with_back_off_then_marked_failed(
    source: Source,
    fake_provider: HashEmbeddingProvider,
    monkeypatch: pytest.MonkeyPatch,
    committed: Committed,
) -> None:
    def model_crashed(texts: object) -> None:
        raise RuntimeError("model crashed")

    monkeypatch.setattr(fake_provider, "embed_documents", model_crashed)
    scan(source, committed)

    assert set(paths(source).values()) == {"pending"}
    document = Document.objects.get(source=source, path="a.md")
    assert document.attempts == 1
    assert "model crashed" in document.error
    [row] = Work.objects.filter(task="apps.indexing.tasks.index_documents")
    assert (row.state, row.attempts) == (WorkState.DUE, 1)
    assert row.due_at > row.created_at  # backed off, not due at once
    assert "model crashed" in row.error

    # Each retry fails the same way, until the last
    for _ in range(3):
        make_due("apps.indexing.tasks.index_documents")
        work_run_due()

    row.refresh_from_db()
    assert (row.state, row.attempts) == (WorkState.FAILED, 4)
    assert set(paths(source).values()) == {"failed"}
    assert "failed 4 times: RuntimeError: model crashed" in Document.objects.first().error
    source.refresh_from_db()
    assert source.status == SourceStatus.READY  # the run is over, with its failures shown


def test_a_task_past_its_deadline_queues_the_rest(
    source: Source,
    fake_provider: HashEmbeddingProvider,
    monkeypatch: pytest.MonkeyPatch,
    committed: Committed,
) -> None:
    scan(source, committed)
    monkeypatch.setattr(tasks, "DEADLINE_SHARE", -1.0)  # the deadline has always passed
    ids = [str(pk) for pk in Document.objects.values_list("pk", flat=True)]

    with committed():
        result = tasks.index_documents(ids, force=True)

    assert result.startswith("1 indexed")
    assert result.endswith("1 queued again")
    assert set(paths(source).values()) == {"indexed"}  # the continuation did the other


def test_index_message_task_retries_on_failure(
    fake_provider: HashEmbeddingProvider, monkeypatch: pytest.MonkeyPatch, committed: Committed
) -> None:
    def broken(**kwargs: object) -> int:
        raise ConnectionError("database went away")

    monkeypatch.setattr(tasks, "message_index", broken)
    message_id = "0b4bd4a4-6a5c-4a44-a5f5-1a2b3c4d5e6f"

    with committed():
        work_add(task="apps.indexing.tasks.index_message", args=[message_id])

    row = Work.objects.get(task="apps.indexing.tasks.index_message")
    assert (row.state, row.attempts) == (WorkState.DUE, 1)
    assert row.error.startswith("ConnectionError: database went away")
    for _ in range(4):
        make_due("apps.indexing.tasks.index_message")
        work_run_due()
    row.refresh_from_db()
    assert (row.state, row.attempts) == (WorkState.FAILED, 5)


def test_gone_rows_are_not_errors(fake_provider: HashEmbeddingProvider) -> None:
    missing = "0b4bd4a4-6a5c-4a44-a5f5-1a2b3c4d5e6f"
    assert tasks.index_message(missing) == "0 chunks"
    assert tasks.scan_folder_source(missing) == "source gone"
    assert tasks.index_document(missing).startswith("0 indexed")
    assert tasks.embed_claims([missing]) == "0 claims embedded"


def test_documents_finished_before_a_failure_keep_their_outcome(
    source: Source,
    fake_provider: HashEmbeddingProvider,
    monkeypatch: pytest.MonkeyPatch,
    committed: Committed,
) -> None:
    monkeypatch.setattr("apps.indexing.services.documents.FLUSH_CHUNKS", 1)
    real_embed = fake_provider.embed_documents
    calls = []

    def fail_second_time(texts: list[str]) -> object:
        calls.append(texts)
        if len(calls) == 2:
            raise RuntimeError("model crashed")
        return real_embed(texts)

    monkeypatch.setattr(fake_provider, "embed_documents", fail_second_time)

    scan(source, committed)

    assert paths(source) == {"a.md": "indexed", "sub/b.txt": "pending"}
    assert "model crashed" in Document.objects.get(path="sub/b.txt").error
    assert Document.objects.get(path="a.md").error == ""

    # When the retry runs (the model fails only once)
    make_due("apps.indexing.tasks.index_documents")
    work_run_due()

    # Then the other is indexed too, and the first was not embedded again
    assert paths(source) == {"a.md": "indexed", "sub/b.txt": "indexed"}
    assert len(calls) == 3
    assert "volcanoes" in calls[-1][0]
