"""A named period finds that period's files as well as its turns (issue 28): a receipt
headed "18 May 2024" answers "what did I buy in May 2024?", whenever it was uploaded; a
file that tells no date is in no period, and "today" in a file is not read as a date."""

from __future__ import annotations

import os
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from apps.accounts.models import User
from apps.indexing.extract import extract_text
from apps.indexing.extract.dates import head_date, pdf_date
from apps.indexing.models import Chunk, Document
from apps.indexing.search import evidence_search, hybrid_search
from apps.indexing.services import (
    documents_index,
    documents_upload,
    folder_scan,
    source_create_folder,
)
from apps.projects.models import Project
from tests.indexing.conftest import Committed, upload

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("real_provider", "media_root")]

RECEIPT = "Kitchen Corner receipt\nDate: 18 May 2024\n\n1 × cast-iron bread pan, 34.90 EUR\n"
JUNE_NOTE = "# 2 June 2024\n\nPlanted tomatoes and basil on the balcony.\n"
UNDATED = "Router notes\n\nThe router forwards DNS to the Pi-hole.\n"


def test_the_head_of_a_file_tells_its_date() -> None:
    assert head_date(RECEIPT).date() == date(2024, 5, 18)  # type: ignore[union-attr]
    assert head_date("2024-05-18 notes\nbread pan").date() == date(2024, 5, 18)  # type: ignore[union-attr]
    assert head_date("Budget for May 2024\n…").date() == date(2024, 5, 1)  # type: ignore[union-attr]


def test_words_that_name_no_written_date_are_not_read_as_one() -> None:
    assert head_date(UNDATED) is None
    assert head_date("Bought it today, what a day") is None  # read against today: no
    assert head_date("Things I learned in 2023") is None  # a year is a topic, not a date
    # A date deep in a long file is what it tells about, not when it was written.
    assert head_date("x " * 400 + "on 18 May 2024") is None


def test_a_pdf_date_is_read_with_its_offset() -> None:
    assert pdf_date("D:20240518103000+02'00'") == datetime(
        2024, 5, 18, 10, 30, tzinfo=timezone(timedelta(hours=2))
    )
    assert pdf_date("D:20240518") == datetime(2024, 5, 18, tzinfo=UTC)
    assert pdf_date("D:2024") == datetime(2024, 1, 1, tzinfo=UTC)
    assert pdf_date("yesterday") is None
    assert pdf_date("D:20241399") is None  # no 13th month
    assert pdf_date(None) is None


def test_extracting_a_file_reads_its_date(tmp_path: Path) -> None:
    path = tmp_path / "receipt.txt"
    path.write_text(RECEIPT)
    assert extract_text(path).written_at.date() == date(2024, 5, 18)  # type: ignore[union-attr]
    path.write_text(UNDATED)
    assert extract_text(path).written_at is None


def _uploaded(project: Project, committed: Committed) -> dict[str, Document]:
    with committed():
        documents_upload(
            project=project,
            files=[
                upload("receipt.txt", RECEIPT),
                upload("garden.md", JUNE_NOTE),
                upload("router.txt", UNDATED),
            ],
        )
    return {document.path: document for document in Document.objects.all()}


def test_an_uploaded_file_carries_the_date_it_tells(
    user: User, project: Project, committed: Committed
) -> None:
    documents = _uploaded(project, committed)

    receipt = documents["receipt.txt"]
    assert receipt.dated_at is not None
    assert receipt.dated_at.date() == date(2024, 5, 18)
    assert {c.said_at for c in Chunk.objects.filter(document=receipt)} == {receipt.dated_at}
    # An upload's own time says nothing of when its text was written.
    assert documents["router.txt"].dated_at is None
    assert not Chunk.objects.filter(document=documents["router.txt"], said_at__isnull=False)


def test_a_named_month_finds_that_months_file(
    user: User, project: Project, committed: Committed
) -> None:
    documents = _uploaded(project, committed)

    hits = evidence_search(user=user, query="What did I buy in May 2024?", k=5)

    assert hits[0].document_id == documents["receipt.txt"].pk
    assert hits[0].in_period
    assert not any(hit.in_period for hit in hits[1:])
    june = hybrid_search(user=user, query="What did I do in June 2024?", k=3)
    assert june[0].document_id == documents["garden.md"].pk
    assert june[0].in_period


def test_a_folders_file_without_a_date_is_dated_by_its_modified_time(
    user: User, project: Project, tmp_path: Path, settings: object
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "router.txt").write_text(UNDATED)
    modified = datetime(2024, 5, 9, 12, 0, tzinfo=UTC).timestamp()
    os.utime(folder / "router.txt", (modified, modified))
    user.is_staff = True
    user.save()
    settings.CAIRN_FOLDER_ROOTS = [str(tmp_path)]  # type: ignore[attr-defined]
    source = source_create_folder(user=user, project=project, root_path=str(folder))
    documents_index(document_ids=folder_scan(source=source).to_index)

    document = Document.objects.get(source=source)
    assert document.dated_at == datetime(2024, 5, 9, 12, 0, tzinfo=UTC)
    hits = evidence_search(user=user, query="What did I write about the Pi-hole in May 2024?")
    assert hits[0].document_id == document.pk
    assert hits[0].in_period
