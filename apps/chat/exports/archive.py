"""The zip an export comes in, checked before a byte of it is decompressed: its central
directory's size, the names of its members (nothing absolute, no ``..``), the one it must
hold (``conversations.json``), and that member's size, compression ratio (a bomb),
encryption and compression method. Its CRC is checked by zipfile at the end of reading.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO

from django.conf import settings
from django.core.files import File

from .reading import ExportError

MEMBER = "conversations.json"
ZIP_MAGIC = b"PK\x03\x04"
MAX_MEMBERS = 100_000
MAX_DIRECTORY_BYTES = 32 * 1024 * 1024  # zipfile holds the central directory whole
MAX_RATIO = 100  # deflate reaches ~1,000:1 on a bomb; JSON compresses 5 to 20 times
RATIO_FROM_BYTES = 1024 * 1024  # below this a ratio says nothing
METHODS = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA}
DAMAGED = "This zip file is damaged and cannot be opened."


@contextmanager
def open_member(handle: BinaryIO | File) -> Iterator[BinaryIO]:
    """``conversations.json`` of an export: the zip's member, or the file itself."""
    handle.seek(0)
    head = handle.read(4)
    handle.seek(0)
    if head != ZIP_MAGIC:
        yield handle  # type: ignore[misc]  # a Django File reads like one
        return
    _check_directory(handle)
    try:
        archive = zipfile.ZipFile(handle)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as error:
        raise ExportError(DAMAGED) from error
    with archive:
        info = member_info(archive)
        try:
            member = archive.open(info)
        except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError) as error:
            raise ExportError(DAMAGED) from error
        with member:
            yield member  # type: ignore[misc]


def _check_directory(handle: BinaryIO | File) -> None:
    """The central directory's size from its end record, before zipfile reads it whole."""
    end = zipfile._EndRecData(handle)  # type: ignore[attr-defined]
    handle.seek(0)
    if not end:
        raise ExportError(DAMAGED)
    if end[zipfile._ECD_ENTRIES_TOTAL] > MAX_MEMBERS:  # type: ignore[attr-defined]
        raise ExportError(f"This zip holds more than {MAX_MEMBERS:,} files: it is no export.")
    if end[zipfile._ECD_SIZE] > MAX_DIRECTORY_BYTES:  # type: ignore[attr-defined]
        raise ExportError("This zip's list of files is too large: it is no export.")


def _unsafe(name: str) -> bool:
    parts = name.replace("\\", "/").split("/")
    return name.startswith(("/", "\\")) or ":" in parts[0] or ".." in parts


def member_info(archive: zipfile.ZipFile) -> zipfile.ZipInfo:
    """The member to read, or an ExportError saying what is wrong with the zip."""
    infos = archive.infolist()
    for info in infos:
        if _unsafe(info.filename):
            raise ExportError(
                f"This zip holds a file with an unsafe name ({info.filename[:100]!r}): "
                "it is no export."
            )
    total = sum(info.file_size for info in infos)
    limit = settings.CAIRN_IMPORT_MAX_UNCOMPRESSED_BYTES
    if total > limit:
        raise ExportError(
            f"This zip unpacks to more than {limit // (1024 * 1024)} MB; exports up to that "
            "are accepted."
        )
    members = [info for info in infos if info.filename.split("/")[-1] == MEMBER]
    if not members:
        raise ExportError(
            "This zip has no conversations.json: upload the zip that ChatGPT or Claude "
            "e-mailed you (Settings → Data controls → Export data)."
        )
    info = min(members, key=lambda member: member.filename.count("/"))
    if info.flag_bits & 0x1:
        raise ExportError(
            "conversations.json in this zip is encrypted: export again without a password."
        )
    if info.compress_type not in METHODS:
        raise ExportError(
            f"conversations.json in this zip is compressed with a method Cairn cannot read "
            f"(method {info.compress_type})."
        )
    if info.file_size > RATIO_FROM_BYTES and info.file_size > MAX_RATIO * max(
        info.compress_size, 1
    ):
        raise ExportError(
            "conversations.json in this zip unpacks to more than "
            f"{MAX_RATIO} times its size: it looks like a zip bomb, not an export."
        )
    return info
