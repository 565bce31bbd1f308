"""ContextAdmin: the context tree in the knowledge editor, written through the services.

Moves are checked by ``context_move`` (no cycles, at most ten levels); its refusals are
shown as form errors (apps/core/admin_services.py)."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.contrib import admin
from django.contrib.admin.widgets import AutocompleteSelectMultiple
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from apps.claims.models import Claim
from apps.core.admin_scoping import OwnedModelAdmin, scope_to_user
from apps.core.admin_services import (
    ServiceAdminMixin,
    ServiceForm,
    admin_link,
    admin_links,
    copy_row,
    service_call,
)
from apps.core.request_user import current_user

from .models import Context
from .selectors import context_ancestors, context_resolved_queryset
from .services import (
    context_add_claims,
    context_create,
    context_delete,
    context_move,
    context_remove_claims,
    context_update,
)

RESOLVED_SHOWN = 50


class ContextForm(ServiceForm):
    member_claims = forms.ModelMultipleChoiceField(
        queryset=Claim.objects.none(),
        required=False,
        label="Claims",
        help_text="Claims linked to this context itself. Referencing the context also "
        "pulls in the claims of every context below it.",
    )

    class Meta:
        model = Context
        fields = ["name", "friendly_id", "parent", "description"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        assert self.request is not None, "ContextForm is built by ContextAdmin.get_form"
        field = cast(forms.ModelMultipleChoiceField, self.fields["member_claims"])
        field.widget = AutocompleteSelectMultiple(Context._meta.get_field("claims"), admin.site)
        field.queryset = scope_to_user(Claim.objects.all(), self.request)  # sets its choices
        if self.adding:
            self.fields["friendly_id"].required = False
            self.fields[
                "friendly_id"
            ].help_text = (
                "Leave blank to generate one from the name, or choose a short one (ssdva)."
            )
        else:
            self.initial["member_claims"] = list(self.instance.claims.all())


@admin.register(Context)
class ContextAdmin(ServiceAdminMixin, OwnedModelAdmin):
    owner_field = "user"
    form = ContextForm
    list_display = ["name", "friendly_id", "parent", "claims_label", "updated_at"]
    search_fields = ["name", "friendly_id", "description"]
    readonly_fields = [
        "breadcrumb",
        "children_display",
        "resolved_claims",
        "created_at",
        "updated_at",
    ]
    list_select_related = ["parent"]

    def get_fieldsets(self, request: HttpRequest, obj: Context | None = None) -> Any:
        main = ["name", "friendly_id", "parent", "description", "member_claims"]
        if obj is None:
            return [(None, {"fields": main})]
        return [
            (None, {"fields": ["breadcrumb", *main]}),
            ("In this context", {"fields": ["children_display", "resolved_claims"]}),
            ("Dates", {"classes": ["collapse"], "fields": ["created_at", "updated_at"]}),
        ]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Context]:
        # An aggregate drops Meta.ordering (GROUP BY), so order explicitly.
        return (
            super()
            .get_queryset(request)
            .annotate(claim_count=Count("memberships"))
            .order_by("name")
        )

    # Writes -------------------------------------------------------------------------------

    def save_model(
        self, request: HttpRequest, obj: Context, form: forms.Form, change: bool
    ) -> None:
        data = form.cleaned_data
        with service_call():
            if change:
                saved = Context.objects.get(pk=obj.pk)
                context_update(
                    context=saved,
                    name=data["name"],
                    description=data["description"],
                    friendly_id=data["friendly_id"],
                )
                parent = data["parent"]
                if saved.parent_id != (parent.pk if parent else None):
                    context_move(context=saved, parent=parent)
            else:
                saved = context_create(
                    user=current_user(request),
                    name=data["name"],
                    description=data["description"],
                    parent=data["parent"],
                    friendly_id=data["friendly_id"] or None,
                )
        copy_row(source=saved, target=obj)

    def save_related(
        self, request: HttpRequest, form: forms.Form, formsets: Any, change: bool
    ) -> None:
        context: Context = form.instance  # type: ignore[attr-defined]
        wanted = set(form.cleaned_data.get("member_claims") or [])
        current = set(context.claims.all())
        with service_call():
            if wanted - current:
                context_add_claims(context=context, claims=wanted - current)
            if current - wanted:
                context_remove_claims(context=context, claims=current - wanted)

    def delete_model(self, request: HttpRequest, obj: Context) -> None:
        context_delete(context=obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Context]) -> None:
        for context in queryset:
            context_delete(context=context)

    # Columns and read-only fields -------------------------------------------------------

    @admin.display(description="claims", ordering="claim_count")
    def claims_label(self, obj: Context) -> int:
        return int(getattr(obj, "claim_count", 0))

    @admin.display(description="path")
    def breadcrumb(self, obj: Context) -> SafeString:
        ancestors = [admin_link(ancestor) for ancestor in context_ancestors(context=obj)]
        parts = [*ancestors, format_html("<strong>{}</strong>", obj.name)]
        return format_html_join(mark_safe(" &rsaquo; "), "{}", ((part,) for part in parts))

    @admin.display(description="contexts below")
    def children_display(self, obj: Context) -> SafeString | str:
        return admin_links(obj.children.order_by("name"), empty="No contexts below this one.")

    @admin.display(description="claims it resolves to")
    def resolved_claims(self, obj: Context) -> SafeString | str:
        claims = list(context_resolved_queryset(user=obj.user, context=obj)[: RESOLVED_SHOWN + 1])
        if not claims:
            return "No active or contested claims in this context or below it."
        rows = format_html_join(
            mark_safe("<br>"), "{}", ((admin_link(claim),) for claim in claims[:RESOLVED_SHOWN])
        )
        if len(claims) <= RESOLVED_SHOWN:
            return rows
        url = reverse("admin:claims_claim_changelist") + f"?context={obj.pk}"
        return format_html('{}<br><a href="{}">All of them…</a>', rows, url)
