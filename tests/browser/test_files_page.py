"""The Files page in Chromium: drag and drop uploads, and progress bars that update without
a reload (``static/js/files.js``)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from playwright.sync_api import Page, expect

from apps.indexing.models import Document, DocumentStatus, Source, SourceKind, SourceStatus
from apps.projects.services import project_ensure_personal
from tests.browser.helpers import DESKTOP, PHONE, assert_fits_width, log_in
from tests.indexing.conftest import fake_provider  # noqa: F401 - fixture

pytestmark = [
    pytest.mark.browser,
    pytest.mark.usefixtures("fake_provider", "media_root", "static_files"),
]


@pytest.fixture
def static_files(page: Page) -> None:
    """Serve /static/ from the source tree: the test server runs without collectstatic."""
    root = Path(settings.BASE_DIR) / "static"

    def fulfil(route: Any) -> None:
        relative = route.request.url.split("/static/", 1)[1].split("?", 1)[0]
        path = (root / relative).resolve()
        if path.is_relative_to(root) and path.is_file():
            route.fulfill(path=str(path))
        else:
            route.fulfill(status=404)

    page.route(re.compile(r".*/static/.*"), fulfil)


def test_drop_files_to_upload_them(page: Page, server: str, shot: Any) -> None:
    log_in(page, server, email="files@example.com")
    page.goto(f"{server}/files/")
    shot("empty")

    page.locator("[data-drop-zone]").evaluate("""zone => {
        const files = new DataTransfer();
        files.items.add(new File(["Glaciers retreat every summer."], "glaciers.txt"));
        files.items.add(new File(["# Volcanoes\\n\\nThey erupt."], "volcanoes.md"));
        zone.dispatchEvent(new DragEvent("drop", {dataTransfer: files, bubbles: true}));
    }""")

    expect(page.get_by_text("2 files uploaded")).to_be_visible()
    expect(page.get_by_role("link", name="glaciers.txt", exact=True)).to_be_visible()
    expect(page.locator("[data-progress-count]")).to_have_text("2 files: 2 indexed")
    assert set(Document.objects.values_list("status", flat=True)) == {DocumentStatus.INDEXED}
    shot("uploaded")


def test_progress_updates_without_a_reload(page: Page, server: str, shot: Any) -> None:
    user = log_in(page, server, email="files@example.com")
    project = project_ensure_personal(user=user)
    source = Source.objects.create(
        project=project,
        kind=SourceKind.UPLOAD,
        name="Uploads",
        status=SourceStatus.INDEXING,
        progress_total=2,
    )
    Document.objects.create(source=source, path="first.txt", status=DocumentStatus.INDEXING)
    page.goto(f"{server}/files/")
    expect(page.locator("[data-progress-count]")).to_have_text("0 / 2")
    expect(page.locator("[data-reload-link]")).to_be_hidden()
    shot("running")

    # The worker finishes (in another process: no event reaches this page's channel
    # layer, so the page re-reads the card by itself).
    Document.objects.filter(source=source).update(status=DocumentStatus.INDEXED, chunk_count=3)
    Source.objects.filter(pk=source.pk).update(status=SourceStatus.READY, progress_done=2)

    expect(page.locator("[data-progress-status]")).to_have_text("Up to date", timeout=10_000)
    expect(page.locator("[data-progress-count]")).to_have_text("1 file: 1 indexed")
    expect(page.locator("tr", has_text="first.txt")).to_contain_text(re.compile("Indexed"))
    shot("finished")


def _drop(page: Page, files: str) -> None:
    page.locator("[data-drop-zone]").evaluate(
        "zone => { const files = new DataTransfer();"
        + files
        + """
        zone.dispatchEvent(new DragEvent("drop", {dataTransfer: files, bubbles: true})); }"""
    )


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_files_explained_opened_and_downloaded(
    page: Page, server: str, shot: Any, viewport: dict[str, int]
) -> None:
    page.set_viewport_size(viewport)
    log_in(page, server, email="files@example.com")
    page.goto(f"{server}/files/")
    _drop(
        page,
        """
        files.items.add(new File(["Glaciers retreat every summer."], "glaciers.txt"));
        files.items.add(new File(["Volcanoes erupt."], "volcanoes.md"));
        files.items.add(new File(["%PDF-1.4 this is not really a PDF"], "broken.pdf"));
        files.items.add(new File(["MZ not a real program"], "setup.exe"));
        """,
    )
    expect(page.get_by_text("4 files uploaded")).to_be_visible()
    rows = page.locator("tr[data-document-id]")
    expect(rows).to_have_count(4)
    # The header counts the rows shown, not the last run's progress.
    expect(page.locator("[data-progress-count]")).to_have_text(
        "4 files: 2 indexed, 1 failed, 1 skipped"
    )
    assert_fits_width(page)
    shot("files-list")

    pdf = page.locator("tr", has_text="broken.pdf")
    expect(pdf).to_contain_text(
        "This PDF could not be read — it may be damaged or password-protected."
    )
    expect(pdf).to_contain_text("Try saving it again as PDF and upload the new file.")
    expect(pdf.get_by_text("PDFium")).to_be_hidden()  # the detail waits in a <details>
    pdf.get_by_text("Technical detail").click()
    expect(pdf.get_by_text(re.compile("PDFium"))).to_be_visible()
    expect(pdf.get_by_role("button", name="Re-index broken.pdf")).to_be_visible()

    exe = page.locator("tr", has_text="setup.exe")
    expect(exe).to_contain_text("Cairn does not read this kind of file (.exe)")
    expect(exe.get_by_role("button", name=re.compile("Re-index"))).to_have_count(0)

    glaciers = page.locator("tr", has_text="glaciers.txt")
    with page.expect_download() as download:
        glaciers.get_by_role("link", name="Download glaciers.txt").click()
    assert download.value.suggested_filename == "glaciers.txt"
    with page.context.expect_page() as opened:
        glaciers.get_by_role("link", name="Open glaciers.txt").click()
    expect(opened.value.locator("body")).to_contain_text("Glaciers retreat every summer.")
    opened.value.close()
    shot("files-explained")

    glaciers.get_by_role("link", name="glaciers.txt", exact=True).click()
    expect(page.get_by_role("link", name="Open", exact=True)).to_be_visible()
    expect(page.get_by_role("link", name="Download", exact=True)).to_be_visible()
    assert_fits_width(page)
    shot("document")

    page.goto(f"{server}/files/")
    page.locator("tr", has_text="setup.exe").get_by_role(
        "link", name="setup.exe", exact=True
    ).click()
    expect(page.locator("[data-explanation]")).to_contain_text("(.exe)")
    expect(page.get_by_role("button", name="Re-index")).to_have_count(0)
    assert_fits_width(page)
    shot("document-skipped")
