"""Refuse zip-based documents (docx, xlsx, pptx, epub) that would unpack to absurd sizes.

Only the sizes declared in the zip's central directory are read, before any parser opens
the file. That is enough: python-docx, openpyxl, python-pptx and the EPUB reader all read
through ``zipfile``, which stops each member at its declared size, so a member that lies
about its size cannot expand past it.
"""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

from .errors import CorruptFile, DecompressionBomb

MAX_UNCOMPRESSED_BYTES = 200 * 1024 * 1024
MAX_MEMBERS = 10_000
# Office XML compresses 5-20 times; zip bombs compress hundreds or thousands of times.
# Small members may compress hard (a sheet of blanks), so the ratio applies above a floor.
MAX_RATIO = 100
RATIO_FLOOR_BYTES = 10 * 1024 * 1024


def check_zip_container(
    path: Path, *, what: str, max_uncompressed_bytes: int | None = None
) -> None:
    """Raise ``CorruptFile`` if ``path`` is not a zip, ``DecompressionBomb`` if it would
    unpack beyond the limits (by default ``MAX_UNCOMPRESSED_BYTES``); ``what`` names the
    format in the messages."""
    if max_uncompressed_bytes is None:
        max_uncompressed_bytes = MAX_UNCOMPRESSED_BYTES
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        NotImplementedError,  # a zip version or feature zipfile cannot read
        EOFError,
        ValueError,
        struct.error,
    ) as exc:
        raise CorruptFile(f"not a valid {what} file: its zip container is unreadable") from exc
    if len(members) > MAX_MEMBERS:
        raise DecompressionBomb(
            f"{what} file holds {len(members):,} parts (limit {MAX_MEMBERS:,}); not opened"
        )
    total = sum(member.file_size for member in members)
    if total > max_uncompressed_bytes:
        raise DecompressionBomb(
            f"{what} file would unpack to {format_bytes(total)}, over the "
            f"{format_bytes(max_uncompressed_bytes)} limit; not opened"
        )
    for member in members:
        ratio = member.file_size / max(member.compress_size, 1)
        if member.file_size > RATIO_FLOOR_BYTES and ratio > MAX_RATIO:
            raise DecompressionBomb(
                f"{what} file part {member.filename!r} is compressed {ratio:,.0f} to 1 "
                f"(limit {MAX_RATIO} to 1), a decompression bomb; not opened"
            )


def format_bytes(size: int) -> str:
    if size < 1024:
        return f"{size:,} bytes"
    value = size / 1024
    for unit in ("KB", "MB"):
        if value < 1024:
            return f"{value:,.1f} {unit}"
        value /= 1024
    return f"{value:,.1f} GB"
