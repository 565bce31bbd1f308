"""Finding a document's file on disk safely, and hashing it."""

from __future__ import annotations

import hashlib
import os
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path

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


def document_file_path(document: Document) -> Path:
    """Where the document's bytes are: its uploaded file, or its path under the folder."""
    source = document.source
    if source.kind == SourceKind.FOLDER:
        return resolve_inside(Path(source.root_path), document.path)
    if not document.file:
        raise FileNotFoundError("the uploaded file is missing")
    return Path(document.file.path)


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
