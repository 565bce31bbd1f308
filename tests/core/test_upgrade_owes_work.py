"""Upgrading to the ledger (chat migration 0006): whatever the old queue was to do, and may
have lost, is owed in the ledger and done by the next worker — a document left waiting, a
chat message never indexed, an import never finished."""

from __future__ import annotations

import importlib

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection

from apps.chat.models import ChatImport, Message
from apps.core.models import Work, WorkState
from apps.core.work import work_run_due
from apps.indexing.models import Chunk, Document, DocumentStatus
from apps.indexing.services import documents_upload
from apps.projects.services import project_ensure_personal
from tests.indexing.conftest import conversation_with, fake_provider  # noqa: F401 - fixture

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fake_provider")]

OWE = importlib.import_module("apps.chat.migrations.0006_owe_unfinished_work").OWE


def test_what_the_old_queue_lost_is_owed_and_done(user: object, settings: object) -> None:
    project = project_ensure_personal(user=user)  # type: ignore[arg-type]
    # Given, as the queue left them before the ledger: an upload never indexed, a chat
    # message never indexed, and an import stuck in "storing" (no work rows for any)
    [result] = documents_upload(
        project=project, files=[SimpleUploadedFile("ferry.txt", b"The ferry leaves at 9:15.")]
    )
    _, [message] = conversation_with(user, project, [("user", "Our mooring is in Komiza.")])  # type: ignore[arg-type]
    chat_import = ChatImport.objects.create(
        user=user, project=project, file_name="old.zip", status=ChatImport.Status.STORING
    )
    Work.objects.all().delete()

    # When the upgrade runs
    with connection.cursor() as cursor:
        cursor.execute(OWE)

    # Then each is owed once
    owed = Work.objects.filter(state=WorkState.DUE)
    assert sorted(owed.values_list("task", flat=True)) == [
        "apps.chat.exports.tasks.chat_import_run",
        "apps.indexing.tasks.index_documents",
        "apps.indexing.tasks.index_message",
    ]
    assert owed.get(task="apps.chat.exports.tasks.chat_import_run").group == (
        f"import:{chat_import.pk}"
    )

    # And the next worker does the indexing (the import's file is gone: it fails, in words)
    work_run_due()
    document = Document.objects.get(pk=result.document.pk)
    assert document.status == DocumentStatus.INDEXED
    assert Chunk.objects.filter(message=message).exists()
    chat_import.refresh_from_db()
    assert chat_import.status == ChatImport.Status.FAILED
    assert chat_import.error
    assert not Message.objects.filter(chat_import=chat_import).exists()
