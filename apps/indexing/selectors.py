"""Reads of sources, documents and chunks. Every function takes the requesting user and
filters by it: another user's row answers 404 (or "no such document"), never 403."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.db.models import Count, Q, QuerySet
from django.http import Http404

from .models import Chunk, Document, DocumentStatus, Source

if TYPE_CHECKING:
    from apps.accounts.models import User
    from apps.projects.models import Project


def source_list(*, user: User, project: Project | None = None) -> QuerySet[Source]:
    sources = Source.objects.filter(project__owner=user).select_related("project")
    if project is not None:
        sources = sources.filter(project=project)
    counts = {
        f"{status}_count": Count("documents", filter=Q(documents__status=status))
        for status in DocumentStatus.values
    }
    return sources.annotate(document_count=Count("documents"), **counts)


def source_get(*, user: User, source_id: uuid.UUID | str) -> Source:
    """The user's source with its document counts, or 404."""
    try:
        return source_list(user=user).get(pk=source_id)
    except (Source.DoesNotExist, ValidationError, ValueError) as error:
        raise Http404("No such source.") from error


def document_list(
    *,
    user: User,
    project: Project | None = None,
    source: Source | None = None,
    status: str | None = None,
) -> QuerySet[Document]:
    documents = Document.objects.filter(source__project__owner=user).select_related(
        "source__project"
    )
    if project is not None:
        documents = documents.filter(source__project=project)
    if source is not None:
        documents = documents.filter(source=source)
    if status:
        documents = documents.filter(status=status)
    return documents.order_by("source__name", "path")


def document_get(*, user: User, document_id: uuid.UUID | str) -> Document:
    try:
        return Document.objects.select_related("source__project").get(
            source__project__owner=user, pk=document_id
        )
    except (Document.DoesNotExist, ValidationError, ValueError) as error:
        raise Http404("No such document.") from error


def document_chunks(*, user: User, document: Document) -> QuerySet[Chunk]:
    return Chunk.objects.filter(user=user, document=document).order_by("chunk_index")


def document_chunk_index(*, user: User, document: Document, chunk_id: str) -> int | None:
    """Where the user's passage ``chunk_id`` stands in the document; None if it is not one
    of its passages (gone since, another document's, or not an id at all)."""
    try:
        chunk_pk = int(chunk_id)
    except ValueError:
        return None
    index: int | None = (
        document_chunks(user=user, document=document)
        .filter(pk=chunk_pk)
        .values_list("chunk_index", flat=True)
        .first()
    )
    return index


def chunk_document_id(*, user: User, chunk_id: int) -> uuid.UUID | None:
    """The document of the user's passage ``chunk_id``; None for a chat message's passage,
    another user's or one that is gone."""
    document_id: uuid.UUID | None = (
        Chunk.objects.filter(user=user, pk=chunk_id, document__isnull=False)
        .values_list("document_id", flat=True)
        .first()
    )
    return document_id


def document_text_for_user(*, user: User, key: uuid.UUID | str) -> tuple[str, str, str]:
    """``(title, text, document id)`` of the user's indexed document, its text rebuilt from
    its chunks with the original character offsets (the whitespace between two chunks
    that do not overlap is restored as spaces or newlines of the same length).

    Raises ``ValidationError`` for an unknown document (another user's included), which
    the chat's document tool reports to the model."""
    try:
        document = document_get(user=user, document_id=key)
    except Http404 as error:
        raise ValidationError(f"There is no document {key}.") from error
    text = ""
    for start, end, chunk_text in document_chunks(user=user, document=document).values_list(
        "start", "end", "text"
    ):
        if start > len(text):
            gap = start - len(text)
            text += " " if gap == 1 else "\n" * gap
        text += chunk_text[len(text) - start :]
        if len(text) < end:  # never shorter than the chunk says
            text += " " * (end - len(text))
    return document.path, text, str(document.pk)


def chunk_message_id(*, user: User, chunk_id: int) -> uuid.UUID | None:
    """The chat message of the user's passage ``chunk_id``; None for a file's passage,
    another user's or one that is gone."""
    message_id: uuid.UUID | None = (
        Chunk.objects.filter(user=user, pk=chunk_id, message__isnull=False)
        .values_list("message_id", flat=True)
        .first()
    )
    return message_id
