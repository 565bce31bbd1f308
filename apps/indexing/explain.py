"""Why a file was skipped or failed, in words a person acts on (issue 18).

The extractors record a technical reason ("not a readable PDF (PDFium: Data format
error)"); that stays available as the detail, for whoever has to dig, while the Files pages
lead with what happened and what to do about it. The reasons are Cairn's own (written in
``extract/`` and ``services/documents.py``), so matching their wording here is matching a
known, small set; anything unrecognised still gets a sensible general sentence.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from .extract.kinds import unreadable_kind
from .models import Document, DocumentStatus

UPLOAD_INSTEAD = (
    "To make its contents searchable, save it as PDF, Word (.docx) or plain text and "
    "upload that file."
)


@dataclass(frozen=True)
class Explanation:
    summary: str  # what happened, in plain words
    advice: str  # what the person can do about it
    detail: str  # the technical reason, shown on request
    can_reindex: bool  # whether indexing the same file again could ever change anything


def _suffix(name: str) -> str:
    return PurePosixPath(name).suffix.lower() or "no extension"


def reindex_refusal(document: Document) -> str | None:
    """Why re-indexing ``document`` is pointless (its kind is never read), or None."""
    kind = unreadable_kind(document.path)
    if kind is None:
        return None
    suffix = _suffix(document.path)
    return f"Cairn does not read this kind of file ({suffix}), so it cannot be indexed."


def explain_document(document: Document) -> Explanation | None:
    """The explanation of a skipped or failed document; None for any other status."""
    if document.status not in (DocumentStatus.SKIPPED, DocumentStatus.FAILED):
        return None
    detail = document.error or ""
    reason = detail.lower()
    suffix = _suffix(document.path)
    if unreadable_kind(document.path) is not None:
        return Explanation(
            f"Cairn does not read this kind of file ({suffix}). It is kept here, but the chat "
            "cannot search or cite it.",
            UPLOAD_INSTEAD,
            detail,
            can_reindex=False,
        )
    summary, advice = _words_for(reason, suffix)
    return Explanation(summary, advice, detail, can_reindex=True)


def _words_for(reason: str, suffix: str) -> tuple[str, str]:
    if "not in this worker's storage" in reason:  # apps/core/storage.py NOT_IN_STORAGE
        return (
            "The server's background worker cannot see the stored file: it does not share "
            "its file storage with the web server.",
            "An administrator must give both the same MEDIA_ROOT or STORAGE_URL; then use "
            "Re-index.",
        )
    if "password-protected" in reason:
        return (
            "This PDF is protected by a password, so Cairn cannot open it.",
            "Open it, save a copy without the password, and upload the new file.",
        )
    if "no text layer" in reason:
        return (
            "This PDF holds only pictures of pages (a scan), and Cairn cannot read text "
            "from pictures.",
            "Run it through text recognition (OCR) in a PDF or scanner program, then upload "
            "the new file.",
        )
    if "pdf" in reason and ("not a readable" in reason or "unreadable" in reason):
        return (
            "This PDF could not be read — it may be damaged or password-protected.",
            "Try saving it again as PDF and upload the new file.",
        )
    if "expand" in reason or "decompress" in reason:
        return (
            "This file unpacks to far more data than any real document, so Cairn stopped "
            "reading it.",
            "If it is a genuine document, save it again from the program that made it and "
            "upload the new file.",
        )
    if "limit for indexing" in reason:
        return (
            "This file is larger than Cairn indexes.",
            "Split it into smaller files and upload those.",
        )
    if "binary content" in reason:
        return (
            f"This file is named as {suffix} but does not contain text.",
            "Check that it is the file you meant, or upload it with its real extension.",
        )
    if "empty" in reason:
        return (
            "This file has no text in it, so there is nothing to search.",
            "If it should have text, open it, save it again and upload the new file.",
        )
    if "not a readable" in reason or "not a valid" in reason or "is missing" in reason:
        return (
            f"This {suffix} file could not be read — it may be damaged, or not really a "
            f"{suffix} file.",
            "Open it in the program that made it, save it again, and upload the new file.",
        )
    if "no longer exists" in reason or "cannot be read" in reason or "refused" in reason:
        return (
            "Cairn could not open the stored file.",
            "Delete it here and upload it again.",
        )
    if "not indexed" in reason or "unknown file type" in reason or "without an extension" in reason:
        return ("Cairn does not read this kind of file.", UPLOAD_INSTEAD)
    if "attempt" in reason or "failed" in reason:
        return (
            "Indexing stopped on an error on the server.",
            "Try Re-index; if it fails again, an administrator can find the detail in the "
            "server's log.",
        )
    return (
        "Cairn could not index this file.",
        "Try Re-index; if that does not help, save the file again and upload the new one.",
    )
