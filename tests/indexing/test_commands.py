"""``manage.py index_folder`` and ``manage.py reindex``."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from apps.accounts.models import User
from apps.claims.models import Claim
from apps.indexing.models import Chunk, Document, Source
from apps.indexing.search import text_search, vector_search
from apps.indexing.services import messages_index
from apps.indexing.services.reembed import VECTOR_INDEXES
from apps.projects.models import Project
from tests.indexing.conftest import conversation_with
from tests.indexing.fakes import HashEmbeddingProvider
from tests.knowledge_factories import ClaimFactory

pytestmark = pytest.mark.django_db


def run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "archive"
    root.mkdir()
    for n in range(5):
        (root / f"note{n}.md").write_text(f"# Note {n}\n\nAbout topic number {n}.")
    (root / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    return root


def test_index_folder_indexes_now_with_a_progress_bar(
    user: User, project: Project, folder: Path, fake_provider: HashEmbeddingProvider
) -> None:
    out, err = run("index_folder", str(folder), "--user", user.email, "--project", "personal")

    assert "6 files: 6 new" in err
    assert "\r" in err
    assert "6/6 100%" in err
    assert "[##############################]" in err
    assert "5 indexed, 1 failed" in out
    assert "failed: broken.pdf:" in out
    source = Source.objects.get(root_path=str(folder.resolve()))
    assert (source.project, source.status) == (project, "ready")
    assert Document.objects.filter(status="indexed").count() == 5

    out, err = run("index_folder", str(folder), "--user", user.email, "--project", str(project.pk))

    assert "0 changed, 1 retried, 5 unchanged" in err  # the failed one is tried again
    assert Source.objects.count() == 1


def test_index_folder_globs_and_bad_arguments(
    user: User, project: Project, folder: Path, fake_provider: HashEmbeddingProvider
) -> None:
    run(
        "index_folder",
        str(folder),
        "--user",
        user.email,
        "--project",
        "personal",
        "--include",
        "*.md",
        "--exclude",
        "note0.md",
    )

    assert sorted(Document.objects.values_list("path", flat=True)) == [
        "note1.md",
        "note2.md",
        "note3.md",
        "note4.md",
    ]
    with pytest.raises(CommandError, match="No user"):
        run("index_folder", str(folder), "--user", "nobody@example.com", "--project", "x")
    with pytest.raises(CommandError, match="has no project"):
        run("index_folder", str(folder), "--user", user.email, "--project", "nope")
    with pytest.raises(CommandError, match="not a folder"):
        run("index_folder", str(folder / "missing"), "--user", user.email, "--project", "personal")


def test_reindex_re_embeds_rows_of_another_model(
    user: User, project: Project, fake_provider: HashEmbeddingProvider
) -> None:
    _, [message] = conversation_with(user, project, [("user", "hello there")])
    Chunk.objects.bulk_create(
        [
            Chunk(
                message=message,
                user=user,
                project=project,
                chunk_index=i,
                text=f"text {i}",
                start=0,
                end=5,
                embedding=[1.0] + [0.0] * 383,
                embedding_model="old-model",
            )
            for i in range(3)
        ]
    )
    claim = ClaimFactory(user=user, statement="I like rain")
    Claim.objects.filter(pk=claim.pk).update(embedding_model="old-model")

    out, _ = run("reindex", "--dry-run")
    assert "To re-embed: 3 chunks, 1 claims." in out
    assert set(Chunk.objects.values_list("embedding_model", flat=True)) == {"old-model"}

    out, err = run("reindex", "--batch-size", "2")

    assert "Re-embedded 3 chunks and 1 claims." in out
    assert "Rebuilt the vector indexes" in out
    assert "4/4" in err
    assert set(Chunk.objects.values_list("embedding_model", flat=True)) == {fake_provider.name}
    expected = fake_provider.embed_query("text 1")
    assert list(Chunk.objects.get(chunk_index=1).embedding) == pytest.approx(list(expected))
    claim.refresh_from_db()
    assert claim.embedding_model == fake_provider.name
    assert "To re-embed: 0 chunks, 0 claims." in run("reindex")[0]
    with connection.cursor() as cursor:  # rebuilt, valid, and searched as before
        cursor.execute(
            "SELECT bool_and(indisvalid) FROM pg_index WHERE indexrelid = ANY(%s::regclass[])",
            [list(VECTOR_INDEXES)],
        )
        assert cursor.fetchone()[0] is True
    [hit] = vector_search(user=user, vector=expected, kinds=["message"], k=1)
    assert hit.chunk_id == Chunk.objects.get(chunk_index=1).pk


@pytest.mark.usefixtures("fake_provider")
def test_reindex_windows_rebuilds_old_messages_windows_without_embedding_again(
    user: User, project: Project
) -> None:
    # Given a conversation indexed before windows existed: its chunks carry no context
    _, messages = conversation_with(
        user, project, [("user", "Have you been to Lisbon?"), ("assistant", "Yes, in May.")]
    )
    messages_index(message_ids=[m.pk for m in messages])
    Chunk.objects.filter(user=user).update(context="", embedding_model="kept")

    out, err = run("reindex", "--windows")

    # Then each turn's window holds its neighbour again, and nothing was embedded
    assert "Chat messages with indexed passages: 2." in out
    assert "Updated the windows of 2 passages." in out
    assert "2/2" in err
    reply = Chunk.objects.get(message=messages[1])
    assert "Have you been to Lisbon?" in reply.context
    assert set(Chunk.objects.values_list("embedding_model", flat=True)) == {"kept"}
    assert text_search(user=user, query="Lisbon", kinds=("message",), k=2)
    assert "Updated the windows of 0 passages." in run("reindex", "--windows")[0]


def test_reindex_documents_cuts_stored_files_again_with_a_progress_bar(
    user: User, project: Project, folder: Path, fake_provider: HashEmbeddingProvider
) -> None:
    # Given files indexed before the chunking changed: one long note stored as one
    # 2,048-character-style passage
    long_note = folder / "long.md"
    long_note.write_text(" ".join(f"Sentence {n} of a long note." for n in range(400)))
    run("index_folder", str(folder), "--user", user.email, "--project", "personal")
    document = Document.objects.get(path="long.md")
    Chunk.objects.filter(document=document).delete()
    text = long_note.read_text()
    Chunk.objects.create(
        document=document,
        user=user,
        project=project,
        chunk_index=0,
        text=text[:2048],
        start=0,
        end=2048,
        embedding=[1.0] + [0.0] * 383,
        embedding_model=fake_provider.name,
    )
    Document.objects.filter(pk=document.pk).update(chunk_count=1)
    # and one file no longer reachable (an unmounted drive, say)
    gone = Document.objects.get(path="note4.md")
    gone_passages = list(Chunk.objects.filter(document=gone).values_list("text", flat=True))
    (folder / "note4.md").unlink()

    out, _ = run("reindex", "--documents", "--dry-run")
    assert "cut into passages again: 5 (1 not reachable now, left as they are)." in out
    assert Chunk.objects.filter(document=document).count() == 1

    # When every stored document is cut again
    out, err = run("reindex", "--documents")

    # Then the long note is in passages of at most the window, with exact offsets
    assert "5/5 100%" in err
    assert "Cut 5 files into" in out
    passages = list(Chunk.objects.filter(document=document).order_by("chunk_index"))
    assert len(passages) > 2
    assert all(len(p.text.split()) <= 254 for p in passages)  # the fake's tokens are words
    assert all(text[p.start : p.end] == p.text for p in passages)
    document.refresh_from_db()
    assert (document.chunk_count, document.status) == (len(passages), "indexed")
    assert Document.objects.filter(status="failed").count() == 1  # never indexed: left alone
    gone.refresh_from_db()
    assert gone.status == "indexed"
    assert list(Chunk.objects.filter(document=gone).values_list("text", flat=True)) == (
        gone_passages
    )
