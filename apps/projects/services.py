from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.text import slugify

from apps.core.validation import required_text

from .models import Project
from .selectors import project_get

if TYPE_CHECKING:
    from apps.accounts.models import User

PERSONAL_PROJECT_NAME = "Personal"


def _unique_slug(*, owner: User, name: str, exclude_id: uuid.UUID | None = None) -> str:
    base = slugify(name)[:120] or "project"
    others = Project.objects.filter(owner=owner, slug__startswith=base)
    if exclude_id is not None:
        others = others.exclude(id=exclude_id)
    taken = set(others.values_list("slug", flat=True))
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}-{n}", n + 1
    return slug


def _validate_name(name: str) -> str:
    name = required_text(name, field="name", what="A project's name")
    if len(name) > 120:
        raise ValidationError({"name": "A project name has at most 120 characters."})
    return name


def project_create(*, owner: User, name: str, description: str = "") -> Project:
    name = _validate_name(name)
    for _attempt in range(3):
        try:
            with transaction.atomic():
                return Project.objects.create(
                    owner=owner,
                    name=name,
                    description=description,
                    slug=_unique_slug(owner=owner, name=name),
                )
        except IntegrityError:
            continue  # a concurrent create took the slug; pick the next one
    raise ValidationError({"name": "Could not find a free slug for this name; try another."})


def project_update(
    *,
    project: Project,
    name: str | None = None,
    description: str | None = None,
    archived: bool | None = None,
) -> Project:
    if name is not None and name.strip() != project.name:
        project.name = _validate_name(name)
        project.slug = _unique_slug(owner=project.owner, name=project.name, exclude_id=project.id)
    if description is not None:
        project.description = description
    if archived is not None:
        project.archived = archived
    project.save()
    return project


def project_archive(*, project: Project) -> Project:
    return project_update(project=project, archived=True)


def project_ensure_personal(*, user: User) -> Project:
    """Every user has a Personal project; it is created with the account (or on first use)."""
    project = Project.objects.filter(owner=user, slug="personal").first()
    if project is None:
        project = project_create(
            owner=user, name=PERSONAL_PROJECT_NAME, description="Your default workspace."
        )
    return project


def project_chosen_or_personal(*, user: User, project_id: object) -> Project:
    """The project a request names (another user's answers 404), or the user's Personal
    project when it names none."""
    if project_id:
        return project_get(user=user, project_id=str(project_id))
    return project_ensure_personal(user=user)
