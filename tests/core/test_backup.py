"""`manage.py backup` and `manage.py restore` (issue 26): one archive of the database and the
uploaded files, restored on a new machine — a second embedded PostgreSQL started in a fresh
data directory, with a fresh media root — where every row and file is found again."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.core.management.base import CommandError

from apps.accounts.models import User
from apps.chat.models import Message
from apps.chat.services import conversation_create, message_append
from apps.claims.models import Claim
from apps.core.backup import MANIFEST, storage_files
from apps.indexing.models import Document
from apps.indexing.services.uploads import documents_upload
from apps.projects.services import project_ensure_personal
from tests.factories import UserFactory
from tests.indexing.conftest import upload
from tests.knowledge_factories import ClaimFactory
from tests.processes import ROOT, process_env

PDF_LIKE = bytes(range(256)) * 40  # binary, not text: the bytes must come back exactly

# What a new machine finds, read through the models and the storage API.
READ_BACK = """
import hashlib, json
import django
django.setup()
from django.core.files.storage import default_storage
from apps.accounts.models import User
from apps.accounts.models import User
from apps.chat.models import Message
from apps.claims.models import Claim
from apps.indexing.models import Chunk, Document
print(json.dumps({
    "users": sorted(User.objects.values_list("email", flat=True)),
    "claims": sorted(Claim.objects.values_list("user__email", "number", "statement")),
    "messages": list(Message.objects.order_by("conversation__title", "order")
                     .values_list("conversation__title", "role", "content")),
    "documents": sorted(
        (d.name, hashlib.sha256(default_storage.open(d.file.name).read()).hexdigest())
        for d in Document.objects.all()
    ),
    "chunks": Chunk.objects.exclude(embedding=None).count(),
    "password_ok": User.objects.get(email="ada@example.com").check_password("s3cret-passphrase"),
}, default=list))
"""


@pytest.fixture
def media_root(settings: Any) -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="cairn-media-"))
    settings.MEDIA_ROOT = str(path)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def new_machine() -> Iterator[dict[str, str]]:
    """The environment of a machine with nothing on it yet: its own data directory (a second
    embedded server starts there) and its own media root. Not under pytest's tmp_path: as
    root the server runs as another system user, which must be able to reach it."""
    var_dir = Path(tempfile.mkdtemp(prefix="cairn-restore-"))
    yield process_env(
        CAIRN_VAR_DIR=str(var_dir),
        CAIRN_DB_NAME="cairn",
        MEDIA_ROOT=str(var_dir / "media"),
        REDIS_URL=None,
    )
    shutil.rmtree(var_dir, ignore_errors=True)


def _manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _what_is_here() -> dict[str, Any]:
    return {
        "users": sorted(User.objects.values_list("email", flat=True)),
        "claims": sorted(
            [list(row) for row in Claim.objects.values_list("user__email", "number", "statement")]
        ),
        "messages": [
            list(row)
            for row in Message.objects.order_by("conversation__title", "order").values_list(
                "conversation__title", "role", "content"
            )
        ],
        "documents": sorted(
            [
                [
                    document.name,
                    hashlib.sha256(default_storage.open(document.file.name).read()).hexdigest(),
                ]
                for document in Document.objects.all()
            ]
        ),
    }


@pytest.mark.usefixtures("transactional_db")
def test_a_backup_restored_on_a_new_machine_has_every_row_and_file(
    media_root: Path, new_machine: dict[str, str], tmp_path: Path
) -> None:
    ada = UserFactory(email="ada@example.com")
    ada.set_password("s3cret-passphrase")
    ada.save()
    bob = UserFactory(email="bob@example.com")
    ClaimFactory(user=ada, statement="I prefer morning workouts")
    ClaimFactory(user=ada, statement="My sister lives in Oslo")
    ClaimFactory(user=bob, statement="I am allergic to peanuts")
    conversation = conversation_create(user=ada, title="Moving")
    message_append(conversation=conversation, role="user", content="We moved to Oslo in May.")
    message_append(conversation=conversation, role="assistant", content="Noted: Oslo, May.")
    documents_upload(
        project=project_ensure_personal(user=ada),
        files=[
            upload("notes.md", "# Oslo\n\nThe flat is on Grünerløkka."),
            upload("scan.pdf", PDF_LIKE),
        ],
    )
    before = _what_is_here()
    assert len(before["documents"]) == 2

    call_command("backup", output=tmp_path)
    (archive,) = tmp_path.glob("cairn-backup-*.tar.gz")
    with tarfile.open(archive) as tar:
        manifest = json.loads(tar.extractfile(MANIFEST).read())  # type: ignore[union-attr]
    assert manifest["tables"]["claims_claim"] == 3
    assert manifest["tables"]["chat_message"] == 2
    assert sorted(item["name"] for item in manifest["files"]) == sorted(
        storage_files(default_storage)
    )
    assert {"accounts", "claims", "chat"} <= set(manifest["migrations"])

    restored = _manage(new_machine, "restore", str(archive))

    assert restored.returncode == 0, restored.stderr
    assert f"{sum(manifest['tables'].values()):,} rows, each table as many as backed up" in (
        restored.stdout
    )
    assert "Restored 2 files" in restored.stdout
    found = subprocess.run(
        [sys.executable, "-c", READ_BACK],
        cwd=ROOT,
        env=new_machine,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    after = json.loads(found.stdout)
    assert after["users"] == before["users"]
    assert after["claims"] == before["claims"]
    assert after["messages"] == before["messages"]
    assert after["documents"] == before["documents"]
    assert after["password_ok"] is True
    assert after["chunks"] == manifest["tables"]["indexing_chunk"] > 0

    # Once there, a second restore is refused rather than mixed in; --force replaces it.
    again = _manage(new_machine, "restore", str(archive))
    assert again.returncode == 1
    assert "is not empty" in again.stderr
    assert "pass --force to replace everything in it" in again.stderr
    forced = _manage(new_machine, "restore", "--force", str(archive))
    assert forced.returncode == 0, forced.stderr
    assert "Restored 2 files" in forced.stdout


@pytest.mark.django_db
def test_restore_refuses_a_database_that_is_not_empty(media_root: Path, tmp_path: Path) -> None:
    archive = tmp_path / "backup.tar.gz"
    call_command("backup", output=archive)

    with pytest.raises(CommandError) as refused:
        call_command("restore", str(archive))

    assert "is not empty" in str(refused.value)


@pytest.mark.django_db
def test_a_damaged_archive_is_refused_before_anything_is_touched(
    media_root: Path, tmp_path: Path
) -> None:
    default_storage.save("uploads/1/2/kept.txt", io.BytesIO(b"kept"))
    archive = tmp_path / "backup.tar.gz"
    call_command("backup", output=archive)
    damaged = tmp_path / "damaged.tar.gz"
    with tarfile.open(archive) as source, tarfile.open(damaged, "w:gz") as target:
        for member in source:
            data = source.extractfile(member)
            if member.name.endswith("kept.txt"):
                target.addfile(member, io.BytesIO(b"lost"))
            else:
                target.addfile(member, data)

    with pytest.raises(CommandError) as refused:
        call_command("restore", str(damaged))

    assert str(refused.value).endswith("the file uploads/1/2/kept.txt is missing or damaged.")


def test_a_file_that_is_not_a_backup_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "photo.tar.gz"
    other.write_bytes(b"not an archive")

    with pytest.raises(CommandError) as refused:
        call_command("restore", str(other))

    assert str(refused.value) == f"{other} is not a Cairn backup (not a readable .tar.gz)."


@pytest.mark.usefixtures("transactional_db")
def test_a_file_the_database_names_but_the_storage_lost_is_said(
    media_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    user = UserFactory()
    (result,) = documents_upload(
        project=project_ensure_personal(user=user), files=[upload("plan.md", "# The plan")]
    )
    default_storage.delete(result.document.file.name)

    call_command("backup", output=tmp_path / "backup.tar.gz")

    with tarfile.open(tmp_path / "backup.tar.gz") as tar:
        manifest = json.loads(tar.extractfile(MANIFEST).read())  # type: ignore[union-attr]
    assert manifest["files_missing"] == [result.document.file.name]
    assert manifest["files"] == []
    assert (
        "1 file(s) named by the database were not in the storage and are not in the backup: "
        f"{result.document.file.name}"
    ) in capsys.readouterr().err
