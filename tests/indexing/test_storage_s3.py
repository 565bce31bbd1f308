"""Users' files in an S3-compatible bucket (``STORAGE_URL=s3://…``, issue 26), against a
real S3 server on a free port (moto's, from PyPI): uploaded through the REST API, indexed by
the worker's code reading through the storage, the original served back by the Files
page's view to its owner only, and deleting a document or an import deletes its object.
Nothing is written under MEDIA_ROOT."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.files.storage import storages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.chat.models import ChatImport, Message
from apps.core.storage import UNREACHABLE
from apps.indexing.models import Chunk, Document, DocumentStatus
from apps.indexing.services import documents_upload
from apps.indexing.tasks import index_documents
from apps.projects.services import project_ensure_personal
from config.storage_url import storage_from_url
from tests.faults.test_storage_faults import claude_export
from tests.indexing.conftest import Committed, upload

boto3 = pytest.importorskip("boto3", reason="django-storages[s3] is not installed")
S3Storage = pytest.importorskip("storages.backends.s3").S3Storage
moto_server = pytest.importorskip(
    "moto.moto_server.threaded_moto_server", reason="moto[server] is not installed"
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fake_provider")]

BUCKET = "cairn-files"


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    try:
        yield f"http://{host}:{port}"
    finally:
        server.stop()


@pytest.fixture
def bucket(
    s3_endpoint: str, settings: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[Any]:
    """A fresh bucket as the default storage, configured as an operator would: the URL in
    STORAGE_URL, the keys in the environment. MEDIA_ROOT points at an empty folder."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "cairn-test-key")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "cairn-test-secret")
    client = boto3.client(
        "s3",
        endpoint_url=s3_endpoint,
        region_name="us-east-1",
        aws_access_key_id="cairn-test-key",
        aws_secret_access_key="cairn-test-secret",
    )
    client.create_bucket(Bucket=BUCKET)
    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.STORAGES = {
        **settings.STORAGES,
        "default": storage_from_url(
            f"s3://{BUCKET}?endpoint_url={s3_endpoint}&region_name=us-east-1"
        ),
    }
    yield client
    for item in client.list_objects_v2(Bucket=BUCKET).get("Contents", []):
        client.delete_object(Bucket=BUCKET, Key=item["Key"])
    client.delete_bucket(Bucket=BUCKET)


def _keys(client: Any) -> list[str]:
    return sorted(item["Key"] for item in client.list_objects_v2(Bucket=BUCKET).get("Contents", []))


def _object(client: Any, key: str) -> bytes:
    body: bytes = client.get_object(Bucket=BUCKET, Key=key)["Body"].read()
    return body


def test_an_upload_is_stored_indexed_served_and_deleted_through_the_bucket(
    bucket: Any,
    token_client: APIClient,
    client: Client,
    user: User,
    other_user: User,
    tmp_path: Path,
    committed: Committed,
) -> None:
    assert isinstance(storages["default"], S3Storage)
    text = "Harbour dues in Split are about 60 euros a night.\n\nThe marina closes at ten."

    with committed():
        response = token_client.post(
            "/api/v1/documents/", {"files": [upload("harbour.md", text)]}, format="multipart"
        )

    assert response.status_code == 201, response.content
    document = Document.objects.get(pk=response.json()[0]["document"]["id"])
    assert document.status == DocumentStatus.INDEXED, document.error
    assert document.file.name.startswith(f"uploads/{user.pk}/")
    assert _keys(bucket) == [document.file.name]
    assert _object(bucket, document.file.name) == text.encode()
    assert "Harbour dues" in " ".join(c.text for c in Chunk.objects.filter(document=document))
    assert not (tmp_path / "media").exists()

    client.force_login(user)
    original = client.get(f"/files/documents/{document.pk}/original/")
    assert original.status_code == 200
    assert b"".join(original.streaming_content) == text.encode()  # type: ignore[attr-defined]
    client.force_login(other_user)
    assert client.get(f"/files/documents/{document.pk}/original/").status_code == 404

    with committed():
        deleted = token_client.delete(f"/api/v1/documents/{document.pk}/")

    assert deleted.status_code == 204
    assert _keys(bucket) == []


def test_an_import_is_read_from_the_bucket_and_deleting_it_deletes_its_object(
    bucket: Any, token_client: APIClient, user: User, committed: Committed
) -> None:
    with committed():
        accepted = token_client.post(
            "/api/v1/imports/",
            {"file": SimpleUploadedFile("conversations.json", claude_export("Sail in June"))},
            format="multipart",
        )

    assert accepted.status_code == 202, accepted.content
    chat_import = ChatImport.objects.get(pk=accepted.json()["id"])
    assert chat_import.status == ChatImport.Status.DONE, chat_import.error
    assert chat_import.file.name.startswith(f"imports/{user.pk}/")
    assert _keys(bucket) == [chat_import.file.name]
    assert Message.objects.filter(conversation__user=user, content="Sail in June").exists()

    with committed():
        deleted = token_client.delete(f"/api/v1/imports/{chat_import.pk}/")

    assert deleted.status_code == 204
    assert _keys(bucket) == []
    assert token_client.get(f"/api/v1/imports/{chat_import.pk}/").status_code == 404
    # The conversations it brought are the user's now and stay.
    assert Message.objects.filter(conversation__user=user, content="Sail in June").exists()


def test_a_worker_whose_bucket_lacks_the_file_fails_in_words(bucket: Any, user: User) -> None:
    [result] = documents_upload(
        project=project_ensure_personal(user=user), files=[upload("notes.txt", "Harbour notes")]
    )
    # The worker is pointed at a bucket without it (another bucket, or a lost object).
    bucket.delete_object(Bucket=BUCKET, Key=result.document.file.name)

    index_documents([str(result.document.pk)])

    document = Document.objects.get(pk=result.document.pk)
    assert document.status == DocumentStatus.FAILED
    assert "not in this worker's storage" in document.error


def test_a_bucket_that_refuses_the_file_is_503_naming_file_and_keeps_no_row(
    bucket: Any, settings: Any, s3_endpoint: str, token_client: APIClient
) -> None:
    settings.STORAGES = {
        **settings.STORAGES,
        "default": storage_from_url(f"s3://no-such-bucket?endpoint_url={s3_endpoint}"),
    }

    response = token_client.post(
        "/api/v1/documents/", {"files": [upload("notes.txt", "Harbour notes")]}, format="multipart"
    )
    imported = token_client.post(
        "/api/v1/imports/",
        {"file": SimpleUploadedFile("conversations.json", claude_export("Sail in June"))},
        format="multipart",
    )

    assert (response.status_code, response.json()) == (503, {"file": [UNREACHABLE]})
    assert (imported.status_code, imported.json()) == (503, {"file": [UNREACHABLE]})
    assert not Document.objects.exists()
    assert not ChatImport.objects.exists()
