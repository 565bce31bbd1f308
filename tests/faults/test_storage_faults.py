"""Drills of issue 26 for uploaded files: a full and a read-only upload volume (a real small
tmpfs, mounted as root), and a worker whose storage is not the web process's.

Before: a 2 MB upload onto a full MEDIA_ROOT answered 500 and left a 1 MB partial file that
broke every later upload; and a worker with its own disk opened another user's
``imports/%Y/%m/conversations.json``."""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.chat.exports.store import chat_import_create
from apps.chat.models import ChatImport, Conversation, Message
from apps.core.storage import NO_ROOM, NOT_IN_STORAGE, READ_ONLY
from apps.core.work import work_run_due
from apps.indexing.models import Chunk, Document, DocumentStatus, Source
from apps.indexing.services import documents_upload
from apps.indexing.tasks import index_documents
from apps.projects.services import project_ensure_personal
from tests.indexing.conftest import Committed, committed, fake_provider, upload  # noqa: F401

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fake_provider")]

TWO_MEGABYTES = ("Harbour notes from the long summer. " * 60_000).encode()[: 2 * 1024 * 1024]


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, check=False)


@pytest.fixture
def volume(tmp_path: Path, settings: Any) -> Iterator[Path]:
    """MEDIA_ROOT on a tmpfs of 512 KiB: a disk that fills up."""
    if shutil.which("mount") is None:
        pytest.skip("no mount command on this machine")
    mount_point = tmp_path / "volume"
    mount_point.mkdir()
    mounted = _run("mount", "-t", "tmpfs", "-o", "size=512k,mode=0755", "tmpfs", str(mount_point))
    if mounted.returncode != 0:
        pytest.skip(f"mounting a tmpfs is not permitted here (needs root): {mounted.stderr}")
    settings.MEDIA_ROOT = str(mount_point)
    try:
        yield mount_point
    finally:
        if _run("umount", str(mount_point)).returncode != 0:
            _run("umount", "-l", str(mount_point))


@pytest.fixture
def read_only_volume(volume: Path) -> Path:
    remounted = _run("mount", "-o", "remount,ro", str(volume))
    if remounted.returncode != 0:
        pytest.skip(f"remounting the tmpfs read-only is not permitted here: {remounted.stderr}")
    return volume


def _left_behind(root: Path) -> list[str]:
    """Every file and folder under ``root``: nothing may stay of a refused upload."""
    return sorted(str(path.relative_to(root)) for path in root.rglob("*"))


def claude_export(said: str, *, conversation_id: str = "cl-1", pad: int = 0) -> bytes:
    """A Claude export of one conversation in which the user said ``said``; ``pad`` more
    characters of the answer make it as large as a test needs."""
    at = "2024-06-02T09:00:00.000000+00:00"

    def message(uuid: str, sender: str, text: str) -> dict[str, Any]:
        return {
            "uuid": uuid,
            "sender": sender,
            "text": text,
            "content": [{"type": "text", "text": text}],
            "created_at": at,
            "attachments": [],
            "files": [],
        }

    answer = "Noted. " + "More about the harbour. " * (pad // 24)
    return json.dumps(
        [
            {
                "uuid": conversation_id,
                "name": "Plans",
                "created_at": at,
                "updated_at": at,
                "chat_messages": [
                    message(f"{conversation_id}-1", "human", said),
                    message(f"{conversation_id}-2", "assistant", answer),
                ],
            }
        ]
    ).encode()


def _post_documents(client: APIClient, *files: tuple[str, bytes]) -> Any:
    parts = [upload(name, data) for name, data in files]
    return client.post("/api/v1/documents/", {"files": parts}, format="multipart")


def _post_import(client: APIClient, data: bytes) -> Any:
    return client.post(
        "/api/v1/imports/",
        {"file": SimpleUploadedFile("conversations.json", data)},
        format="multipart",
    )


def test_a_full_volume_answers_507_naming_file_keeps_nothing_and_later_uploads_work(
    token_client: APIClient,
    user: User,
    volume: Path,
    committed: Committed,  # noqa: F811
) -> None:
    # The first file fits, the second fills the disk: the first goes too.
    document = _post_documents(
        token_client, ("first.txt", b"Fits easily."), ("big.txt", TWO_MEGABYTES)
    )
    chat_import = _post_import(token_client, claude_export("Sail in June", pad=2 * 1024 * 1024))

    assert (document.status_code, document.json()) == (507, {"file": [NO_ROOM]})
    assert (chat_import.status_code, chat_import.json()) == (507, {"file": [NO_ROOM]})
    assert _left_behind(volume) == []
    assert not Document.objects.exists()
    assert not Source.objects.filter(project__owner=user).exists()
    assert not ChatImport.objects.exists()

    with committed():
        later = _post_documents(token_client, ("notes.txt", b"Harbour dues are 60 euros."))

    assert later.status_code == 201, later.content
    stored = Document.objects.get()
    assert stored.status == DocumentStatus.INDEXED
    assert (volume / stored.file.name).read_bytes() == b"Harbour dues are 60 euros."


def test_a_full_volume_is_the_file_fields_error_on_the_pages(
    page_client: Client, user: User, volume: Path
) -> None:
    project = project_ensure_personal(user=user)

    files_page = page_client.post(
        "/files/upload/",
        {"project": str(project.pk), "files": upload("big.txt", TWO_MEGABYTES)},
        follow=True,
    )
    imports_page = page_client.post(
        "/imports/",
        {
            "project": str(project.pk),
            "file": SimpleUploadedFile(
                "conversations.json", claude_export("Sail in June", pad=2 * 1024 * 1024)
            ),
        },
    )

    assert NO_ROOM in files_page.content.decode()
    assert imports_page.status_code == 200
    assert imports_page.context["form"].errors["file"] == [NO_ROOM]
    assert NO_ROOM in imports_page.content.decode()
    assert _left_behind(volume) == []
    assert not Document.objects.exists()
    assert not ChatImport.objects.exists()


def test_a_read_only_volume_answers_507_in_words_and_keeps_nothing(
    token_client: APIClient, page_client: Client, user: User, read_only_volume: Path
) -> None:
    document = _post_documents(token_client, ("notes.txt", b"Harbour dues are 60 euros."))
    imports_page = page_client.post(
        "/imports/",
        {
            "project": str(project_ensure_personal(user=user).pk),
            "file": SimpleUploadedFile("conversations.json", claude_export("Sail in June")),
        },
    )

    assert (document.status_code, document.json()) == (507, {"file": [READ_ONLY]})
    assert imports_page.context["form"].errors["file"] == [READ_ONLY]
    assert _left_behind(read_only_volume) == []
    assert not Document.objects.exists()
    assert not ChatImport.objects.exists()


def test_a_worker_without_the_web_processes_files_fails_loudly_and_never_reads_anothers(
    user: User,
    other_user: User,
    tmp_path: Path,
    settings: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Two machines with separate MEDIA_ROOTs: the web process stores under A, the worker
    looks under B, where a file of the same name from someone else lies (what a key by name
    and month used to find). Each document and import fails in words; with the root
    shared, each user gets their own content."""
    web_root, worker_root = tmp_path / "web", tmp_path / "worker"
    settings.MEDIA_ROOT = str(web_root)
    people = {user: "Alice moors at Split", other_user: "Bob climbs in Chamonix"}
    documents = {
        person: documents_upload(
            project=project_ensure_personal(user=person),
            files=[upload("notes.txt", f"{said}.".encode())],
        )[0].document
        for person, said in people.items()
    }
    imports = {
        person: chat_import_create(
            user=person,
            project=project_ensure_personal(user=person),
            upload=SimpleUploadedFile("conversations.json", claude_export(said)),
        )
        for person, said in people.items()
    }
    decoy = worker_root / "imports" / "2026" / "11" / "conversations.json"
    decoy.parent.mkdir(parents=True)
    decoy.write_bytes(claude_export("Mallory's secret plans", conversation_id="cl-decoy"))
    assert (
        len({i.file.name for i in imports.values()} | {d.file.name for d in documents.values()})
        == 4
    )

    with override_settings(MEDIA_ROOT=str(worker_root)), caplog.at_level(logging.ERROR):
        work_run_due()  # the worker takes what the uploads and imports owe

    for document in documents.values():
        document.refresh_from_db()
        assert (document.status, document.error) == (DocumentStatus.FAILED, NOT_IN_STORAGE)
    for chat_import in imports.values():
        chat_import.refresh_from_db()
        assert (chat_import.status, chat_import.error) == (ChatImport.Status.FAILED, NOT_IN_STORAGE)
    assert not Chunk.objects.filter(document__isnull=False).exists()
    assert not Conversation.objects.exists()
    assert "not in this process's storage" in caplog.text

    # One root for both processes (a shared volume): the same files index, and fresh
    # uploads of the same exports import, each with its owner's own words only.
    index_documents([str(d.pk) for d in documents.values()])
    for person, said in people.items():
        again = chat_import_create(
            user=person,
            project=project_ensure_personal(user=person),
            upload=SimpleUploadedFile("conversations.json", claude_export(said)),
        )
        work_run_due()
        again.refresh_from_db()
        assert again.status == ChatImport.Status.DONE, again.error

        document = Document.objects.get(pk=documents[person].pk)
        assert document.status == DocumentStatus.INDEXED
        assert [c.text for c in Chunk.objects.filter(document=document)] == [f"{said}."]
        heard = set(
            Message.objects.filter(conversation__user=person, role="user").values_list(
                "content", flat=True
            )
        )
        assert heard == {said}
    assert not Message.objects.filter(content__contains="Mallory").exists()
