"""Sources: a project's uploads, folders on the server (staff only, under allowed roots)."""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction

from apps.core.storage import stored_files_delete

from ..explain import reindex_refusal
from ..models import Document, Source, SourceKind, SourceStatus
from .progress import source_run_add, source_status_set
from .queue import enqueue, enqueue_documents

if TYPE_CHECKING:
    from apps.accounts.models import User
    from apps.projects.models import Project

logger = logging.getLogger(__name__)

GLOB_MAX_LENGTH = 200
GLOBS_MAX = 50


def source_ensure_upload(*, project: Project) -> Source:
    """The project's uploads source, created on first use (race-free: a unique constraint)."""
    source = Source.objects.filter(project=project, kind=SourceKind.UPLOAD).first()
    if source is not None:
        return source
    try:
        with transaction.atomic():
            return Source.objects.create(
                project=project, kind=SourceKind.UPLOAD, name="Uploads", status=SourceStatus.IDLE
            )
    except IntegrityError:  # created meanwhile by a concurrent upload
        return Source.objects.get(project=project, kind=SourceKind.UPLOAD)


def folder_roots() -> list[Path]:
    """The configured roots folder sources must lie under (``CAIRN_FOLDER_ROOTS``)."""
    return [Path(root).expanduser().resolve() for root in settings.CAIRN_FOLDER_ROOTS if root]


def folder_root_clean(root_path: str, *, roots: Sequence[Path] | None = None) -> str:
    """``root_path`` resolved, provided it is a directory inside an allowed root (or any
    directory when ``roots`` is empty, which only the command line asks for)."""
    raw = (root_path or "").strip()
    if not raw or not os.path.isabs(raw):
        raise ValidationError({"root_path": "Give the folder's absolute path on the server."})
    resolved = Path(raw).resolve()
    if not resolved.is_dir():
        raise ValidationError({"root_path": f"{raw} is not a folder on the server."})
    if roots is not None and not any(resolved.is_relative_to(root) for root in roots):
        allowed = ", ".join(str(root) for root in roots) or "none configured"
        raise ValidationError(
            {"root_path": f"{raw} is not under an allowed folder (allowed: {allowed})."}
        )
    return str(resolved)


def globs_clean(globs: Sequence[str], *, field: str) -> list[str]:
    """Glob patterns relative to the folder; absolute ones and ``..`` are refused."""
    cleaned: list[str] = []
    for raw in globs:
        pattern = raw.strip().replace("\\", "/")
        if not pattern:
            continue
        if len(pattern) > GLOB_MAX_LENGTH:
            raise ValidationError({field: f"A pattern has at most {GLOB_MAX_LENGTH} characters."})
        if pattern.startswith("/") or ".." in PurePosixPath(pattern).parts:
            raise ValidationError({field: f"'{raw}' must be relative to the folder, without '..'."})
        cleaned.append(pattern)
    if len(cleaned) > GLOBS_MAX:
        raise ValidationError({field: f"At most {GLOBS_MAX} patterns."})
    return cleaned


def source_create_folder(
    *,
    user: User,
    project: Project,
    root_path: str,
    name: str = "",
    include_globs: Sequence[str] = (),
    exclude_globs: Sequence[str] = (),
    trusted: bool = False,
) -> Source:
    """A folder source, scanned at once. Only staff may create one, and only under
    ``CAIRN_FOLDER_ROOTS`` (none by default: folder sources are off). ``trusted`` is the
    command line, where the operator already has the server's files."""
    if not trusted:
        if not user.is_staff:
            raise PermissionDenied("Only staff can index folders on the server.")
        roots = folder_roots()
        if not roots:
            raise ValidationError(
                {
                    "root_path": "Folder sources are disabled: no allowed folders are configured "
                    "(CAIRN_FOLDER_ROOTS)."
                }
            )
    root = folder_root_clean(root_path, roots=None if trusted else folder_roots())
    includes = globs_clean(include_globs, field="include_globs")
    excludes = globs_clean(exclude_globs, field="exclude_globs")
    if Source.objects.filter(project=project, kind=SourceKind.FOLDER, root_path=root).exists():
        raise ValidationError({"root_path": "This folder is already a source of the project."})
    source = Source.objects.create(
        project=project,
        kind=SourceKind.FOLDER,
        name=(name.strip() or Path(root).name)[:200],
        root_path=root,
        include_globs=includes,
        exclude_globs=excludes,
        status=SourceStatus.QUEUED,
    )
    if not trusted:
        enqueue("scan_folder_source", str(source.pk))
    return source


def source_refresh(*, source: Source, user: User) -> None:
    """Scan a folder again, or re-index every upload of an uploads source."""
    if source.kind == SourceKind.FOLDER:
        if not (user.is_staff and folder_roots()):
            raise PermissionDenied("Only staff can scan folders, under allowed folders.")
        folder_root_clean(source.root_path, roots=folder_roots())
        source_status_set(source_id=source.pk, status=SourceStatus.QUEUED)
        enqueue("scan_folder_source", str(source.pk))
        return
    # A kind Cairn never reads keeps its "skipped" and its reason: indexing it again
    # cannot change anything, and it would only sit in the run as "waiting".
    ids = [
        str(document.pk)
        for document in source.documents.only("pk", "path")
        if reindex_refusal(document) is None
    ]
    with transaction.atomic():
        source.documents.filter(pk__in=ids).update(status="pending", error="", attempts=0)
        source_run_add(source_id=source.pk, count=len(ids))
        enqueue_documents(ids, force=True)


def source_delete(*, source: Source) -> None:
    """The source, its documents, their chunks and any uploaded files."""
    names = [name for name in source.documents.values_list("file", flat=True) if name]
    source.delete()
    transaction.on_commit(lambda: stored_files_delete(names))


def document_delete(*, document: Document) -> None:
    """The document and its chunks (a folder's file comes back with the next scan unless
    excluded)."""
    name = document.file.name if document.file else ""
    document.delete()
    if name:
        transaction.on_commit(lambda: stored_files_delete([name]))


def document_reindex(*, document: Document) -> None:
    """Extract, chunk and embed the document again, even if it is unchanged. A kind of
    file Cairn never reads (``.exe``) is refused: indexing it again cannot change a thing."""
    refusal = reindex_refusal(document)
    if refusal is not None:
        raise ValidationError({"document": refusal})
    with transaction.atomic():
        Document.objects.filter(pk=document.pk).update(status="pending", error="", attempts=0)
        source_run_add(source_id=document.source_id, count=1)
        enqueue_documents([str(document.pk)], force=True)
