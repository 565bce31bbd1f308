"""The check an upload passes before it is kept: the zip (``archive``), the whole of
``conversations.json`` read once through zipfile's CRC check without being held, and the
shape of its first conversation, so that a foreign or damaged file is a 400 naming
``file`` with the reason, never a queued import that then fails."""

from __future__ import annotations

import zipfile
import zlib

from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile

from .archive import open_member
from .parse import SkippedConversation, conversation_read
from .reading import BAD_CHECKSUM, READ_BYTES, ExportError
from .stream import ItemStream


def upload_check(upload: UploadedFile) -> None:
    """A ValidationError on ``file`` unless the upload reads as an export."""
    try:
        _check(upload)
    except ExportError as error:
        raise ValidationError({"file": str(error)}) from error
    finally:
        upload.seek(0)


def _check(upload: UploadedFile) -> None:
    with open_member(upload) as stream:  # type: ignore[arg-type]
        items = iter(ItemStream(stream))
        raw = next(items, None)
        first = conversation_read(raw) if raw is not None else None
        if first is None:
            raise ExportError("This export holds no conversations.")
        if isinstance(first, SkippedConversation) and first.kind == "shape":
            raise ExportError(f"This is not a ChatGPT or Claude export: {first.describe()}.")
        if stream is upload:
            return
        try:
            while stream.read(READ_BYTES * 16):
                pass  # zipfile compares the CRC at the end
        except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as error:
            raise ExportError(BAD_CHECKSUM) from error
