"""Sources, documents and chunks (DESIGN §6).

A **Source** belongs to a project: its uploads, a folder on the server, or its chats. A
**Document** is one file of a source. A **Chunk** is a passage of a document or of a chat
message with its embedding and a generated ``tsvector``; chunks are what search ranks.
"""

from __future__ import annotations

import uuid
from pathlib import PurePosixPath

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.db.models import Func, Q
from pgvector.django import HnswIndex, VectorField

from apps.core.storage import upload_key

# BM25's tables, by topic in a module of their own; imported here so that Django registers
# them and ``indexing.models`` stays the one place every model is imported from.
from .lexical import (  # noqa: F401
    ChunkPosting,
    ClaimPosting,
    LexicalCollection,
    LexicalTerm,
    PostingPack,
    PostingPackState,
    PostingStale,
)

EMBEDDING_DIMENSIONS = 384
PATH_MAX_LENGTH = 1024


class SourceKind(models.TextChoices):
    UPLOAD = "upload", "Uploads"
    FOLDER = "folder", "Folder on the server"
    CHAT = "chat", "Chats"


class SourceStatus(models.TextChoices):
    IDLE = "idle", "Idle"
    QUEUED = "queued", "Queued"
    SCANNING = "scanning", "Scanning"
    INDEXING = "indexing", "Indexing"
    READY = "ready", "Up to date"
    FAILED = "failed", "Failed"


class DocumentStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    INDEXING = "indexing", "Indexing"
    INDEXED = "indexed", "Indexed"
    SKIPPED = "skipped", "Skipped"
    FAILED = "failed", "Failed"


# A document in one of these is finished: it counts as done in its source's progress.
FINISHED_STATUSES = (DocumentStatus.INDEXED, DocumentStatus.SKIPPED, DocumentStatus.FAILED)


class Source(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    project = models.ForeignKey(
        "projects.Project", on_delete=models.CASCADE, related_name="sources"
    )
    kind = models.CharField(max_length=10, choices=SourceKind.choices)
    name = models.CharField(max_length=200)
    root_path = models.CharField(
        max_length=PATH_MAX_LENGTH, blank=True, help_text="Folder sources: the absolute path."
    )
    include_globs = ArrayField(models.CharField(max_length=200), default=list, blank=True)
    exclude_globs = ArrayField(models.CharField(max_length=200), default=list, blank=True)
    status = models.CharField(
        max_length=10, choices=SourceStatus.choices, default=SourceStatus.IDLE
    )
    # Progress of the current (or last) run: documents finished of those queued, and the
    # file being worked on. Updated with F() by concurrent workers, published live.
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    progress_current = models.CharField(max_length=PATH_MAX_LENGTH, blank=True)
    error = models.TextField(blank=True)
    last_run_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["kind", "name"]
        constraints = [
            # One uploads source and one chats source per project.
            models.UniqueConstraint(
                fields=["project", "kind"],
                condition=Q(kind__in=[SourceKind.UPLOAD, SourceKind.CHAT]),
                name="source_one_upload_and_chat_per_project",
            ),
            models.UniqueConstraint(
                fields=["project", "root_path"],
                condition=Q(kind=SourceKind.FOLDER),
                name="source_folder_unique_per_project",
            ),
            models.CheckConstraint(
                condition=~Q(kind=SourceKind.FOLDER) | ~Q(root_path=""),
                name="source_folder_has_root_path",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def progress_percent(self) -> int:
        if not self.progress_total:
            return 100 if self.status == SourceStatus.READY else 0
        return min(100, round(100 * self.progress_done / self.progress_total))

    @property
    def is_running(self) -> bool:
        return self.status in (SourceStatus.QUEUED, SourceStatus.SCANNING, SourceStatus.INDEXING)


def upload_to(document: Document, filename: str) -> str:
    """``uploads/<user id>/<uuid4>/<name>``: a key per upload (a replaced file gets a new
    one), so no two uploads ever share a key and deleting one removes exactly its file."""
    return upload_key(kind="uploads", user_id=document.source.project.owner_id, name=filename)


class Document(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="documents")
    path = models.CharField(
        max_length=PATH_MAX_LENGTH,
        help_text="Relative to the folder, or the uploaded file's (sanitised) name.",
    )
    file = models.FileField(upload_to=upload_to, max_length=500, blank=True)
    doc_type = models.CharField(max_length=10, blank=True)
    size = models.BigIntegerField(default=0)
    mtime = models.DateTimeField(null=True, blank=True)
    sha256 = models.CharField(
        max_length=64, blank=True, help_text="Content hash when last uploaded or indexed."
    )
    status = models.CharField(
        max_length=10, choices=DocumentStatus.choices, default=DocumentStatus.PENDING
    )
    error = models.TextField(blank=True)
    chunk_count = models.PositiveIntegerField(default=0)
    attempts = models.PositiveSmallIntegerField(
        default=0, help_text="Failed indexing attempts since the last success."
    )
    indexed_at = models.DateTimeField(null=True, blank=True)
    # When its text was written, as far as the file tells (a date at its head, a PDF's
    # creation date) or, for a folder's file, its modified time; an upload's own time says
    # nothing of it. Its passages carry it as ``said_at``: "in May 2024" finds them.
    dated_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["path"]
        constraints = [
            models.UniqueConstraint(fields=["source", "path"], name="document_path_unique"),
        ]
        indexes = [models.Index(fields=["source", "sha256"], name="document_source_sha_idx")]

    def __str__(self) -> str:
        return self.path

    @property
    def name(self) -> str:
        return PurePosixPath(self.path).name


class Chunk(models.Model):
    """A passage of exactly one document or one chat message.

    ``text`` is what was embedded (but a transcript's speaker heading, ``mentions.unheaded``)
    and full-text indexed. For a document it is
    ``document_text[start:end]``; for a message it is the passage ``content[start:end]``.
    ``context`` is, for a message, its speaker and date and the turns before and after it
    (``chunking.message_window_context``): ``window_vector`` indexes the passage with
    them, so that a short reply is found by what it answers, while the embedding and
    ``search_vector`` hold the turn alone (measured in bench/bench_quality.py).
    """

    id = models.BigAutoField(primary_key=True)
    # No single-column indexes on document, message and user: the unique constraints and
    # the (user, project) index below lead with them.
    document = models.ForeignKey(
        Document,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="chunks",
        db_index=False,
    )
    message = models.ForeignKey(
        "chat.Message",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="index_chunks",
        db_index=False,
    )
    # Denormalised from document → source → project → owner (or message → conversation):
    # every search filters by user (and often project), and with these columns on the
    # chunk row the HNSW and GIN scans filter without a join per candidate, which is what
    # keeps filtered vector search fast. The owner of a chunk's document or message never
    # changes, so the copies cannot drift.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    chunk_index = models.PositiveIntegerField()
    text = models.TextField()
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS)
    embedding_model = models.CharField(max_length=100)
    # A message's conversation is archived: its chunks are kept but not searched. Indexing
    # owns this copy (set when indexing and by message_chunks_set_archived) so that search
    # never reaches into the chat's tables. A database default too: bulk loads (COPY) omit it.
    archived = models.BooleanField(default=False, db_default=False)
    search_vector = models.GeneratedField(
        expression=SearchVector("text", config="english"),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    context = models.TextField(blank=True, default="", db_default="")
    window_vector = models.GeneratedField(
        expression=SearchVector("text", "context", config="english"),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    # Tokens in each vector, BM25's row length: stored, as counting them costs more than
    # the rest of a row's score (a generated column cannot read another, hence the repeat).
    search_length = models.GeneratedField(
        expression=Func(SearchVector("text", config="english"), function="cairn_tsvector_tokens"),
        output_field=models.IntegerField(),
        db_persist=True,
    )
    window_length = models.GeneratedField(
        expression=Func(
            SearchVector("text", "context", config="english"), function="cairn_tsvector_tokens"
        ),
        output_field=models.IntegerField(),
        db_persist=True,
    )
    # When a chat message's words were said (its created_at, copied as user is): a question
    # that names a time ("in March 2023") ranks the turns of that stretch (``search._periods``).
    # A file's passages carry their document's ``dated_at`` (null when the file tells none).
    said_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["document", "message", "chunk_index"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(document__isnull=False, message__isnull=True)
                    | Q(document__isnull=True, message__isnull=False)
                ),
                name="chunk_of_exactly_one_document_or_message",
            ),
            # Re-indexing replaces chunks in one transaction; these make a duplicate chunk
            # impossible even if two workers ever ran the same job at once.
            models.UniqueConstraint(
                fields=["document", "chunk_index"], name="chunk_index_unique_per_document"
            ),
            models.UniqueConstraint(
                fields=["message", "chunk_index"], name="chunk_index_unique_per_message"
            ),
            models.CheckConstraint(condition=Q(end__gte=models.F("start")), name="chunk_span"),
        ]
        indexes = [
            models.Index(fields=["user", "project"], name="chunk_user_project_idx"),
            models.Index(
                fields=["user", "said_at"],
                name="chunk_user_said_at_idx",
                condition=Q(said_at__isnull=False),
            ),
            models.Index(fields=["embedding_model"], name="chunk_embedding_model_idx"),
            GinIndex(fields=["search_vector"], name="chunk_search_vector_idx"),
            GinIndex(fields=["window_vector"], name="chunk_window_vector_idx"),
            HnswIndex(
                name="chunk_embedding_hnsw_idx",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
        ]

    def __str__(self) -> str:
        return f"{self.owner_label} #{self.chunk_index}"

    @property
    def owner_label(self) -> str:
        return f"document {self.document_id}" if self.document_id else f"message {self.message_id}"


class Mention(models.Model):
    """A name a chunk holds, who said it, or a relation it names (``mentions``): search
    gathers the passages about the people a question names by these (``search._entities``).
    ``role`` is how (``SPEAKER``, ``NAMED``, ``INITIAL``, ``RELATION``, ``ALIAS``); an alias
    row says that the chunk tells who ``alias`` (a relation, "|old flatmate") is: ``key``.

    Written with its chunk (``services.mentions``) and deleted with it by the database
    (``ON DELETE CASCADE``, migration 0012): re-indexing, a deleted message, conversation,
    file or user take their mentions along, and a chunk delete costs Django no query per
    related table. ``user_id`` is the chunk's, copied as the chunk copies its owner, so
    that a lookup of one user's names reads one index."""

    id = models.BigAutoField(primary_key=True)
    chunk = models.ForeignKey(
        Chunk,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        db_index=False,
        related_name="mentions",
    )
    user_id = models.BigIntegerField()
    key = models.CharField(max_length=130)
    role = models.CharField(max_length=8)
    alias = models.CharField(max_length=130, blank=True, default="")

    class Meta:
        db_table = "indexing_mention"
        indexes = [
            # Covering: the passages of a name are read from the index alone.
            models.Index(
                fields=["user_id", "key", "role"], include=["chunk"], name="mention_user_key_idx"
            ),
            models.Index(fields=["chunk"], name="mention_chunk_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.role} {self.key!r} in chunk {self.chunk_id}"


class MemoryUnit(models.Model):
    """A statement a chat turn makes, told of whoever said it (``units``): "Ingrid took
    Ingrid's two to the pottery class." Search ranks them beside the turns, each hit
    counted for its chunk (``search._units``); they are no claims, and never reach the
    user's review of pending claims.

    Built after the turn is searchable (``services.units``, a follow-up task) and deleted
    with its chunk by the database (``ON DELETE CASCADE``, migration 0014, as ``Mention``):
    re-indexing a turn, deleting it, its conversation or its user take its units along.
    Whether a unit is searched is its chunk's say (user, project, archived, left out):
    search joins every unit to its chunk's scope. ``user_id`` is the chunk's, copied so
    that one user's units are found by one index."""

    id = models.BigAutoField(primary_key=True)
    chunk = models.ForeignKey(
        Chunk,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        db_index=False,
        related_name="units",
    )
    user_id = models.BigIntegerField()
    text = models.TextField()
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS)

    class Meta:
        db_table = "indexing_unit"
        indexes = [
            models.Index(fields=["user_id"], name="unit_user_idx"),
            models.Index(fields=["chunk"], name="unit_chunk_idx"),
            HnswIndex(
                name="unit_embedding_hnsw_idx",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
        ]

    def __str__(self) -> str:
        return f"unit of chunk {self.chunk_id}: {self.text[:40]!r}"
