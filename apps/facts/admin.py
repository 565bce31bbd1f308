"""ProjectFact in the admin: every user's facts editor, scoped to their own projects.

Rows are history, so they are never edited or deleted here. *Adding* a fact and *changing*
a current fact's value both call ``fact_store`` (a change writes a new row that supersedes
the old one, which stays in the history); *retracting* calls ``fact_retract``. Earlier rows
open read-only. Deleting is not offered: retract instead.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.text import Truncator
from django.views.decorators.http import require_POST

from apps.core.admin_scoping import OwnedModelAdmin
from apps.core.date_labels import moment_label

from .models import FactOrigin, ProjectFact
from .services import fact_retract, fact_store, normalize_key, normalize_value

# A service's error keys, as the form's field names.
_FORM_FIELD = {"key": "fact_key", "value": "value_text", "value_type": "value_type"}


class ProjectFactForm(forms.ModelForm):
    class Meta:
        model = ProjectFact
        fields = ["project", "fact_key", "value_text", "value_type"]
        labels = {"fact_key": "Key", "value_text": "Value"}
        help_texts = {
            "fact_key": "Dot-separated, e.g. user.favorites.crypto.1 or user.email. "
            "Setting a key that already has a value replaces it; the old value stays in "
            "the history.",
        }
        widgets = {"value_text": forms.Textarea(attrs={"rows": 3})}

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        try:
            if "fact_key" in self.fields and data.get("fact_key") is not None:
                data["fact_key"] = normalize_key(data["fact_key"])
            if data.get("value_type"):
                data["value_text"] = normalize_value(data.get("value_text"), data["value_type"])
        except ValidationError as error:
            for name, errors in error.message_dict.items():
                self.add_error(_FORM_FIELD.get(name), errors)
        return data


@admin.register(ProjectFact)
class ProjectFactAdmin(OwnedModelAdmin):
    owner_field = "project__owner"  # facts belong to a project, the project to its owner
    form = ProjectFactForm
    change_form_template = "facts/admin/change_form.html"
    list_display = [
        "fact_key",
        "value_excerpt",
        "value_type",
        "project",
        "status_label",
        "origin",
        "effective_at",
    ]
    list_filter = [
        "is_current",
        ("project", admin.RelatedOnlyFieldListFilter),
        "value_type",
        "origin",
        "topic",
    ]
    search_fields = ["fact_key", "value_text"]
    search_help_text = "Words of a key or a value."
    list_select_related = ["project"]
    actions = ["retract_selected"]
    readonly_fields = [
        "status_label",
        "topic",
        "rank",
        "origin",
        "kind",
        "confidence",
        "source_message_display",
        "effective_at",
        "created_at",
        "history_display",
    ]
    list_per_page = 100

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        main = ["project", "fact_key", "value_text", "value_type"]
        if obj is None:
            return [(None, {"fields": main})]
        return [
            (None, {"fields": [*main, "status_label"]}),
            ("History", {"fields": ["history_display"]}),
            (
                "Provenance",
                {
                    "fields": [
                        "topic",
                        "rank",
                        "origin",
                        "kind",
                        "confidence",
                        "source_message_display",
                        "effective_at",
                        "created_at",
                    ]
                },
            ),
        ]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        fields = list(super().get_readonly_fields(request, obj))
        if obj is not None:
            fields += ["project", "fact_key"]  # a key is renamed by setting another one
        return fields

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Earlier rows are history: they open read-only.
        allowed = super().has_change_permission(request, obj)
        return allowed and (obj is None or obj.is_current)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    # Writes -------------------------------------------------------------------------------

    def save_model(self, request: HttpRequest, obj: ProjectFact, form: Any, change: bool) -> None:
        data = form.cleaned_data
        project = obj.project if change else data["project"]
        result = fact_store(
            project=project,
            key=obj.fact_key if change else data["fact_key"],
            value=data["value_text"],
            value_type=data["value_type"],
            origin=FactOrigin.MANUAL,
        )
        if result.outcome == "unchanged":
            messages.info(request, f"{result.fact.fact_key} already had this value.")
        elif result.outcome == "updated":
            messages.info(request, "The previous value is kept in the history.")
        # The admin goes on with the row now current (its log entry and redirect).
        obj.__dict__.update(
            {name: value for name, value in result.fact.__dict__.items() if name != "_state"}
        )
        obj._state.adding = False

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        pass  # no relations to save: the service wrote everything

    @admin.action(description="Retract the selected facts (history is kept)")
    def retract_selected(self, request: HttpRequest, queryset: QuerySet[ProjectFact]) -> None:
        retracted = 0
        for fact in queryset.filter(is_current=True).select_related("project"):
            retracted += fact_retract(project=fact.project, key=fact.fact_key) is not None
        self.message_user(request, f"Retracted {retracted} fact{'s' * (retracted != 1)}.")

    def get_urls(self) -> list[URLPattern]:
        retract = path(
            "<path:object_id>/retract/",
            self.admin_site.admin_view(require_POST(self.retract_view)),
            name="facts_projectfact_retract",
        )
        return [retract, *super().get_urls()]

    def retract_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        fact = self.get_object(request, object_id)
        if fact is None:
            raise Http404("No such fact.")
        if fact_retract(project=fact.project, key=fact.fact_key) is None:
            messages.warning(request, "This fact is no longer current; nothing was retracted.")
        else:
            messages.success(request, f"Retracted {fact.fact_key}; its history is kept.")
        return HttpResponseRedirect(reverse("admin:facts_projectfact_change", args=[fact.pk]))

    # Columns and read-only fields -------------------------------------------------------

    @admin.display(description="value")
    def value_excerpt(self, obj: ProjectFact) -> str:
        return Truncator(obj.value_text).chars(80)

    @admin.display(description="status", ordering="is_current")
    def status_label(self, obj: ProjectFact) -> str:
        return obj.status

    @admin.display(description="history (newest first)")
    def history_display(self, obj: ProjectFact) -> SafeString:
        rows = ProjectFact.objects.filter(project=obj.project, fact_key=obj.fact_key).order_by(
            "-created_at"
        )
        items = [
            (
                reverse("admin:facts_projectfact_change", args=[row.pk]),
                Truncator(row.value_text).chars(120),
                " (this row)" if row.pk == obj.pk else "",
                row.status,
                row.get_origin_display(),
                moment_label(row.effective_at),
            )
            for row in rows
        ]
        return format_html(
            "<ol>{}</ol>",
            format_html_join("", '<li><a href="{}">{}</a>{} — {}, {}, {}</li>', items),
        )

    @admin.display(description="source message")
    def source_message_display(self, obj: ProjectFact) -> SafeString | str:
        message = obj.source_message
        if message is None:
            return "—"
        text = message.content
        if obj.span_start is not None and obj.span_end is not None:
            text = text[obj.span_start : obj.span_end]
        when = moment_label(message.created_at)
        return format_html(
            "{} message of {}: “{}”", message.get_role_display(), when, Truncator(text).chars(300)
        )
