"""Changelist filters for claims. Choices come from the requesting user's own rows."""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from apps.claims.models import Claim, ClaimType, Domain, Tag
from apps.claims.selectors import tag_descendant_ids
from apps.contexts.models import Context
from apps.contexts.selectors import claims_in_context
from apps.core.admin_scoping import scope_to_user


class _ArrayChoiceFilter(admin.SimpleListFilter):
    """Claims whose array field contains the chosen value."""

    field_name = ""
    options: list[tuple[str, str]] = []

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return self.options

    def queryset(self, request: HttpRequest, queryset: QuerySet[Claim]) -> QuerySet[Claim]:
        value = self.value()
        if value not in dict(self.options):
            return queryset
        return queryset.filter(**{f"{self.field_name}__contains": [value]})


class ClaimTypeFilter(_ArrayChoiceFilter):
    title = "type"
    parameter_name = "type"
    field_name = "claim_types"
    options = list(ClaimType.choices)


class DomainFilter(_ArrayChoiceFilter):
    title = "domain"
    parameter_name = "domain"
    field_name = "domains"
    options = list(Domain.choices)


def _as_uuid(value: str | None) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None


class ContextFilter(admin.SimpleListFilter):
    """Claims in the context or any context below it, as referencing it would pull in."""

    title = "context"
    parameter_name = "context"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        contexts = scope_to_user(Context.objects.order_by("name"), request)
        return [(str(pk), name) for pk, name in contexts.values_list("pk", "name")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Claim]) -> QuerySet[Claim]:
        pk = _as_uuid(self.value()) if self.value() else None
        if pk is None:
            return queryset
        context = scope_to_user(Context.objects.all(), request).filter(pk=pk).first()
        if context is None:
            return queryset.none()
        members = claims_in_context(user=context.user, context=context)
        return queryset.filter(pk__in=members.values("pk"))


class TagFilter(admin.SimpleListFilter):
    """Claims with the tag or any tag below it."""

    title = "tag"
    parameter_name = "tag"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        tags = scope_to_user(Tag.objects.order_by("name"), request)
        return [(str(pk), name) for pk, name in tags.values_list("pk", "name")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Claim]) -> QuerySet[Claim]:
        pk = _as_uuid(self.value()) if self.value() else None
        if pk is None:
            return queryset
        tag = scope_to_user(Tag.objects.all(), request).filter(pk=pk).first()
        if tag is None:
            return queryset.none()
        ids = tag_descendant_ids(user=tag.user, tag=tag)
        return queryset.filter(pk__in=Claim.objects.filter(tags__id__in=ids).values("pk"))
