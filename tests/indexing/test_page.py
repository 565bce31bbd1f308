"""The Files page without JavaScript: choose a project, upload, see status, delete, re-index;
folder sources for staff only. (tests/browser/test_files_page.py drives it in Chromium.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from apps.accounts.models import User
from apps.indexing.models import Chunk, Document, Source
from apps.projects.models import Project
from apps.projects.services import project_create
from tests.indexing.conftest import Committed, upload

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root", "fake_provider")]


@pytest.fixture
def client(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def upload_files(client: Client, project: Project, committed: Committed, *files: object) -> str:
    with committed():  # the tasks run when the request's transaction commits
        response = client.post("/files/upload/", {"project": str(project.pk), "files": files})
    assert response.status_code == 302
    return client.get(response["Location"]).content.decode()


def test_the_page_offers_an_upload_form_for_the_personal_project(
    client: Client, project: Project
) -> None:
    page = client.get("/files/").content.decode()

    assert 'aria-current="page">Files</a>' in page
    assert f'<option value="{project.pk}" selected>Personal</option>' in page
    assert 'type="file" name="files"' in page
    assert "multiple" in page
    assert 'enctype="multipart/form-data"' in page
    assert "data-drop-zone" in page
    assert "js/files.js" in page
    assert "No files in Personal yet" in page


def test_upload_several_files_and_see_their_status(
    client: Client, project: Project, committed: Committed
) -> None:
    page = upload_files(
        client,
        project,
        committed,
        upload("notes.md", "# Notes\n\nglaciers"),
        upload("broken.docx", b"PK\x03\x04 junk"),
        upload("song.mp3", b"ID3"),
    )

    assert "3 files uploaded; indexing runs in the background." in page
    assert "notes.md" in page
    assert "Indexed" in page
    assert "broken.docx" in page
    assert "Failed" in page
    assert "zip container is unreadable" in page
    assert "Skipped" in page
    assert "audio files are not indexed" in page
    # The header counts the rows listed, by status (issue 18: not "2 / 2" above 3 rows).
    assert "data-progress-count>3 files: 1 indexed, 1 failed, 1 skipped<" in page
    assert "could not be read — it may be damaged" in page
    assert "Cairn does not read this kind of file (.mp3)" in page
    assert page.count("Re-index</button>") == 2  # not on the .mp3
    assert "?download=1" in page
    assert "width: 100%" in page
    assert 'role="progressbar"' in page


def test_the_same_file_twice_is_reported(
    client: Client, project: Project, committed: Committed
) -> None:
    upload_files(client, project, committed, upload("a.txt", "same"))
    page = upload_files(client, project, committed, upload("b.txt", "same"))

    assert "Already uploaded, not stored again: a.txt" in page
    assert Document.objects.count() == 1


def test_projects_are_chosen_and_another_users_is_404(
    client: Client, user: User, other_user: User, project: Project, committed: Committed
) -> None:
    work = project_create(owner=user, name="Work")
    upload_files(client, work, committed, upload("plan.txt", "plan"))

    assert "plan.txt" not in client.get("/files/").content.decode()
    assert "plan.txt" in client.get(f"/files/?project={work.pk}").content.decode()
    theirs = project_create(owner=other_user, name="Theirs")
    assert client.get(f"/files/?project={theirs.pk}").status_code == 404
    response = client.post(
        "/files/upload/", {"project": str(theirs.pk), "files": [upload("x.txt", "x")]}
    )
    assert response.status_code == 404


def test_reindex_delete_and_detail(
    client: Client, other_user: User, project: Project, committed: Committed
) -> None:
    upload_files(client, project, committed, upload("a.txt", "alpha beta gamma"))
    document = Document.objects.get()

    detail = client.get(f"/files/documents/{document.pk}/").content.decode()
    assert "alpha beta gamma" in detail
    assert "characters 0–16" in detail
    with committed():
        response = client.post(f"/files/documents/{document.pk}/reindex/", follow=True)
    assert "indexing again in the background" in response.content.decode()
    assert Chunk.objects.count() == 1

    stranger = Client()
    stranger.force_login(other_user)
    assert stranger.get(f"/files/documents/{document.pk}/").status_code == 404
    assert stranger.post(f"/files/documents/{document.pk}/delete/").status_code == 404
    assert stranger.get(f"/files/sources/{document.source_id}/").status_code == 404

    response = client.post(f"/files/documents/{document.pk}/delete/", follow=True)
    assert "a.txt was deleted." in response.content.decode()
    assert not Document.objects.exists()


def test_passages_come_in_pages_and_a_cited_one_opens_its_page(
    client: Client,
    other_user: User,
    project: Project,
    committed: Committed,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given a document of five or six passages shown two to a page, so three pages
    monkeypatch.setattr("apps.indexing.views.PASSAGES_PER_PAGE", 2)
    text = "\n\n".join(f"Chapter {n} is about the harbour and its boats." * 25 for n in range(5))
    upload_files(client, project, committed, upload("harbour.txt", text))
    document = Document.objects.get()
    chunks = list(Chunk.objects.order_by("chunk_index"))
    assert len(chunks) in (5, 6)
    url = f"/files/documents/{document.pk}/"

    # When the page opens plainly, by page, and at a cited passage (as a footer links)
    first = client.get(url).content.decode()
    second = client.get(url, {"page": 2}).content.decode()
    cited = client.get(url, {"chunk": str(chunks[-1].pk)}).content.decode()

    # Then each shows its own passages with the way to the others
    assert f'id="chunk-{chunks[0].pk}"' in first
    assert f'id="chunk-{chunks[2].pk}"' not in first
    assert f"Passages 1–2 of {len(chunks)}" in first
    assert "Page 1 of 3" in first
    assert 'href="?page=2" rel="next"' in first
    assert f'id="chunk-{chunks[2].pk}"' in second
    assert "Passage 3 ·" in second
    assert 'href="?page=1" rel="prev"' in second
    assert f'id="chunk-{chunks[-1].pk}"' in cited
    assert "Page 3 of 3" in cited
    # and a passage that is not this user's, or no passage at all, opens the first page
    stranger = Client()
    stranger.force_login(other_user)
    with committed():
        stranger.post(
            "/files/upload/",
            {
                "project": str(project_create(owner=other_user, name="Theirs").pk),
                "files": [upload("theirs.txt", text)],
            },
        )
    theirs = Chunk.objects.filter(user=other_user).first()
    assert theirs is not None
    for chunk in (str(theirs.pk), "not-an-id", "99999999999999999999999"):
        page = client.get(url, {"chunk": chunk}).content.decode()
        assert "Page 1 of 3" in page
        assert f'id="chunk-{theirs.pk}"' not in page
    assert "Page 1 of 3" in client.get(url, {"page": "nonsense"}).content.decode()


def test_source_card_fragment_and_delete(
    client: Client, project: Project, committed: Committed
) -> None:
    upload_files(client, project, committed, upload("a.txt", "alpha"))
    source = Source.objects.get()

    card = client.get(f"/files/sources/{source.pk}/").content.decode()
    assert card.lstrip().startswith(f'<section class="card f-source" data-source-id="{source.pk}"')
    assert "a.txt" in card

    client.post(f"/files/sources/{source.pk}/delete/")
    assert not Source.objects.exists()
    assert not Chunk.objects.exists()


def test_folder_sources_are_disabled_without_roots(client: Client, user: User) -> None:
    user.is_staff = True
    user.save()

    page = client.get("/files/").content.decode()

    assert "Folder sources are disabled on this server" in page


def test_folder_sources_need_staff(
    client: Client, project: Project, tmp_path: Path, settings: object
) -> None:
    settings.CAIRN_FOLDER_ROOTS = [str(tmp_path)]  # type: ignore[attr-defined]
    assert "Only staff can index folders" in client.get("/files/").content.decode()

    response = client.post(
        "/files/folders/", {"project": str(project.pk), "root_path": str(tmp_path)}, follow=True
    )

    assert "Only staff can index folders on the server." in response.content.decode()
    assert not Source.objects.exists()


def test_staff_add_a_folder_under_an_allowed_root(
    client: Client,
    user: User,
    project: Project,
    tmp_path: Path,
    settings: object,
    committed: Committed,
) -> None:
    user.is_staff = True
    user.save()
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "readme.md").write_text("# Read me")
    (folder / "draft.md").write_text("# Draft")
    settings.CAIRN_FOLDER_ROOTS = [str(tmp_path)]  # type: ignore[attr-defined]

    with committed():
        response = client.post(
            "/files/folders/",
            {
                "project": str(project.pk),
                "root_path": str(folder),
                "exclude_globs": "draft*",
            },
        )

    page = client.get(response["Location"]).content.decode()
    assert f"Scanning {folder} in the background." in page
    assert "readme.md" in page
    assert "draft.md" not in page
    outside = client.post(
        "/files/folders/", {"project": str(project.pk), "root_path": "/etc"}, follow=True
    )
    assert "is not under an allowed folder" in outside.content.decode()


def test_files_script_loads_nothing_from_elsewhere() -> None:
    script = (Path(settings.BASE_DIR) / "static" / "js" / "files.js").read_text()

    assert "http://" not in script
    assert "https://" not in script
    assert "/ws/events/" in script
    assert "indexing.progress" in script


def test_reindex_of_a_kind_cairn_never_reads_is_refused_with_the_reason(
    client: Client, project: Project, committed: Committed
) -> None:
    upload_files(client, project, committed, upload("setup.exe", b"MZ binary"))
    document = Document.objects.get()

    response = client.post(f"/files/documents/{document.pk}/reindex/", follow=True)
    detail = client.get(f"/files/documents/{document.pk}/").content.decode()

    assert response.status_code == 200
    assert "Cairn does not read this kind of file (.exe), so it cannot be indexed." in (
        response.content.decode()
    )
    document.refresh_from_db()
    assert document.status == "skipped"
    assert "Re-index</button>" not in detail
    assert f'href="/files/documents/{document.pk}/original/?download=1"' in detail


def test_reindex_all_leaves_a_kind_cairn_never_reads_as_it_was(
    client: Client, project: Project, committed: Committed
) -> None:
    upload_files(
        client, project, committed, upload("notes.md", "# Notes"), upload("setup.exe", b"MZ")
    )
    source = Source.objects.get()

    with committed():
        client.post(f"/files/sources/{source.pk}/refresh/")
    page = client.get(f"/files/?project={project.pk}").content.decode()

    exe = Document.objects.get(path="setup.exe")
    assert exe.status == "skipped"
    assert exe.error  # the reason is kept, so the page can still explain it
    assert Document.objects.get(path="notes.md").status == "indexed"
    assert "data-progress-count>2 files: 1 indexed, 1 skipped<" in page
