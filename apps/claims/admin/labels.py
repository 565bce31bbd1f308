"""EntityAdmin and TagAdmin: what claims mention and how the user labels them."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest

from apps.claims.models import Claim, Entity, Tag
from apps.claims.services import (
    entity_create,
    entity_link_claims,
    entity_update,
    tag_create,
    tag_link_claims,
    tag_update,
)
from apps.core.admin_scoping import OwnedModelAdmin
from apps.core.admin_services import ServiceAdminMixin, ServiceForm, copy_row, service_call
from apps.core.request_user import current_user

FRIENDLY_ID_HELP = "Leave blank on a new one to generate it from the name."


class _LabelForm(ServiceForm):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.adding and "friendly_id" in self.fields:
            self.fields["friendly_id"].required = False
            self.fields["friendly_id"].help_text = FRIENDLY_ID_HELP


class EntityForm(_LabelForm):
    class Meta:
        model = Entity
        fields = ["name", "entity_type", "friendly_id", "description", "claims"]


class TagForm(_LabelForm):
    class Meta:
        model = Tag
        fields = ["name", "parent", "friendly_id", "claims"]


def _sync_claims(
    owner: Entity | Tag, wanted: Iterable[Claim], *, link: Callable[[list[Claim]], None]
) -> None:
    current = set(owner.claims.all())
    wanted = set(wanted)
    if wanted - current:
        link(list(wanted - current))
    if current - wanted:
        # The services link claims but have no "unlink"; removing a link is plain ORM.
        owner.claims.remove(*(current - wanted))


class _LabelAdmin(ServiceAdminMixin, OwnedModelAdmin):
    owner_field = "user"
    autocomplete_fields = ["claims"]
    readonly_fields = ["created_at", "updated_at"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        # An aggregate drops Meta.ordering (GROUP BY), so order explicitly.
        return super().get_queryset(request).annotate(claim_count=Count("claims")).order_by("name")

    @admin.display(description="claims", ordering="claim_count")
    def claims_label(self, obj: Any) -> int:
        return int(obj.claim_count)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        for obj in queryset:
            self.delete_model(request, obj)


@admin.register(Entity)
class EntityAdmin(_LabelAdmin):
    form = EntityForm
    list_display = ["name", "entity_type", "friendly_id", "claims_label", "updated_at"]
    list_filter = ["entity_type"]
    search_fields = ["name", "friendly_id", "description"]
    fields = [
        "name",
        "entity_type",
        "friendly_id",
        "description",
        "claims",
        "created_at",
        "updated_at",
    ]

    def save_model(self, request: HttpRequest, obj: Entity, form: forms.Form, change: bool) -> None:
        data = form.cleaned_data
        with service_call():
            if change:
                saved = entity_update(
                    entity=Entity.objects.get(pk=obj.pk),
                    name=data["name"],
                    entity_type=data["entity_type"],
                    description=data["description"],
                    friendly_id=data["friendly_id"],
                )
            else:
                saved = entity_create(
                    user=current_user(request),
                    name=data["name"],
                    entity_type=data["entity_type"],
                    description=data["description"],
                    friendly_id=data["friendly_id"] or None,
                )
        copy_row(source=saved, target=obj)

    def save_related(
        self, request: HttpRequest, form: forms.Form, formsets: Any, change: bool
    ) -> None:
        entity: Entity = form.instance  # type: ignore[attr-defined]
        with service_call():
            _sync_claims(
                entity,
                form.cleaned_data.get("claims") or [],
                link=lambda claims: entity_link_claims(entity=entity, claims=claims),
            )


@admin.register(Tag)
class TagAdmin(_LabelAdmin):
    form = TagForm
    list_display = ["name", "friendly_id", "parent", "claims_label", "updated_at"]
    search_fields = ["name", "friendly_id"]
    fields = ["name", "parent", "friendly_id", "claims", "created_at", "updated_at"]

    def save_model(self, request: HttpRequest, obj: Tag, form: forms.Form, change: bool) -> None:
        data = form.cleaned_data
        with service_call():
            if change:
                saved = tag_update(
                    tag=Tag.objects.get(pk=obj.pk),
                    name=data["name"],
                    parent=data["parent"],
                    friendly_id=data["friendly_id"],
                )
            else:
                saved = tag_create(
                    user=current_user(request),
                    name=data["name"],
                    parent=data["parent"],
                    friendly_id=data["friendly_id"] or None,
                )
        copy_row(source=saved, target=obj)

    def save_related(
        self, request: HttpRequest, form: forms.Form, formsets: Any, change: bool
    ) -> None:
        tag: Tag = form.instance  # type: ignore[attr-defined]
        with service_call():
            _sync_claims(
                tag,
                form.cleaned_data.get("claims") or [],
                link=lambda claims: tag_link_claims(tag=tag, claims=claims),
            )
