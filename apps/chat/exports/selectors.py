"""The user's imports; another user's answers like a missing one (404)."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import Http404

from apps.chat.models import ChatImport

if TYPE_CHECKING:
    from apps.accounts.models import User


def chat_import_list(*, user: User) -> QuerySet[ChatImport]:
    return ChatImport.objects.filter(user=user).select_related("project")


def chat_import_get(*, user: User, chat_import_id: uuid.UUID | str) -> ChatImport:
    try:
        return chat_import_list(user=user).get(pk=chat_import_id)
    except (ChatImport.DoesNotExist, ValidationError, ValueError) as error:
        raise Http404("No such import.") from error
