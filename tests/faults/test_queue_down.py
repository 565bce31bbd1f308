"""Faults: the queue's Redis stopped while people keep working. A REST chat turn and an
upload are saved and answered (201) while no worker can be woken; their indexing is owed
in the ledger, and once Redis is back a real worker's sweep takes it up: every message and
file searchable, nothing lost (issue 26, item 4)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django_q.conf import Conf
from rest_framework.test import APIClient

from apps.chat.models import Message
from apps.chat.services import conversation_create
from apps.core.models import Work, WorkState
from apps.indexing.models import Chunk, Document, DocumentStatus
from tests.processes import RedisServer, kill_group, process_env, start_qcluster


@pytest.fixture
def queue_redis(
    tmp_path: Path, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[RedisServer]:
    server = RedisServer()
    server.start()
    # This process wakes workers through that Redis, as a web process does.
    settings.Q_CLUSTER = {**settings.Q_CLUSTER, "sync": False}
    monkeypatch.setattr(Conf, "SYNC", False)
    monkeypatch.setattr(Conf, "REDIS", server.url)
    monkeypatch.setattr(Conf, "ORM", None)
    try:
        yield server
    finally:
        server.stop()


def _wait_until(condition: Any, timeout: float, what: str, log: Path) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    raise AssertionError(f"{what} within {timeout} s; worker log:\n{log.read_text()[-4000:]}")


@pytest.mark.django_db(transaction=True)
def test_work_saved_while_the_queue_is_down_is_done_once_it_is_back(
    token_client: APIClient, user: Any, queue_redis: RedisServer, tmp_path: Path, settings: Any
) -> None:
    settings.MEDIA_ROOT = str(tmp_path / "media")
    log = tmp_path / "qcluster.log"
    worker = start_qcluster(
        process_env(
            REDIS_URL=queue_redis.url,
            MEDIA_ROOT=settings.MEDIA_ROOT,
            Q_WORKERS="1",
            CAIRN_WORK_SWEEP_SECONDS="1",
            CAIRN_EMBEDDING_PROVIDER="tests.indexing.fakes.HashEmbeddingProvider",
        ),
        log,
    )
    try:
        # Given the queue's Redis stopped
        queue_redis.stop()
        conversation = conversation_create(user=user)

        # When a chat turn and an upload arrive through the API
        turn = token_client.post(
            f"/api/v1/conversations/{conversation.id}/messages/",
            {"text": "The harbour master's name is Ivana Kovač."},
            format="json",
        )
        uploaded = token_client.post(
            "/api/v1/documents/",
            {"files": [SimpleUploadedFile("ferry.txt", b"The ferry to Vis leaves at 9:15.")]},
            format="multipart",
        )

        # Then both are saved and answered, their indexing owed though no worker woke
        assert turn.status_code == 201, turn.content
        assert uploaded.status_code == 201, uploaded.content
        owed = Work.objects.filter(state=WorkState.DUE)
        assert owed.filter(task="apps.indexing.tasks.index_message").count() == 2
        assert owed.filter(task="apps.indexing.tasks.index_documents").count() == 1

        # And once Redis is back, the worker's sweep takes it all up
        queue_redis.start()
        messages = Message.objects.filter(conversation=conversation)
        _wait_until(
            lambda: not Work.objects.exclude(state=WorkState.DONE).exists(),
            60,
            "the owed work was not done after Redis came back",
            log,
        )
        assert all(Chunk.objects.filter(message=message).exists() for message in messages)
        document = Document.objects.get(path="ferry.txt")
        assert document.status == DocumentStatus.INDEXED
        assert Chunk.objects.filter(document=document).count() == 1
    finally:
        kill_group(worker)
