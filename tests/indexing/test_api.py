"""``/api/v1/sources/``, ``/api/v1/documents/`` and ``/api/v1/search``."""

from __future__ import annotations

from pathlib import Path

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.indexing.models import Chunk, Document
from apps.projects.models import Project
from apps.projects.services import project_create
from tests.indexing.conftest import Committed, upload

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root")]


@pytest.fixture
def client(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def post_files(client: APIClient, *files: object, **data: object) -> object:
    return client.post("/api/v1/documents/", {"files": list(files), **data}, format="multipart")


def test_upload_several_files_then_read_their_status(
    client: APIClient, project: Project, fake_provider: object, committed: Committed
) -> None:
    with committed():
        response = post_files(
            client,
            upload("a.md", "# Alpha\n\nabout glaciers"),
            upload("b.txt", "bravo"),
            project=str(project.pk),
        )

    assert response.status_code == 201, response.content
    body = response.json()
    assert [(item["document"]["path"], item["duplicate"]) for item in body] == [
        ("a.md", False),
        ("b.txt", False),
    ]
    document_id = body[0]["document"]["id"]
    detail = client.get(f"/api/v1/documents/{document_id}/").json()
    assert (detail["status"], detail["chunk_count"], detail["doc_type"]) == ("indexed", 1, "md")
    listed = client.get("/api/v1/documents/", {"project": str(project.pk)}).json()
    assert listed["count"] == 2
    [source] = client.get("/api/v1/sources/").json()["results"]
    assert source["progress"] == {"done": 2, "total": 2, "current": "", "percent": 100}
    assert (source["kind"], source["status"], source["document_count"]) == ("upload", "ready", 2)


def test_upload_without_project_goes_to_personal_and_dotdot_is_neutralised(
    client: APIClient, user: User, fake_provider: object
) -> None:
    response = post_files(client, upload("../../../etc/passwd", "root:x:0:0"))

    assert response.status_code == 201
    document = Document.objects.get()
    assert document.path == "passwd"
    assert document.source.project.slug == "personal"
    assert ".." not in document.file.name


def test_same_file_twice_is_reported_as_duplicate(
    client: APIClient, fake_provider: object, committed: Committed
) -> None:
    with committed():
        post_files(client, upload("a.txt", "same content"))
        response = post_files(client, upload("again.txt", "same content"))

    assert response.json()[0]["duplicate"] is True
    assert Document.objects.count() == 1
    assert Chunk.objects.count() == 1


def test_upload_limits(client: APIClient, settings: object) -> None:
    settings.CAIRN_UPLOAD_MAX_FILES = 1  # type: ignore[attr-defined]
    assert post_files(client).status_code == 400
    response = post_files(client, upload("a.txt", "a"), upload("b.txt", "b"))
    assert response.status_code == 400
    assert "At most 1 files" in str(response.json())


def test_reindex_and_delete(
    client: APIClient, project: Project, fake_provider: object, committed: Committed
) -> None:
    with committed():
        body = post_files(client, upload("a.txt", "alpha beta")).json()
    document_id = body[0]["document"]["id"]

    with committed():
        response = client.post(f"/api/v1/documents/{document_id}/reindex/")
    assert response.status_code == 202
    assert Chunk.objects.count() == 1

    assert client.delete(f"/api/v1/documents/{document_id}/").status_code == 204
    assert not Document.objects.exists()
    assert not Chunk.objects.exists()


def test_reindex_of_a_kind_cairn_never_reads_is_a_400_naming_why(
    client: APIClient, project: Project, fake_provider: object, committed: Committed
) -> None:
    with committed():
        body = post_files(client, upload("setup.exe", "MZ not really a program")).json()
    document_id = body[0]["document"]["id"]
    assert Document.objects.get().status == "skipped"

    response = client.post(f"/api/v1/documents/{document_id}/reindex/")

    assert response.status_code == 400
    assert response.json()["document"] == [
        "Cairn does not read this kind of file (.exe), so it cannot be indexed."
    ]
    assert Document.objects.get().status == "skipped"  # not queued again
    shown = client.get(f"/api/v1/documents/{document_id}/").json()
    assert shown["can_reindex"] is False
    assert shown["explanation"]["summary"].startswith("Cairn does not read this kind of file")
    assert shown["error"] == "executable or binary files are not indexed (.exe)"


def test_other_users_objects_answer_404(
    client: APIClient, other_user: User, fake_provider: object, committed: Committed
) -> None:
    theirs = APIClient()
    theirs.force_authenticate(other_user)
    with committed():
        body = post_files(theirs, upload("secret.txt", "their secret")).json()
    document_id = body[0]["document"]["id"]
    source_id = Document.objects.get().source_id

    assert client.get(f"/api/v1/documents/{document_id}/").status_code == 404
    assert client.post(f"/api/v1/documents/{document_id}/reindex/").status_code == 404
    assert client.delete(f"/api/v1/documents/{document_id}/").status_code == 404
    assert client.get(f"/api/v1/sources/{source_id}/").status_code == 404
    assert client.delete(f"/api/v1/sources/{source_id}/").status_code == 404
    project_id = Document.objects.get().source.project_id
    assert post_files(client, upload("x.txt", "x"), project=str(project_id)).status_code == 404
    assert client.get("/api/v1/documents/").json()["count"] == 0
    assert Document.objects.count() == 1


def test_folder_sources_are_for_staff_under_allowed_roots(
    client: APIClient,
    user: User,
    project: Project,
    tmp_path: Path,
    settings: object,
    fake_provider: object,
    committed: Committed,
) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / "a.md").write_text("hello")
    payload = {"project": str(project.pk), "root_path": str(folder)}

    assert client.post("/api/v1/sources/", payload, format="json").status_code == 403
    user.is_staff = True
    user.save()
    response = client.post("/api/v1/sources/", payload, format="json")
    assert response.status_code == 400
    assert "disabled" in str(response.json())

    settings.CAIRN_FOLDER_ROOTS = [str(tmp_path / "elsewhere")]  # type: ignore[attr-defined]
    response = client.post("/api/v1/sources/", payload, format="json")
    assert "not under an allowed folder" in str(response.json())

    settings.CAIRN_FOLDER_ROOTS = [str(tmp_path)]  # type: ignore[attr-defined]
    bad = client.post("/api/v1/sources/", {**payload, "exclude_globs": ["../x"]}, format="json")
    assert "without '..'" in str(bad.json())
    with committed():
        response = client.post("/api/v1/sources/", payload, format="json")
    assert response.status_code == 201, response.content
    source = client.get(f"/api/v1/sources/{response.json()['id']}/").json()
    assert (source["kind"], source["status"], source["document_count"]) == ("folder", "ready", 1)


def test_search_endpoint(
    client: APIClient,
    user: User,
    project: Project,
    real_provider: object,
    committed: Committed,
) -> None:
    other = project_create(owner=user, name="Other")
    with committed():
        post_files(
            client,
            upload("trip.md", "Our Lisbon trip budget is 1,800 euros."),
            project=str(project.pk),
        )
        post_files(client, upload("garden.md", "Tomatoes and basil."), project=str(other.pk))

    response = client.get("/api/v1/search", {"q": "Lisbon budget", "k": 5})

    assert response.status_code == 200
    body = response.json()
    assert body["query"] == "Lisbon budget"
    top = body["results"][0]
    assert (top["kind"], top["document_path"], top["start"]) == ("document", "trip.md", 0)
    assert top["score"] > 0
    assert top["vector_similarity"] > 0
    scoped = client.get(
        "/api/v1/search/", {"q": "Lisbon budget", "project": str(other.pk), "kinds": "document"}
    ).json()
    assert [hit["document_path"] for hit in scoped["results"]] == ["garden.md"]
    assert client.get("/api/v1/search", {"q": "x", "kinds": "files"}).status_code == 400
    assert client.get("/api/v1/search").status_code == 400


def test_search_needs_authentication() -> None:
    assert APIClient().get("/api/v1/search", {"q": "x"}).status_code in (401, 403)


def test_endpoints_are_documented(client: APIClient) -> None:
    schema = client.get("/api/v1/schema/", {"format": "json"}).json()
    paths = schema["paths"]
    assert {
        "/api/v1/search/",
        "/api/v1/documents/",
        "/api/v1/sources/",
        "/api/v1/documents/{id}/reindex/",
    } <= set(paths)
