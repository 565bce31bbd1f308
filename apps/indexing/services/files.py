"""Finding a document's file safely: a folder's on this machine's disk, an upload through
the storage API (apps/core/storage.py); and hashing it."""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO

from django.core.files.storage import default_storage

from apps.core.storage import stored_file_local, stored_file_open

from ..models import Document, SourceKind

HASH_BLOCK = 1024 * 1024


class UnsafePath(Exception):
    """A path that leaves its folder (``..``, a symlink out) or is not a regular file."""


def resolve_inside(root: Path, relative: str) -> Path:
    """``root / relative`` with symlinks resolved, provided it stays inside ``root`` and is
    a regular file; raises ``UnsafePath`` otherwise (``FileNotFoundError`` if absent)."""
    real_root = root.resolve(strict=True)
    candidate = (real_root / relative).resolve(strict=True)
    if not candidate.is_relative_to(real_root):
        raise UnsafePath(f"{relative} points outside the folder")
    # A FIFO or device would block or never end when read.
    if not stat.S_ISREG(candidate.stat().st_mode):
        raise UnsafePath(f"{relative} is not a regular file")
    return candidate


@dataclass(frozen=True)
class LocalFile:
    """A document's bytes as a path on this machine, with the size and time to record."""

    path: Path
    size: int
    mtime: datetime


@contextmanager
def document_file_local(document: Document) -> Iterator[LocalFile]:
    """The document's file to read: a folder's file where it lies, an upload through the
    storage (``StoredFileMissing`` when this machine's storage does not have it; a
    temporary copy when the storage is a bucket). An upload's time is when it was
    uploaded: a copy's own time says nothing."""
    source = document.source
    if source.kind == SourceKind.FOLDER:
        path = resolve_inside(Path(source.root_path), document.path)
        found = path.stat()
        yield LocalFile(path, found.st_size, file_mtime(found))
        return
    if not document.file:
        raise FileNotFoundError("the uploaded file is missing")
    with stored_file_local(document.file.name) as path:
        found = path.stat()
        yield LocalFile(path, found.st_size, document.mtime or file_mtime(found))


def document_file_open(document: Document) -> IO[bytes]:
    """The document's file opened for reading, wherever it is kept."""
    source = document.source
    if source.kind == SourceKind.FOLDER:
        return resolve_inside(Path(source.root_path), document.path).open("rb")
    if not document.file:
        raise FileNotFoundError("the uploaded file is missing")
    return stored_file_open(document.file.name)


def document_file_exists(document: Document) -> bool:
    try:
        if document.source.kind == SourceKind.FOLDER:
            resolve_inside(Path(document.source.root_path), document.path)
            return True
        return bool(document.file) and default_storage.exists(document.file.name or "")
    except (OSError, UnsafePath):
        return False


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(HASH_BLOCK):
            digest.update(block)
    return digest.hexdigest()


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def file_mtime(result: os.stat_result) -> datetime:
    """The modified time to the microsecond, computed from integer nanoseconds so the same
    file always yields exactly the same value (compared with the stored one by a scan)."""
    return _EPOCH + timedelta(microseconds=result.st_mtime_ns // 1000)
