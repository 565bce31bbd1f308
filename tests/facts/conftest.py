"""Fixtures for the facts tests that touch the database: a project, a conversation in it,
and ``say`` — a user message posted to that conversation, as the chat persists it."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import pytest

from apps.accounts.models import User
from apps.chat.models import Conversation, Message
from apps.projects.models import Project
from tests.factories import ProjectFactory

Say = Callable[..., Message]


@pytest.fixture
def project(user: User) -> Project:
    return ProjectFactory(owner=user, name="Personal")


@pytest.fixture
def conversation(user: User, project: Project) -> Conversation:
    return Conversation.objects.create(user=user, project=project, title="Facts")


@pytest.fixture
def say(conversation: Conversation) -> Say:
    def post(text: str, *, role: str = "user", at: datetime | None = None) -> Message:
        order = conversation.messages.count() + 1
        message = Message.objects.create(
            conversation=conversation, role=role, content=text, order=order
        )
        if at is not None:
            Message.objects.filter(pk=message.pk).update(created_at=at)
            message.refresh_from_db()
        return message

    return post
