"""Users' files through the storage API (issue 26): keys no two uploads share, writes that
never leave half a file, and STORAGE_URL."""

from __future__ import annotations

import errno
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.files.base import ContentFile, File
from django.core.files.storage import default_storage

from apps.core.storage import (
    NO_ROOM,
    NOT_IN_STORAGE,
    READ_ONLY,
    AtomicFileSystemStorage,
    StorageUnavailable,
    StoredFileMissing,
    storage_writing,
    stored_file_local,
    stored_file_open,
    upload_key,
)
from config.storage_url import LOCAL_BACKEND, S3_BACKEND, StorageUrlError, storage_from_url


def _files(root: Path) -> list[Path]:
    return [path for path in root.rglob("*") if path.is_file()] if root.exists() else []


class BreaksMidway(File):  # type: ignore[type-arg]
    """Content whose reading fails after its first megabyte, as a dropped upload or a
    process killed mid-write would."""

    def __init__(self) -> None:
        super().__init__(None, name="big.txt")

    def chunks(self, chunk_size: int | None = None) -> Iterator[bytes]:
        yield b"x" * 1024 * 1024
        raise ConnectionResetError("the client went away")


def test_the_same_name_uploaded_twice_gets_two_keys_under_the_users_folder() -> None:
    first = upload_key(kind="imports", user_id=7, name="conversations.json")
    second = upload_key(kind="imports", user_id=7, name="conversations.json")

    assert first != second
    assert re.fullmatch(r"imports/7/[0-9a-f]{32}/conversations\.json", first)
    assert upload_key(kind="uploads", user_id=7, name="../../etc/passwd").endswith("/passwd")


def test_a_write_cut_short_leaves_no_file_no_temporary_and_no_folder(media_root: Path) -> None:
    key = upload_key(kind="uploads", user_id=1, name="big.txt")

    with pytest.raises(ConnectionResetError):
        default_storage.save(key, BreaksMidway())

    assert _files(media_root) == []
    assert not (media_root / "uploads").exists()


def test_a_finished_write_is_in_place_and_its_temporary_is_gone(media_root: Path) -> None:
    key = upload_key(kind="uploads", user_id=1, name="notes.txt")

    name = default_storage.save(key, ContentFile(b"Harbour notes"))

    assert isinstance(default_storage._wrapped, AtomicFileSystemStorage)  # type: ignore[attr-defined]
    assert name == key
    assert _files(media_root) == [media_root / key]
    assert (media_root / key).read_bytes() == b"Harbour notes"


def test_a_taken_name_gets_another_rather_than_overwriting(media_root: Path) -> None:
    first = default_storage.save("notes/a.txt", ContentFile(b"one"))
    second = default_storage.save("notes/a.txt", ContentFile(b"two"))

    assert first != second
    assert (media_root / first).read_bytes() == b"one"
    assert (media_root / second).read_bytes() == b"two"


@pytest.mark.parametrize(
    ("code", "words"),
    [
        (errno.ENOSPC, NO_ROOM),
        (errno.EDQUOT, NO_ROOM),
        (errno.EROFS, READ_ONLY),
        (errno.EACCES, READ_ONLY),  # a folder the server may not write in
    ],
)
def test_a_disk_that_cannot_take_a_file_is_the_file_fields_error(code: int, words: str) -> None:
    with pytest.raises(StorageUnavailable) as caught, storage_writing():
        raise OSError(code, "refused")

    assert caught.value.message_dict == {"file": [words]}
    assert caught.value.status_code == 507


def test_other_errors_pass_through_unchanged() -> None:
    with pytest.raises(ConnectionResetError), storage_writing():
        raise ConnectionResetError("the client went away")


def test_a_file_this_storage_lacks_says_so_in_words(media_root: Path) -> None:
    with pytest.raises(StoredFileMissing) as opened:
        stored_file_open("imports/1/0123/conversations.json")
    with pytest.raises(StoredFileMissing), stored_file_local("uploads/1/0123/notes.txt"):
        pass

    assert str(opened.value) == NOT_IN_STORAGE
    assert "MEDIA_ROOT or STORAGE_URL" in NOT_IN_STORAGE


def test_storage_url_unset_is_the_local_folder_and_s3_a_bucket() -> None:
    s3 = storage_from_url("s3://cairn-files?endpoint_url=http://minio:9000&region_name=eu-west-1")

    assert storage_from_url("") == {"BACKEND": LOCAL_BACKEND}
    assert s3["BACKEND"] == S3_BACKEND
    assert s3["OPTIONS"]["bucket_name"] == "cairn-files"
    assert s3["OPTIONS"]["endpoint_url"] == "http://minio:9000"
    assert s3["OPTIONS"]["region_name"] == "eu-west-1"
    assert s3["OPTIONS"]["file_overwrite"] is False


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("ftp://files.example", "must be s3://"),
        ("s3://key:secret@bucket", "AWS_ACCESS_KEY_ID"),
        ("s3://?endpoint_url=http://x", "names no bucket"),
        ("s3://bucket?endpoint=http://x", "unknown option 'endpoint'"),
    ],
)
def test_a_storage_url_cairn_cannot_use_is_refused_in_words(url: str, words: str) -> None:
    with pytest.raises(StorageUrlError, match=re.escape(words)):
        storage_from_url(url)
