"""Why a file yields no text. Each error has a stable ``code`` that callers record and tests
assert on; ``skipped`` tells whether the file is skipped (nothing is wrong with it, Cairn
just does not index it) or failed (the file is broken)."""

from __future__ import annotations

from typing import ClassVar


class ExtractionError(Exception):
    code: ClassVar[str] = "extraction_error"
    skipped: ClassVar[bool] = False

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class UnsupportedFileType(ExtractionError):
    """Audio, video, archives, executables, images, unknown or legacy formats."""

    code = "unsupported"
    skipped = True


class BinaryContent(UnsupportedFileType):
    """A file named like text whose bytes are not text."""

    code = "binary_content"


class FileTooLarge(ExtractionError):
    code = "too_large"
    skipped = True


class NoTextLayer(ExtractionError):
    """A PDF whose pages carry no text (scanned or image-only); there is no OCR."""

    code = "no_text_layer"
    skipped = True


class CorruptFile(ExtractionError):
    """The file claims a format but cannot be read as it."""

    code = "corrupt"


class DecompressionBomb(CorruptFile):
    """A zip-based document that would expand far beyond any real document."""

    code = "decompression_bomb"
