"""Sources, documents and chunks: constraints, generated search vectors, indexes, cascades."""

from __future__ import annotations

import re

import numpy as np
import pytest
from django.contrib.postgres.search import SearchQuery
from django.db import IntegrityError, connection, transaction

from apps.accounts.models import User
from apps.indexing.models import Chunk, Document, Source, SourceKind, upload_to
from apps.projects.models import Project
from tests.indexing.conftest import conversation_with

pytestmark = pytest.mark.django_db

VECTOR = np.ones(384, dtype=np.float32) / np.sqrt(384)


@pytest.fixture
def document(project: Project) -> Document:
    source = Source.objects.create(project=project, kind=SourceKind.UPLOAD, name="Uploads")
    return Document.objects.create(source=source, path="notes.txt")


def chunk(**fields: object) -> Chunk:
    defaults: dict[str, object] = {
        "chunk_index": 0,
        "text": "Running shoes for the marathon",
        "start": 0,
        "end": 30,
        "embedding": VECTOR,
        "embedding_model": "test",
    }
    return Chunk.objects.create(**{**defaults, **fields})


def test_a_chunk_belongs_to_exactly_one_document_or_message(
    user: User, project: Project, document: Document
) -> None:
    _, [message] = conversation_with(user, project, [("user", "hi")])
    owner = {"user": user, "project": project}

    with pytest.raises(IntegrityError), transaction.atomic():
        chunk(**owner)
    with pytest.raises(IntegrityError), transaction.atomic():
        chunk(document=document, message=message, **owner)
    assert chunk(document=document, **owner).pk
    assert chunk(message=message, **owner).pk


def test_chunk_indexes_are_unique_per_document(
    user: User, project: Project, document: Document
) -> None:
    chunk(document=document, user=user, project=project)

    with pytest.raises(IntegrityError), transaction.atomic():
        chunk(document=document, user=user, project=project)
    assert chunk(document=document, user=user, project=project, chunk_index=1).pk


def test_search_vector_is_generated_in_english(
    user: User, project: Project, document: Document
) -> None:
    made = chunk(document=document, user=user, project=project)

    found = Chunk.objects.filter(search_vector=SearchQuery("run marathons", config="english"))

    assert list(found) == [made]


def test_one_uploads_source_per_project_and_folders_need_a_path(project: Project) -> None:
    Source.objects.create(project=project, kind=SourceKind.UPLOAD, name="Uploads")

    with pytest.raises(IntegrityError), transaction.atomic():
        Source.objects.create(project=project, kind=SourceKind.UPLOAD, name="Again")
    with pytest.raises(IntegrityError), transaction.atomic():
        Source.objects.create(project=project, kind=SourceKind.FOLDER, name="No path")
    Source.objects.create(project=project, kind=SourceKind.FOLDER, name="A", root_path="/a")
    with pytest.raises(IntegrityError), transaction.atomic():
        Source.objects.create(project=project, kind=SourceKind.FOLDER, name="B", root_path="/a")


def test_document_paths_are_unique_per_source(document: Document) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        Document.objects.create(source=document.source, path=document.path)


def test_uploads_are_stored_per_user_under_a_key_of_their_own(
    user: User, document: Document
) -> None:
    first, second = (upload_to(document, "../x/notes.txt") for _ in range(2))

    assert re.fullmatch(rf"uploads/{user.pk}/[0-9a-f]{{32}}/notes\.txt", first), first
    assert first != second  # the same name uploaded again never shares a key


def test_deleting_a_message_or_project_removes_chunks(
    user: User, project: Project, document: Document
) -> None:
    _, [message] = conversation_with(user, project, [("user", "hi")])
    chunk(message=message, user=user, project=project)
    chunk(document=document, user=user, project=project)

    message.delete()
    assert Chunk.objects.count() == 1
    project.delete()
    assert not Chunk.objects.exists()
    assert not Document.objects.exists()


def test_hnsw_and_gin_indexes_exist() -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'indexing_chunk'"
        )
        indexes = dict(cursor.fetchall())

    hnsw = indexes["chunk_embedding_hnsw_idx"]
    assert "USING hnsw (embedding vector_cosine_ops)" in hnsw
    assert "m='16'" in hnsw
    assert "ef_construction='64'" in hnsw
    assert "USING gin (search_vector)" in indexes["chunk_search_vector_idx"]


def test_a_chunks_vector_is_kept_in_its_row_however_long_its_window(
    user: User, project: Project
) -> None:
    """Exact comparisons read the vector from the row, not the TOAST table (migration
    0008); the row still fits a page when a turn's neighbours are very long, because its
    texts and tsvectors are compressed or moved out instead."""
    rng = np.random.default_rng(3)
    words = " ".join(f"word{n}" for n in rng.integers(0, 50_000, 20_000))  # ~200 kB
    _, [message] = conversation_with(user, project, [("user", "a short turn")])
    row = chunk(message=message, user=user, project=project, context=words, text=words[:2000])

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attstorage FROM pg_attribute "
            "WHERE attrelid = 'indexing_chunk'::regclass AND attname = 'embedding'"
        )
        assert cursor.fetchone()[0] == "p"  # PLAIN: never out of line
        cursor.execute(
            "SELECT pg_column_toast_chunk_id(embedding), pg_column_toast_chunk_id(context) "
            "FROM indexing_chunk WHERE id = %s",
            [row.pk],
        )
        vector_toasted, window_toasted = cursor.fetchone()
    assert vector_toasted is None
    assert window_toasted is not None  # the long window went out of line instead
    assert Chunk.objects.get(pk=row.pk).window_length > 10_000
