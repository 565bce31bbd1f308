"""Text layer of a PDF, page by page, through PDFium (pypdfium2)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from .dates import pdf_date
from .errors import CorruptFile, NoTextLayer, UnsupportedFileType
from .kinds import ExtractedText, FileKind
from .text import normalise_whitespace

# PDFium is not thread-safe and pypdfium2 does not serialise calls into it.
_PDFIUM_LOCK = threading.Lock()

if TYPE_CHECKING:
    from pypdfium2 import PdfDocument


def extract_pdf(path: Path) -> ExtractedText:
    """Pages separated by a blank line. ``NoTextLayer`` when no page has any text (a scan),
    ``UnsupportedFileType`` when the PDF needs a password, ``CorruptFile`` when PDFium
    cannot read it."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    with _PDFIUM_LOCK:
        try:
            document = pdfium.PdfDocument(path)
        except pdfium.PdfiumError as exc:
            if getattr(exc, "err_code", None) == pdfium_c.FPDF_ERR_PASSWORD:
                raise UnsupportedFileType("the PDF is password-protected") from exc
            raise CorruptFile(f"not a readable PDF ({exc})") from exc
        try:
            pages = [_page_text(document, index) for index in range(len(document))]
            title = (document.get_metadata_value("Title") or "").strip() or None
            created = pdf_date(document.get_metadata_value("CreationDate"))
        except pdfium.PdfiumError as exc:
            raise CorruptFile(f"PDF page unreadable ({exc})") from exc
        finally:
            document.close()

    if pages and not any(page.strip() for page in pages):
        raise NoTextLayer(
            f"the PDF's {len(pages)} page(s) carry no text layer (a scan or images); "
            "text recognition (OCR) is not available"
        )
    text = normalise_whitespace("\n\n".join(pages))
    return ExtractedText(text, FileKind.PDF, title=title, page_count=len(pages), written_at=created)


def _page_text(document: PdfDocument, index: int) -> str:
    page = document[index]
    try:
        textpage = page.get_textpage()
        try:
            return str(textpage.get_text_range())
        finally:
            textpage.close()
    finally:
        page.close()
