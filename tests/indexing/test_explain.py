"""Skipped and failed files explained in plain words, the technical reason kept (issue 18)."""

from __future__ import annotations

import pytest

from apps.core.storage import NOT_IN_STORAGE
from apps.indexing.explain import explain_document, reindex_refusal
from apps.indexing.models import Document, DocumentStatus


def _document(path: str, status: str, error: str = "") -> Document:
    return Document(path=path, status=status, error=error)


def test_a_broken_pdf_is_explained_with_what_to_do() -> None:
    detail = "not a readable PDF (Failed to load document (PDFium: Data format error).)"

    explanation = explain_document(_document("report.pdf", DocumentStatus.FAILED, detail))

    assert explanation is not None
    assert explanation.summary == (
        "This PDF could not be read — it may be damaged or password-protected."
    )
    assert explanation.advice == "Try saving it again as PDF and upload the new file."
    assert explanation.detail == detail
    assert explanation.can_reindex is True


def test_a_program_file_is_a_kind_cairn_does_not_read_and_offers_no_reindex() -> None:
    document = _document(
        "setup.exe", DocumentStatus.SKIPPED, "executable or binary files are not indexed (.exe)"
    )

    explanation = explain_document(document)

    assert explanation is not None
    assert explanation.summary.startswith("Cairn does not read this kind of file (.exe).")
    assert "upload" in explanation.advice
    assert explanation.can_reindex is False
    assert reindex_refusal(document) is not None


@pytest.mark.parametrize(
    ("error", "words"),
    [
        ("the PDF is password-protected", "protected by a password"),
        ("the PDF's 3 page(s) carry no text layer (a scan or images)", "(a scan)"),
        ("12.0 MB is over the 10.0 MB limit for indexing", "larger than Cairn indexes"),
        ("no text to index (empty)", "no text in it"),
        ("not a readable docx file (BadZipFile: bad)", "could not be read"),
        ("the file no longer exists", "could not open the stored file"),
        (NOT_IN_STORAGE, "does not share its file storage"),
        ("indexing failed 3 times: boom", "error on the server"),
    ],
)
def test_each_known_reason_reads_as_plain_words(error: str, words: str) -> None:
    path = "notes.pdf" if "PDF" in error else "notes.docx"

    explanation = explain_document(_document(path, DocumentStatus.FAILED, error))

    assert explanation is not None
    assert words in explanation.summary
    assert explanation.detail == error


def test_indexed_and_readable_files_need_no_explanation_and_may_be_reindexed() -> None:
    document = _document("notes.md", DocumentStatus.INDEXED)

    assert explain_document(document) is None
    assert reindex_refusal(document) is None
    assert reindex_refusal(_document("Makefile", DocumentStatus.SKIPPED)) is None
