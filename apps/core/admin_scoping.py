"""The admin as every user's knowledge editor, scoped to the requesting user (DESIGN §3).

Any active, logged-in user may open the admin; each ModelAdmin built on OwnedModelAdmin
shows, offers as choices, autocompletes and edits only rows the user owns. Superusers see
everything. Another user's object answers 404, as everywhere else.

Where a row's owner is, each admin says in ``owner_field`` (an ORM path ending at the
user): its own list and the choices other admins offer of its model both follow it. It is
never guessed from field names; ``manage.py check`` fails on an owned admin that does not
declare it, on a path that does not end at a user, and on an admin of a model that
belongs to a user (through its foreign keys) that is not an owned one.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.core import checks
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.db.models import QuerySet
from django.http import Http404, HttpRequest


def owner_field_of(model: type[models.Model], *, site: admin.AdminSite | None = None) -> str | None:
    """The ``owner_field`` the site's admin of ``model`` declares; None when the model has
    no owned admin there (its rows are then offered to superusers only)."""
    model_admin = (site or admin.site)._registry.get(model)
    if isinstance(model_admin, OwnedScopingMixin):
        return model_admin.owner_field
    return None


def scope_to_user(
    queryset: QuerySet[Any],
    request: HttpRequest,
    *,
    owner_field: str | None = None,
    site: admin.AdminSite | None = None,
) -> QuerySet[Any]:
    """The rows of ``queryset`` the requesting user owns, found through ``owner_field``
    (by default the one its model's admin declares)."""
    if request.user.is_superuser:
        return queryset
    lookup = owner_field or owner_field_of(queryset.model, site=site)
    if lookup is None:
        return queryset.none()
    return queryset.filter(**{lookup: request.user})


def owner_path_problem(model: type[models.Model], path: str) -> str | None:
    """Why ``path`` does not lead from ``model`` to its owning user, or None when it does."""
    current: Any = model
    for name in path.split("__"):
        try:
            field = current._meta.get_field(name)
        except FieldDoesNotExist:
            return f"{current.__name__} has no field {name!r}"
        if not field.is_relation or field.related_model is None:
            return f"{current.__name__}.{name} is not a relation"
        current = field.related_model
    if current is not get_user_model():
        return f"it ends at {current.__name__}, not at the user model"
    return None


def belongs_to_a_user(model: type[models.Model], *, seen: frozenset[Any] = frozenset()) -> bool:
    """Whether ``model``'s rows are someone's: a foreign key leads, directly or through
    other models' foreign keys, to the user model."""
    user_model = get_user_model()
    for field in model._meta.get_fields():
        if not (field.many_to_one or field.one_to_one) or not field.concrete:
            continue
        related = field.related_model
        if related is user_model:
            return True
        if (
            isinstance(related, type)
            and related not in seen
            and related is not model
            and belongs_to_a_user(related, seen=seen | {model})
        ):
            return True
    return False


def unowned_admin_errors(site: admin.AdminSite) -> list[checks.CheckMessage]:
    """An admin of a model that belongs to a user must be an owned one: a plain ModelAdmin
    would list every user's rows to whoever may open it."""
    return [
        checks.Error(
            f"{type(model_admin).__name__} edits {model.__name__}, whose rows belong to a "
            "user, without scoping them to the requesting user.",
            hint="Build it on apps.core.admin_scoping.OwnedModelAdmin with an owner_field.",
            obj=model_admin,
            id="cairn.E103",
        )
        for model, model_admin in site._registry.items()
        if model is not get_user_model()
        and not isinstance(model_admin, OwnedScopingMixin)
        and belongs_to_a_user(model)
    ]


class OwnedScopingMixin:
    """Shared by ModelAdmins and inlines: querysets and every relation choice are scoped.
    Each admin declares ``owner_field``, the path from its model to the owning user."""

    owner_field: ClassVar[str]
    model: type[models.Model]
    admin_site: admin.AdminSite

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        queryset = super().get_queryset(request)  # type: ignore[misc]
        return scope_to_user(queryset, request, owner_field=self.owner_field)

    def check(self, **kwargs: Any) -> list[checks.CheckMessage]:
        errors: list[checks.CheckMessage] = super().check(**kwargs)  # type: ignore[misc]
        name = type(self).__name__
        declared = getattr(self, "owner_field", None)
        if not declared:
            errors.append(
                checks.Error(
                    f"{name} does not declare owner_field: whose rows of "
                    f"{self.model.__name__} it shows is never guessed.",
                    hint='Set owner_field to the path to the owning user ("user", '
                    '"project__owner" …).',
                    obj=self,
                    id="cairn.E101",
                )
            )
        elif problem := owner_path_problem(self.model, declared):
            errors.append(
                checks.Error(
                    f"{name}.owner_field {declared!r} does not lead to the owning user: {problem}.",
                    obj=self,
                    id="cairn.E102",
                )
            )
        return errors

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        field = super().formfield_for_foreignkey(db_field, request, **kwargs)  # type: ignore[misc]
        if field is not None and hasattr(field, "queryset"):
            field.queryset = scope_to_user(field.queryset, request, site=self.admin_site)
        return field

    def formfield_for_manytomany(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        field = super().formfield_for_manytomany(db_field, request, **kwargs)  # type: ignore[misc]
        if field is not None and hasattr(field, "queryset"):
            field.queryset = scope_to_user(field.queryset, request, site=self.admin_site)
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
    def _get_obj_does_not_exist_redirect(
        self, request: HttpRequest, opts: Any, object_id: str
    ) -> Any:
        # Django redirects with a message; Cairn answers 404 so existence is never leaked.
        raise Http404("No such object.")


class OwnedTabularInline(OwnedScopingMixin, admin.TabularInline):
    pass
