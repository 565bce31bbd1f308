"""Text extraction from files, offline and with typed, readable failures (DESIGN §1, §6).

``extract_text(path)`` returns an ``ExtractedText`` or raises an ``ExtractionError``:

- ``UnsupportedFileType`` (and its ``BinaryContent``), ``FileTooLarge``, ``NoTextLayer``:
  the file is skipped, the reason recorded (``error.skipped`` is true);
- ``CorruptFile`` (and its ``DecompressionBomb``): the file failed, with a readable message.

An empty file yields empty text, which the caller records as skipped. A file that vanished
or cannot be opened raises ``OSError`` (``FileNotFoundError``, ``PermissionError``) as
usual: that is about the path, not the content.

For plain kinds (text, markdown, JSON, CSV, code) the text is the decoded file with ``\\n``
line ends, so chunk offsets point into the file as a reader sees it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from .dates import head_date
from .epub import extract_epub
from .errors import (
    BinaryContent,
    CorruptFile,
    DecompressionBomb,
    ExtractionError,
    FileTooLarge,
    NoTextLayer,
    UnsupportedFileType,
)
from .kinds import PLAIN_KINDS, ExtractedText, FileKind, detect_kind
from .mail import email_to_text
from .markup import html_to_text
from .text import decode_text, looks_like_text
from .zipguard import check_zip_container, format_bytes

__all__ = [
    "DEFAULT_MAX_BYTES",
    "BinaryContent",
    "CorruptFile",
    "DecompressionBomb",
    "ExtractedText",
    "ExtractionError",
    "FileKind",
    "FileTooLarge",
    "NoTextLayer",
    "UnsupportedFileType",
    "detect_kind",
    "extract_text",
]

DEFAULT_MAX_BYTES = 100 * 1024 * 1024

_ZIP_FORMATS = {
    FileKind.DOCX: "Word (.docx)",
    FileKind.XLSX: "Excel (.xlsx)",
    FileKind.PPTX: "PowerPoint (.pptx)",
    FileKind.EPUB: "EPUB",
}


def extract_text(
    path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES, kind: FileKind | None = None
) -> ExtractedText:
    """The text of the file at ``path``.

    ``kind`` overrides detection, for a file stored under a name other than its own (an
    upload); by default it is ``detect_kind(path)``.
    """
    kind = kind or detect_kind(path)
    size = path.stat().st_size
    if size > max_bytes:
        raise FileTooLarge(
            f"{format_bytes(size)} is over the {format_bytes(max_bytes)} limit for indexing"
        )
    if size == 0:
        return ExtractedText("", kind)
    format_name = _ZIP_FORMATS.get(kind)
    if format_name is not None:
        check_zip_container(path, what=format_name)
    try:
        extracted = _extractor(kind)(path)
    except (ExtractionError, FileNotFoundError, PermissionError, IsADirectoryError):
        raise  # the last three describe the path, not the content: the caller decides
    except Exception as exc:
        # The document libraries signal malformed input with a wide range of exception
        # types (KeyError, ValueError, OSError from a seek to a bogus offset, lxml and
        # zipfile errors, …); each means the same thing here: this file cannot be read as
        # the format it claims.
        raise CorruptFile(f"not a readable {kind.value} file ({_describe(exc)})") from exc
    # PostgreSQL text cannot hold NUL characters.
    text = extracted.text.replace("\x00", "")
    # A date written at the file's head is the writer's; metadata is a program's guess.
    return replace(extracted, text=text, written_at=head_date(text) or extracted.written_at)


def _extractor(kind: FileKind) -> Callable[[Path], ExtractedText]:
    if kind in PLAIN_KINDS:
        return lambda path: ExtractedText(decode_text(path.read_bytes()), kind)
    if kind is FileKind.HTML:
        return _extract_html
    if kind is FileKind.EML:
        return _extract_eml
    if kind is FileKind.EPUB:
        return extract_epub
    # Imported only when needed, so that indexing text files never loads PDFium or lxml.
    if kind is FileKind.PDF:
        from .pdf import extract_pdf

        return extract_pdf
    from . import office

    extractors = {
        FileKind.DOCX: office.extract_docx,
        FileKind.XLSX: office.extract_xlsx,
        FileKind.PPTX: office.extract_pptx,
    }
    return extractors[kind]


def _extract_html(path: Path) -> ExtractedText:
    text, title = html_to_text(decode_text(path.read_bytes()))
    return ExtractedText(text, FileKind.HTML, title=title)


def _extract_eml(path: Path) -> ExtractedText:
    data = path.read_bytes()
    if not looks_like_text(data[:8192]):
        raise BinaryContent("binary content in a file named as an e-mail (.eml)")
    text, subject = email_to_text(data)
    return ExtractedText(text, FileKind.EML, title=subject)


def _describe(exc: Exception) -> str:
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    name = type(exc).__name__
    return f"{name}: {message[:200]}" if message else name
