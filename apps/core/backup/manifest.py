"""What a backup holds and how it is checked: the manifest, the file names, the hashes."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Any

from django.core.files.storage import Storage

FORMAT = 1
MANIFEST = "manifest.json"
DUMP = "database.dump"
MEDIA_PREFIX = "media/"
CHUNK = 1024 * 1024


class BackupError(RuntimeError):
    """A backup or restore that cannot go on; the message says why and what to do."""


@dataclass(frozen=True)
class BackedUpFile:
    name: str
    size: int
    sha256: str


@dataclass(frozen=True)
class Manifest:
    cairn_version: str
    created_at: str
    database: str
    server_version: str
    migrations: dict[str, list[str]]  # app -> the applied migrations no other one follows
    tables: dict[str, int]  # rows per table, in the snapshot the dump was taken from
    files: list[BackedUpFile]
    dump_sha256: str
    dump_size: int
    # Files a row names that the storage did not have when the backup was taken (a row
    # whose file was lost or deleted meanwhile): said, so nobody trusts them to be there.
    files_missing: list[str] = field(default_factory=list)
    format: int = FORMAT

    @property
    def rows(self) -> int:
        return sum(self.tables.values())

    @property
    def file_bytes(self) -> int:
        return sum(item.size for item in self.files)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Manifest:
        return cls(
            **{
                **data,
                "files": [BackedUpFile(**item) for item in data["files"]],
            }
        )


@dataclass
class RestoreReport:
    manifest: Manifest
    database: str
    tables: dict[str, int] = field(default_factory=dict)
    files: list[BackedUpFile] = field(default_factory=list)
    migrations_to_apply: int = 0


def first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def storage_files(storage: Storage, directory: str = "") -> Iterator[str]:
    """Every file name in ``storage``, recursively, through ``listdir`` (any backend)."""
    try:
        directories, files = storage.listdir(directory)
    except FileNotFoundError:  # a local MEDIA_ROOT nothing was ever uploaded to
        return
    prefix = f"{directory}/" if directory else ""
    for name in sorted(files):
        yield prefix + name
    for name in sorted(directories):
        yield from storage_files(storage, prefix + name)


class HashingReader:
    """Reads ``source`` for tarfile, counting and hashing what passes."""

    def __init__(self, source: IO[bytes]) -> None:
        self.source = source
        self.digest = hashlib.sha256()
        self.size = 0

    def read(self, size: int = -1) -> bytes:
        data = self.source.read(size)
        self.digest.update(data)
        self.size += len(data)
        return data


def safe_name(name: str) -> str:
    path = PurePosixPath(name)
    if not name or path.is_absolute() or ".." in path.parts or "\\" in name:
        raise BackupError(f"The archive names a file outside the media storage ({name!r}).")
    return name


def file_digest(path: Path) -> tuple[str, int]:
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as handle:
        while block := handle.read(CHUNK):
            digest.update(block)
            size += len(block)
    return digest.hexdigest(), size


def stream_digest(handle: IO[bytes]) -> tuple[str, int]:
    digest = hashlib.sha256()
    size = 0
    while block := handle.read(CHUNK):
        digest.update(block)
        size += len(block)
    return digest.hexdigest(), size
