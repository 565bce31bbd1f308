from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import Http404

from .models import Project

if TYPE_CHECKING:
    from apps.accounts.models import User


def project_list(*, user: User, include_archived: bool = True) -> QuerySet[Project]:
    projects = Project.objects.filter(owner=user)
    return projects if include_archived else projects.filter(archived=False)


def project_get(*, user: User, project_id: str | uuid.UUID) -> Project:
    """The user's project, or 404 — another user's project is indistinguishable from none."""
    try:
        return Project.objects.get(owner=user, id=project_id)
    except (Project.DoesNotExist, ValidationError, ValueError) as exc:
        raise Http404("No such project.") from exc
