"""Scanning a folder source: which files are new, changed, unchanged or gone.

Only the folder's own regular files are considered: directory symlinks are not followed,
a file symlink is followed only if it stays inside the folder, hidden directories and
dependency caches are pruned. A file whose size and modified time are unchanged is not read
again; a deleted file's document and chunks are removed.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from fnmatch import fnmatchcase
from pathlib import Path

from django.db import transaction

from ..models import PATH_MAX_LENGTH, Document, DocumentStatus, Source
from .files import file_mtime

logger = logging.getLogger(__name__)

PRUNED_DIRECTORIES = frozenset({"node_modules", "__pycache__", "venv", "site-packages"})
# Finished and unchanged on disk: nothing to do. Pending, interrupted or failed ones are
# tried again by the next scan.
SETTLED_STATUSES = (DocumentStatus.INDEXED, DocumentStatus.SKIPPED)


class FolderUnavailable(Exception):
    """The folder itself is missing or unreadable: nothing is deleted on its account."""


@dataclass(frozen=True)
class FoundFile:
    path: str
    size: int
    mtime: datetime


@dataclass
class ScanResult:
    found: int = 0
    new: int = 0
    changed: int = 0
    retried: int = 0
    unchanged: int = 0
    removed: int = 0
    refused: list[str] = field(default_factory=list)
    to_index: list[str] = field(default_factory=list)


def glob_matches(path: str, patterns: Sequence[str]) -> bool:
    """Whether ``path`` (relative, with ``/``) matches one of ``patterns``.

    A pattern without ``/`` matches the file name at any depth (``*.md``); one ending in
    ``/`` matches everything under that directory (``drafts/``); others match the whole
    path, ``*`` crossing directories (``docs/*.md``), and a leading ``**/`` may match no
    directory at all (``**/*.md`` matches ``a.md``)."""
    name = path.rsplit("/", 1)[-1]
    for pattern in patterns:
        if pattern.endswith("/"):
            if path.startswith(pattern) or f"/{pattern}" in f"/{path}":
                return True
        elif "/" not in pattern:
            if fnmatchcase(name, pattern):
                return True
        elif fnmatchcase(path, pattern) or (
            pattern.startswith("**/") and fnmatchcase(path, pattern[3:])
        ):
            return True
    return False


def folder_walk(source: Source, refused: list[str]) -> Iterator[FoundFile]:
    """The folder's files that pass the source's globs; unsafe ones go to ``refused``."""
    root = Path(source.root_path)
    if not root.is_dir():
        raise FolderUnavailable(f"the folder {source.root_path} does not exist or is unreadable")
    real_root = root.resolve()

    def walk_error(error: OSError) -> None:
        if Path(error.filename or "") == root:
            raise FolderUnavailable(f"the folder {source.root_path} cannot be read: {error}")
        logger.warning("skipping unreadable directory %s", error.filename)

    for directory, subdirectories, names in os.walk(root, onerror=walk_error):
        subdirectories[:] = sorted(
            d for d in subdirectories if not d.startswith(".") and d not in PRUNED_DIRECTORIES
        )
        for name in sorted(names):
            full = Path(directory) / name
            relative = full.relative_to(root).as_posix()
            if len(relative) > PATH_MAX_LENGTH:
                refused.append(relative[:200] + "…")
                continue
            if source.include_globs and not glob_matches(relative, source.include_globs):
                continue
            if source.exclude_globs and glob_matches(relative, source.exclude_globs):
                continue
            found = _safe_stat(full, real_root)
            if found is None:
                refused.append(relative)
                continue
            yield FoundFile(relative, found.st_size, file_mtime(found))


def _safe_stat(full: Path, real_root: Path) -> os.stat_result | None:
    try:
        if full.is_symlink() and not full.resolve(strict=True).is_relative_to(real_root):
            return None
        result = full.stat()
    except OSError:  # a dangling link, a file gone since the listing
        return None
    return result if stat.S_ISREG(result.st_mode) else None


def folder_scan(*, source: Source) -> ScanResult:
    """Bring the source's documents in line with the folder; returns what changed and the
    documents to index. Raises ``FolderUnavailable`` without touching any document."""
    result = ScanResult()
    found = {item.path: item for item in folder_walk(source, result.refused)}
    result.found = len(found)
    existing = {d.path: d for d in source.documents.only("id", "path", "size", "mtime", "status")}
    new_documents: list[Document] = []
    with transaction.atomic():
        gone = [d.pk for path, d in existing.items() if path not in found]
        if gone:
            result.removed = len(gone)
            Document.objects.filter(pk__in=gone).delete()  # their chunks cascade
        for path, item in found.items():
            document = existing.get(path)
            if document is None:
                new_documents.append(
                    Document(source=source, path=path, size=item.size, mtime=item.mtime)
                )
                result.new += 1
                continue
            same_file = (document.size, document.mtime) == (item.size, item.mtime)
            if same_file and document.status in SETTLED_STATUSES:
                result.unchanged += 1
                continue
            if same_file:
                result.retried += 1  # failed or interrupted last time
            else:
                result.changed += 1
            Document.objects.filter(pk=document.pk).update(
                size=item.size, mtime=item.mtime, status=DocumentStatus.PENDING
            )
            result.to_index.append(str(document.pk))
        Document.objects.bulk_create(new_documents, batch_size=1000)
    result.to_index.extend(str(d.pk) for d in new_documents)
    return result
