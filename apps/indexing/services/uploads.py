"""Uploading files into a project: stored through the storage API under a key of their own
(``uploads/<user>/<uuid>/<name>``, apps/core/storage.py), de-duplicated by content within
the project's uploads, then indexed in the background. A disk that cannot take them keeps
nothing: no file, no row."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone

from apps.core.storage import file_name_clean, storage_writing, stored_files_delete

from ..extract.zipguard import format_bytes
from ..models import Document, DocumentStatus, Source
from .progress import source_run_add
from .queue import enqueue_documents
from .sources import source_ensure_upload

if TYPE_CHECKING:
    from apps.projects.models import Project


@dataclass(frozen=True)
class UploadResult:
    """``duplicate``: the same content was already in the project's uploads and that
    document is returned, nothing new is stored. ``replaced``: a file of the same name was
    there, its content is replaced by the new one."""

    document: Document
    duplicate: bool = False
    replaced: bool = False


upload_name_clean = file_name_clean


def uploads_validate(files: Sequence[UploadedFile]) -> None:
    max_files: int = settings.CAIRN_UPLOAD_MAX_FILES
    max_bytes: int = settings.CAIRN_UPLOAD_MAX_BYTES
    if not files:
        raise ValidationError({"files": "Choose at least one file."})
    if len(files) > max_files:
        raise ValidationError({"files": f"At most {max_files} files at once."})
    for upload in files:
        if upload.size is not None and upload.size > max_bytes:
            raise ValidationError(
                {
                    "files": f"{upload_name_clean(upload.name or '')} is "
                    f"{format_bytes(upload.size)}, over the {format_bytes(max_bytes)} limit."
                }
            )


def documents_upload(*, project: Project, files: Sequence[UploadedFile]) -> list[UploadResult]:
    """Store the files in the project's uploads and queue the new content for indexing.

    The project must already be the requesting user's (``project_get``)."""
    uploads_validate(files)
    stored: list[str] = []
    try:
        with transaction.atomic():
            # In the transaction: an upload that stores nothing leaves no source either.
            source = source_ensure_upload(project=project)
            # One upload at a time per source, so two identical files uploaded at once
            # cannot both be stored.
            Source.objects.select_for_update().get(pk=source.pk)
            results = _store_all(source, files, stored)
            queued = [str(r.document.pk) for r in results if not r.duplicate]
            if queued:
                source_run_add(source_id=source.pk, count=len(queued))
                enqueue_documents(queued)
    except BaseException:
        stored_files_delete(stored)  # the rows were rolled back; so are the files
        raise
    return results


def _store_all(
    source: Source, files: Sequence[UploadedFile], stored: list[str]
) -> list[UploadResult]:
    results: list[UploadResult] = []
    names_in_request: set[str] = set()
    for upload in files:
        sha256 = _sha256(upload)
        duplicate = Document.objects.filter(source=source, sha256=sha256).first()
        if duplicate is not None:
            results.append(UploadResult(duplicate, duplicate=True))
            continue
        name = _unique_in_request(upload_name_clean(upload.name or ""), names_in_request)
        document = Document.objects.filter(source=source, path=name).first()
        replaced = document is not None
        if document is None:
            document = Document(source=source, path=name)
        old_file = document.file.name if replaced and document.file else ""
        with storage_writing():
            document.file.save(name, upload, save=False)
        stored.append(str(document.file.name))
        document.sha256, document.size, document.mtime = sha256, upload.size or 0, timezone.now()
        document.status, document.error, document.attempts = DocumentStatus.PENDING, "", 0
        document.indexed_at = None  # the chunks, if any, describe the previous content
        document.save()
        if old_file and old_file != document.file.name:
            transaction.on_commit(partial(stored_files_delete, [old_file]))
        results.append(UploadResult(document, replaced=replaced))
    return results


def _unique_in_request(name: str, taken: set[str]) -> str:
    """Two different files of one name in one upload (from two folders) both survive."""
    candidate, n = name, 2
    stem, suffix = PurePosixPath(name).stem, PurePosixPath(name).suffix
    while candidate in taken:
        candidate, n = f"{stem} ({n}){suffix}", n + 1
    taken.add(candidate)
    return candidate


def _sha256(upload: UploadedFile) -> str:
    digest = hashlib.sha256()
    for block in upload.chunks():
        digest.update(block)
    upload.seek(0)
    return digest.hexdigest()
