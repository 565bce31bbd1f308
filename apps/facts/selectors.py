"""Reads of project facts, always through the requesting user's own project (DESIGN §3).

Each selector takes the user and a project id and resolves the project with
``project_get``: a project of another user, or an id that is not a UUID, answers 404.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import Http404

from apps.projects.models import Project
from apps.projects.selectors import project_get

from .models import ProjectFact
from .services.values import normalize_key

if TYPE_CHECKING:
    from apps.accounts.models import User

# Namespaces of non-ranked facts, in the order the page shows them, with their titles.
NAMESPACE_TITLES = {
    "profile": "About you",
    "dates": "Dates",
    "quantities": "Amounts",
    "relations": "People close to you",
    "mentioned": "Mentioned in passing",
}


@dataclass
class FactGroup:
    """One topic's current facts: a ranked list (``ranked``, in rank order) or a namespace."""

    topic: str
    title: str
    ranked: bool
    facts: list[ProjectFact] = field(default_factory=list)


def _project(user: User, project_id: str | uuid.UUID) -> Project:
    return project_get(user=user, project_id=project_id)


def facts_current(*, user: User, project_id: str | uuid.UUID) -> QuerySet[ProjectFact]:
    """The project's current facts: ranked lists by topic and rank, then the others by key."""
    project = _project(user, project_id)
    return ProjectFact.objects.filter(project=project, is_current=True).order_by(
        "topic", "rank", "fact_key"
    )


def facts_all(*, user: User, project_id: str | uuid.UUID) -> QuerySet[ProjectFact]:
    """Every row of the project, current or not: the full history, by key, newest first."""
    project = _project(user, project_id)
    return ProjectFact.objects.filter(project=project).order_by("fact_key", "-created_at")


def fact_history(*, user: User, project_id: str | uuid.UUID, key: str) -> QuerySet[ProjectFact]:
    """One key's rows, newest first — its ``supersedes`` chain from head to first value.
    A key the project never held answers 404, as an unknown object does."""
    project = _project(user, project_id)
    try:
        clean_key = normalize_key(key)
    except ValidationError as exc:  # a malformed key names nothing
        raise Http404("No such fact.") from exc
    rows = ProjectFact.objects.filter(project=project, fact_key=clean_key).order_by("-created_at")
    if not rows.exists():
        raise Http404("No such fact.")
    return rows


def fact_groups(*, user: User, project_id: str | uuid.UUID) -> list[FactGroup]:
    """The project's current facts grouped by topic for display: ranked lists first (by
    topic, items in rank order), then the namespaces in ``NAMESPACE_TITLES`` order, then
    any other namespace alphabetically."""
    ranked: dict[str, FactGroup] = {}
    plain: dict[str, FactGroup] = {}
    for fact in facts_current(user=user, project_id=project_id).select_related("source_message"):
        if fact.rank is not None:
            group = ranked.setdefault(
                fact.topic, FactGroup(fact.topic, topic_title(fact.topic, ranked=True), True)
            )
        else:
            group = plain.setdefault(
                fact.topic, FactGroup(fact.topic, topic_title(fact.topic, ranked=False), False)
            )
        group.facts.append(fact)
    order = list(NAMESPACE_TITLES)
    others = sorted(
        plain.values(), key=lambda g: (order.index(g.topic) if g.topic in order else 99, g.topic)
    )
    return [ranked[topic] for topic in sorted(ranked)] + others


def facts_earlier_versions(
    *, user: User, project_id: str | uuid.UUID, keys: list[str]
) -> dict[str, list[ProjectFact]]:
    """For each of ``keys``, its non-current rows, newest first (one query)."""
    project = _project(user, project_id)
    earlier: dict[str, list[ProjectFact]] = {}
    rows = ProjectFact.objects.filter(
        project=project, fact_key__in=keys, is_current=False
    ).order_by("fact_key", "-created_at")
    for row in rows:
        earlier.setdefault(row.fact_key, []).append(row)
    return earlier


def facts_retracted_keys(*, user: User, project_id: str | uuid.UUID) -> list[ProjectFact]:
    """The retracted heads: keys the project once held and holds no value for now."""
    project = _project(user, project_id)
    return list(
        ProjectFact.objects.filter(
            project=project, retracted_at__isnull=False, superseded_by__isnull=True
        ).order_by("fact_key")
    )


def topic_title(topic: str, *, ranked: bool) -> str:
    words = topic.replace("_", " ")
    if ranked:
        return f"Favorite {words}"
    return NAMESPACE_TITLES.get(topic, words[:1].upper() + words[1:])
