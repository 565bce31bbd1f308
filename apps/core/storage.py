"""Users' files through Django's storage API (``storages["default"]``), whichever it is:
a folder under ``MEDIA_ROOT`` (shared by every machine, or one machine's own) or an
S3-compatible bucket (``STORAGE_URL``, config/storage_url.py).

- Every upload gets a key no other upload can share: ``<kind>/<user id>/<uuid4>/<name>``.
  Keys by name alone (``imports/2026/05/conversations.json``) let a worker with another
  machine's disk open another user's file of the same name.
- On a local disk a file is written under a temporary name beside its key and moved into
  place (``AtomicFileSystemStorage``): a crash, a full or a read-only disk never leaves a
  half file under the real name, nor the temporary one.
- A store refused for want of room or write access is a ``StorageUnavailable`` (507 on
  REST, the ``file`` field's error on a page), with nothing kept.
- The worker opens files only through the storage; a file its storage does not have is a
  ``StoredFileMissing`` that says why, never a guess at another path.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import re
import secrets
import shutil
import tempfile
import unicodedata
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import IO, Any, NoReturn

from django.core.exceptions import ValidationError
from django.core.files.storage import FileSystemStorage, default_storage

logger = logging.getLogger(__name__)

NAME_MAX_LENGTH = 200
_UNSAFE_CHARACTERS = re.compile(r'[\x00-\x1f\x7f<>:"|?*]')

NO_ROOM = "The server has no room to store this file; nothing was saved."
READ_ONLY = (
    "The server cannot write files at the moment (its storage is read-only or not writable); "
    "nothing was saved."
)
UNREACHABLE = (
    "The server's file storage could not take this file just now; nothing was saved. "
    "Try again in a while."
)
NOT_IN_STORAGE = (
    "The uploaded file is not in this worker's storage: do the web and worker processes "
    "share MEDIA_ROOT or STORAGE_URL?"
)
_NO_ROOM_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}
_READ_ONLY_ERRNOS = {errno.EROFS, errno.EACCES, errno.EPERM}


def file_name_clean(name: str) -> str:
    """A safe file name from a browser-supplied one: no directories (``../`` and
    ``C:\\`` included), no control or reserved characters, never empty or hidden."""
    name = unicodedata.normalize("NFC", name or "").replace("\\", "/")
    name = PurePosixPath(name).name if "/" in name else name
    name = _UNSAFE_CHARACTERS.sub("_", name).strip().lstrip(".").strip()
    if not name:
        return "upload"
    if len(name) > NAME_MAX_LENGTH:
        suffix = PurePosixPath(name).suffix[:20]
        name = name[: NAME_MAX_LENGTH - len(suffix)] + suffix
    return name


def upload_key(*, kind: str, user_id: object, name: str) -> str:
    """``<kind>/<user id>/<uuid4>/<safe name>``: unique per upload whatever its name, and
    deleting it removes exactly its file (the UUID's folder)."""
    return f"{kind}/{user_id}/{uuid.uuid4().hex}/{file_name_clean(PurePosixPath(name).name)}"


class StorageUnavailable(ValidationError):
    """The storage refused a file for want of room or write access; nothing of it was kept.

    A ValidationError naming ``file``, so a door that knows no better still answers 400
    with the field; the REST handler answers ``status_code`` (apps/core/api.py): 507 for a
    disk, 503 for a bucket that could not be reached or refused the file."""

    def __init__(self, message: str, *, status_code: int = 507) -> None:
        super().__init__({"file": message})
        self.reason = message
        self.status_code = status_code


class StoredFileMissing(FileNotFoundError):
    """A stored file this process's storage does not have (a worker with its own disk)."""

    def __init__(self, name: str | None) -> None:
        super().__init__(NOT_IN_STORAGE)
        self.name = name

    def __str__(self) -> str:
        return NOT_IN_STORAGE


def storage_refusal(error: OSError) -> str | None:
    """The words for a disk that cannot take a file, or None for any other error."""
    if error.errno in _NO_ROOM_ERRNOS:
        return NO_ROOM
    if error.errno in _READ_ONLY_ERRNOS:
        return READ_ONLY
    return None


@contextmanager
def storage_writing() -> Iterator[None]:
    """Around a store: a full or read-only disk becomes a ``StorageUnavailable``."""
    try:
        yield
    except OSError as error:
        refusal = storage_refusal(error)
        if refusal is None:
            raise
        logger.error("storing a file failed: %s", error)
        raise StorageUnavailable(refusal) from error
    except Exception as error:
        if not isinstance(error, _bucket_errors()):
            raise
        logger.error("storing a file in the bucket failed: %s", error)
        raise StorageUnavailable(UNREACHABLE, status_code=503) from error


def _bucket_errors() -> tuple[type[Exception], ...]:
    """botocore's errors (an S3 endpoint down, a missing bucket, refused keys), imported
    only when a store has failed: most deployments never load it."""
    try:
        from botocore.exceptions import BotoCoreError, ClientError
    except ImportError:
        return ()
    return (BotoCoreError, ClientError)


def stored_file_open(name: str | None) -> IO[bytes]:
    """The stored file, opened for reading through the storage; ``StoredFileMissing`` when
    this process's storage does not have it."""
    if not name or not default_storage.exists(name):
        _missing(name)
    try:
        handle: IO[bytes] = default_storage.open(name, "rb")
    except FileNotFoundError:
        _missing(name)
    return handle


def _missing(name: str | None) -> NoReturn:
    logger.error("stored file %s is not in this process's storage (%s)", name, _where())
    raise StoredFileMissing(name)


def _where() -> str:
    location = getattr(default_storage, "location", None)
    return f"location {location}" if location else type(default_storage).__name__


@contextmanager
def stored_file_local(name: str | None) -> Iterator[Path]:
    """The stored file as a path on this machine, for readers that need one (PDF, zip
    formats): the storage's own path when it keeps files locally, otherwise a temporary
    copy read through ``open``, deleted afterwards. Keeps the file's suffix, by which its
    kind is told."""
    if not name or not default_storage.exists(name):
        _missing(name)
    try:
        local = Path(default_storage.path(name))
    except NotImplementedError:  # a bucket: read it through the storage
        pass
    else:
        yield local
        return
    with stored_file_open(name) as source:
        suffix = PurePosixPath(name).suffix[:20]
        with tempfile.NamedTemporaryFile(prefix="cairn-", suffix=suffix) as copy:
            shutil.copyfileobj(source, copy, length=1024 * 1024)
            copy.flush()
            yield Path(copy.name)


def stored_files_delete(names: Sequence[str | None]) -> None:
    """Delete stored files and, on a local disk, the folders left empty by it: the upload's
    own, and its user's when that was the last (a store that is undone keeps nothing)."""
    for name in names:
        if not name:
            continue
        try:
            default_storage.delete(name)
            _remove_empty_parents(Path(default_storage.path(name)).parent)
        except NotImplementedError:  # a bucket has no folders to remove
            pass
        except OSError:
            logger.warning("could not delete stored file %s", name, exc_info=True)


def _remove_empty_parents(directory: Path) -> None:
    # A folder another upload is being made in is not empty (its UUID folder is made with
    # it), or is made again (AtomicFileSystemStorage._make_directories tries again).
    root = Path(default_storage.path(""))
    while directory != root and directory.is_relative_to(root):
        try:
            directory.rmdir()
        except OSError:  # not empty, or gone already
            return
        directory = directory.parent


class AtomicFileSystemStorage(FileSystemStorage):
    """Files under ``MEDIA_ROOT``, each written under a temporary name in its own folder,
    flushed to the disk and then renamed into place (one atomic step on a POSIX file
    system). Whatever fails half-way, the temporary file and any folder made for it are
    removed, so a full disk never keeps the bytes that filled it."""

    def _save(self, name: str, content: Any) -> str:
        full_path = self.path(name)
        directory = os.path.dirname(full_path)
        created = self._make_directories(directory)
        temporary = os.path.join(directory, f".{secrets.token_hex(8)}.part")
        try:
            self._write(temporary, content)
            # A name taken meanwhile gets another, as FileSystemStorage does; keys carry a
            # UUID, so this only matters to callers that choose their own names.
            while not getattr(self, "_allow_overwrite", False) and os.path.lexists(full_path):
                name = self.get_available_name(name)
                full_path = self.path(name)
            os.replace(temporary, full_path)
            _fsync_directory(directory)
        except BaseException:
            _remove_quietly(temporary)
            for folder in reversed(created):
                _rmdir_quietly(folder)
            raise
        if self.file_permissions_mode is not None:
            os.chmod(full_path, self.file_permissions_mode)
        return os.path.relpath(full_path, self.location).replace("\\", "/")

    def _make_directories(self, directory: str) -> list[str]:
        """The folders made for this file, outermost first. Tried again if a folder is
        removed meanwhile by a delete that found it empty."""
        for _attempt in range(3):
            missing: list[str] = []
            current = directory
            while not os.path.isdir(current) and current != os.path.dirname(current):
                missing.append(current)
                current = os.path.dirname(current)
            missing.reverse()
            try:
                for folder in missing:
                    try:
                        os.mkdir(folder, self.directory_permissions_mode or 0o777)
                    except FileExistsError as error:
                        if not os.path.isdir(folder):
                            raise FileExistsError(
                                f"{folder} exists and is not a folder."
                            ) from error
            except FileNotFoundError:
                continue
            except BaseException:
                for folder in reversed(missing):
                    _rmdir_quietly(folder)
                raise
            return missing
        raise FileNotFoundError(f"could not create {directory}")

    @staticmethod
    def _write(temporary: str, content: Any) -> None:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(descriptor, "wb") as handle:
            for chunk in content.chunks():
                handle.write(chunk if isinstance(chunk, bytes) else chunk.encode())
            handle.flush()
            os.fsync(handle.fileno())


def _fsync_directory(directory: str) -> None:
    """The rename itself survives a power cut."""
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _remove_quietly(path: str) -> None:
    try:
        os.remove(path)
    except FileNotFoundError:
        pass
    except OSError:
        logger.warning("could not remove %s", path, exc_info=True)


def _rmdir_quietly(path: str) -> None:
    with contextlib.suppress(OSError):  # not empty: another upload uses it
        os.rmdir(path)
