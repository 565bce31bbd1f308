"""Uploaded originals: only for their owner, never run in the site's origin (issue 15)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.indexing.models import Document
from apps.indexing.services import documents_upload
from apps.projects.models import Project
from tests.indexing.conftest import fake_provider, upload  # noqa: F401 - fixture

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fake_provider", "media_root")]

SCRIPT_PAGE = "<html><body><script>fetch('/api/ui/me')</script></body></html>"


def _stored(project: Project, name: str, content: str) -> Document:
    (result,) = documents_upload(project=project, files=[upload(name, content)])
    return result.document


@pytest.fixture
def owner_client(client: Client, user: User) -> Client:
    client.force_login(user)
    return client


def test_the_owner_opens_a_text_file_and_downloads_any_file(
    owner_client: Client, project: Project
) -> None:
    notes = _stored(project, "notes.txt", "Harbour notes")

    shown = owner_client.get(f"/files/documents/{notes.pk}/original/")
    downloaded = owner_client.get(f"/files/documents/{notes.pk}/original/", {"download": "1"})

    assert shown.status_code == 200
    assert b"".join(shown.streaming_content) == b"Harbour notes"  # type: ignore[attr-defined]
    assert shown["Content-Type"] == "text/plain"
    assert shown["Content-Disposition"] == 'inline; filename="notes.txt"'
    assert shown["X-Content-Type-Options"] == "nosniff"
    assert shown["Content-Security-Policy"].startswith("sandbox")
    assert downloaded["Content-Disposition"] == 'attachment; filename="notes.txt"'


@pytest.mark.parametrize("name", ["page.html", "pic.svg", "feed.xml", "app.js", "paper.pdf"])
def test_what_a_browser_could_run_is_only_ever_downloaded(
    owner_client: Client, project: Project, name: str
) -> None:
    document = _stored(project, name, SCRIPT_PAGE)

    response = owner_client.get(f"/files/documents/{document.pk}/original/")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/octet-stream"
    assert response["Content-Disposition"] == f'attachment; filename="{name}"'
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Content-Security-Policy"].startswith("sandbox;")


@pytest.mark.parametrize("name", ["notes.txt", "photo.png", "paper.pdf", "page.html"])
def test_no_original_is_shown_without_the_sandbox(
    owner_client: Client, project: Project, name: str
) -> None:
    """Issue 29: PDFs were served inline without the sandbox policy. Whatever is shown in
    the browser is sandboxed; a PDF (which Chromium will not show sandboxed) is saved."""
    document = _stored(project, name, "%PDF-1.4 not much of a document")

    response = owner_client.get(f"/files/documents/{document.pk}/original/")

    inline = response["Content-Disposition"].startswith("inline")
    assert response["Content-Security-Policy"].startswith("sandbox;")
    assert inline == (name in ("notes.txt", "photo.png"))


def test_another_users_file_answers_exactly_like_a_missing_one(
    client: Client, project: Project, other_user: User, settings: object
) -> None:
    document = _stored(project, "notes.txt", "Harbour notes")
    client.force_login(other_user)

    theirs = client.get(f"/files/documents/{document.pk}/original/")
    missing = client.get("/files/documents/00000000-0000-4000-8000-000000000000/original/")

    assert theirs.status_code == missing.status_code == 404
    assert _main(theirs.content) == _main(missing.content)


def _main(page: bytes) -> bytes:
    """The page's content, without the per-request CSRF token of the header's form."""
    return page[page.index(b"<main") : page.index(b"</main>")]


def test_media_is_not_served_directly_in_any_mode(
    owner_client: Client,
    project: Project,
    media_root: Path,
) -> None:
    document = _stored(project, "notes.txt", "Harbour notes")
    stored = Path(document.file.path).relative_to(media_root)

    assert owner_client.get(f"/media/{stored}").status_code == 404


def test_the_document_page_links_to_its_original(owner_client: Client, project: Project) -> None:
    document = _stored(project, "notes.txt", "Harbour notes")

    page = owner_client.get(f"/files/documents/{document.pk}/").content.decode()

    assert f'href="/files/documents/{document.pk}/original/"' in page
    assert f'href="/files/documents/{document.pk}/original/?download=1"' in page
