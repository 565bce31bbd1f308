"""The admin as every user's knowledge editor, scoped to the requesting user (DESIGN §3).

Any active, logged-in user may open the admin; each ModelAdmin built on OwnedModelAdmin
shows, offers as choices, autocompletes and edits only rows the user owns. Superusers see
everything. Another user's object answers 404, as everywhere else.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db import models
from django.db.models import QuerySet
from django.http import Http404, HttpRequest


def owner_lookup(model: type[models.Model]) -> str | None:
    """The ORM path from ``model`` to its owning user, or None for unowned models."""
    names = {field.name for field in model._meta.get_fields()}
    for candidate, path in (("user", "user"), ("owner", "owner"), ("project", "project__owner")):
        if candidate in names:
            return path
    for candidate in ("document", "source", "conversation"):
        if candidate in names:
            related = model._meta.get_field(candidate).related_model
            inner = owner_lookup(related) if isinstance(related, type) else None
            if inner:
                return f"{candidate}__{inner}"
    return None


def scope_to_user(queryset: QuerySet[Any], request: HttpRequest) -> QuerySet[Any]:
    if request.user.is_superuser:
        return queryset
    lookup = owner_lookup(queryset.model)
    if lookup is None:
        return queryset.none()
    return queryset.filter(**{lookup: request.user})


class OwnedScopingMixin:
    """Shared by ModelAdmins and inlines: querysets and every relation choice are scoped."""

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return scope_to_user(super().get_queryset(request), request)  # type: ignore[misc]

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        field = super().formfield_for_foreignkey(db_field, request, **kwargs)  # type: ignore[misc]
        if field is not None and hasattr(field, "queryset"):
            field.queryset = scope_to_user(field.queryset, request)
        return field

    def formfield_for_manytomany(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        field = super().formfield_for_manytomany(db_field, request, **kwargs)  # type: ignore[misc]
        if field is not None and hasattr(field, "queryset"):
            field.queryset = scope_to_user(field.queryset, request)
        return field

    def _user_may_edit(self, request: HttpRequest) -> bool:
        return bool(request.user.is_active and request.user.is_authenticated)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self._user_may_edit(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._user_may_edit(request)

    def has_add_permission(self, request: HttpRequest, *args: Any) -> bool:
        return self._user_may_edit(request)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._user_may_edit(request)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._user_may_edit(request)


class OwnedModelAdmin(OwnedScopingMixin, admin.ModelAdmin):
    owner_field = "user"

    def _get_obj_does_not_exist_redirect(
        self, request: HttpRequest, opts: Any, object_id: str
    ) -> Any:
        # Django redirects with a message; Cairn answers 404 so existence is never leaked.
        raise Http404("No such object.")


class OwnedTabularInline(OwnedScopingMixin, admin.TabularInline):
    pass
