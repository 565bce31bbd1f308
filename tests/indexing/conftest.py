"""Fixtures for the indexing tests: providers, a project, uploaded-file storage, chats."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.accounts.models import User
from apps.chat.models import Conversation, Message
from apps.indexing import embeddings
from apps.indexing.embeddings import EmbeddingProvider
from apps.projects.models import Project
from apps.projects.services import project_ensure_personal
from tests.indexing.fakes import HashEmbeddingProvider


@pytest.fixture
def fake_provider(monkeypatch: pytest.MonkeyPatch) -> HashEmbeddingProvider:
    """The process-wide provider is the deterministic fake for this test."""
    provider = HashEmbeddingProvider()
    monkeypatch.setattr(embeddings, "_provider", provider)
    return provider


@pytest.fixture
def real_provider(monkeypatch: pytest.MonkeyPatch) -> EmbeddingProvider:
    """The real MiniLM model (loaded once per test process)."""
    provider = _real_provider()
    monkeypatch.setattr(embeddings, "_provider", provider)
    return provider


_REAL: list[EmbeddingProvider] = []


def _real_provider() -> EmbeddingProvider:
    if not _REAL:
        _REAL.append(embeddings.build_provider(embeddings.DEFAULT_PROVIDER))
    return _REAL[0]


@pytest.fixture
def project(user: User) -> Project:
    return project_ensure_personal(user=user)


Committed = Callable[[], Any]


@pytest.fixture
def committed(django_capture_on_commit_callbacks: Callable[..., Any]) -> Callable[[], Any]:
    """``with committed(): ...`` runs the block's on-commit callbacks (and so, with ``sync``
    django-q2, the tasks they queue) when it ends, as a real commit would."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


def upload(name: str, content: bytes | str) -> SimpleUploadedFile:
    data = content.encode() if isinstance(content, str) else content
    return SimpleUploadedFile(name, data, content_type="application/octet-stream")


def conversation_with(
    user: User, project: Project, turns: list[tuple[str, str]], *, title: str = "A chat"
) -> tuple[Conversation, list[Message]]:
    conversation = Conversation.objects.create(user=user, project=project, title=title)
    messages = [
        Message.objects.create(conversation=conversation, role=role, content=content, order=n)
        for n, (role, content) in enumerate(turns, start=1)
    ]
    return conversation, messages
