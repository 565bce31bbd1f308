"""ClaimAdmin: the claim editor. Every write is a service call (see base.py)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Q, QuerySet
from django.forms import Form
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.text import Truncator

from apps.claims.models import CLAIM_EDITABLE_FIELDS, Claim, ClaimOrigin, Tag
from apps.claims.presentation import (
    number_from_term,
    source_message_url,
    supersession_chain,
    type_labels,
)
from apps.claims.services import (
    claim_create,
    claim_delete,
    claim_supersede,
    claim_update,
    tag_link_claims,
)
from apps.contexts.models import Context
from apps.contexts.services import (
    context_add_claims,
    context_remove_claims,
    context_transfer_memberships,
)
from apps.core.admin_scoping import OwnedModelAdmin
from apps.core.admin_services import (
    ServiceAdminMixin,
    admin_link,
    admin_links,
    copy_row,
    service_call,
)
from apps.core.date_labels import moment_label
from apps.core.request_user import current_user

from . import actions
from .filters import ClaimTypeFilter, ContextFilter, DomainFilter, TagFilter
from .forms import ClaimAdminForm

MAIN_FIELDS = ["statement", "friendly_id", "claim_types", "domains", "status", "pinned"]
ADD_FIELDSETS = [
    (None, {"fields": [*MAIN_FIELDS, "possible_questions"]}),
    ("Links", {"fields": ["contexts", "tags", "supersedes"]}),
    (
        "Details",
        {
            "classes": ["collapse"],
            "fields": ["confidence", "valid_from", "valid_until", "metadata"],
        },
    ),
]
CHANGE_FIELDSETS = [
    (None, {"fields": ["number_label", *MAIN_FIELDS, "possible_questions"]}),
    ("Links", {"fields": ["contexts", "tags", "entities_display", "supersession_display"]}),
    (
        "Provenance",
        {
            "fields": [
                "origin",
                "source_message_display",
                "confidence",
                "reinforced_count",
                "valid_from",
                "valid_until",
                "metadata",
                "created_at",
                "updated_at",
            ]
        },
    ),
]


@admin.register(Claim)
class ClaimAdmin(ServiceAdminMixin, OwnedModelAdmin):
    owner_field = "user"
    form = ClaimAdminForm
    list_display = [
        "number_label",
        "friendly_id",
        "excerpt",
        "types_label",
        "status",
        "pinned",
        "updated_at",
    ]
    list_display_links = ["number_label", "friendly_id"]
    list_filter = [ClaimTypeFilter, DomainFilter, "status", "pinned", ContextFilter, TagFilter]
    search_fields = ["statement", "friendly_id"]
    search_help_text = "Words of the statement, a friendly ID, or a number (42 or #42)."
    actions = [
        actions.pin_claims,
        actions.unpin_claims,
        actions.retract_claims,
        actions.approve_pending,
        actions.reject_pending,
        actions.add_to_context,
    ]
    autocomplete_fields = ["supersedes"]
    readonly_fields = [
        "number_label",
        "origin",
        "source_message_display",
        "entities_display",
        "supersession_display",
        "reinforced_count",
        "created_at",
        "updated_at",
    ]
    list_per_page = 50

    class Media:
        # The statement is what a person reads the list for: give it the room (issue 18).
        css = {"all": ["css/admin-claims.css"]}

    def get_fieldsets(self, request: HttpRequest, obj: Claim | None = None) -> Any:
        return ADD_FIELDSETS if obj is None else CHANGE_FIELDSETS

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Claim], search_term: str
    ) -> tuple[QuerySet[Claim], bool]:
        number = number_from_term(search_term)
        if number is not None:
            # "42" or "#42" means claim #42, or a statement that mentions 42 — not every
            # friendly ID whose random hex suffix happens to contain the digits.
            digits = search_term.strip().lstrip("#")
            return queryset.filter(Q(number=number) | Q(statement__icontains=digits)), False
        return super().get_search_results(request, queryset, search_term)

    # Writes -------------------------------------------------------------------------------

    def save_model(self, request: HttpRequest, obj: Claim, form: Form, change: bool) -> None:
        data = {
            name: form.cleaned_data[name]
            for name in CLAIM_EDITABLE_FIELDS
            if name in form.cleaned_data
        }
        with service_call():
            if change:
                saved = Claim.objects.get(pk=obj.pk)
                changes = {name: value for name, value in data.items() if name in form.changed_data}
                if changes:
                    saved = claim_update(claim=saved, **changes)
            else:
                data["friendly_id"] = data.get("friendly_id") or None
                replaced: Claim | None = form.cleaned_data.get("supersedes")
                if replaced is not None:
                    saved = claim_supersede(
                        claim=replaced,
                        statement=data.pop("statement"),
                        origin=ClaimOrigin.MANUAL,
                        **data,
                    )
                    context_transfer_memberships(old=replaced, new=saved)
                else:
                    saved = claim_create(
                        user=current_user(request), origin=ClaimOrigin.MANUAL, **data
                    )
        copy_row(source=saved, target=obj)

    def save_related(self, request: HttpRequest, form: Form, formsets: Any, change: bool) -> None:
        # Claim has no forward many-to-many fields, so form.save_m2m() has nothing to do;
        # its contexts and tags are linked through their services instead.
        claim: Claim = form.instance  # type: ignore[attr-defined]
        with service_call():
            _sync_contexts(claim, form.cleaned_data.get("contexts") or [], remove=change)
            _sync_tags(claim, form.cleaned_data.get("tags") or [], remove=change)

    def delete_model(self, request: HttpRequest, obj: Claim) -> None:
        claim_delete(claim=obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Claim]) -> None:
        for claim in queryset:
            claim_delete(claim=claim)

    # Columns and read-only fields -------------------------------------------------------

    @admin.display(description="#", ordering="number")
    def number_label(self, obj: Claim) -> str:
        return f"#{obj.number}"

    @admin.display(description="statement")
    def excerpt(self, obj: Claim) -> str:
        return Truncator(obj.statement).chars(240)

    @admin.display(description="types")
    def types_label(self, obj: Claim) -> str:
        return ", ".join(type_labels(obj.claim_types))

    @admin.display(description="entities")
    def entities_display(self, obj: Claim) -> SafeString | str:
        return admin_links(obj.entities.all(), empty="No entities mention this claim.")

    @admin.display(description="supersession")
    def supersession_display(self, obj: Claim) -> SafeString | str:
        chain = supersession_chain(claim=obj)
        if len(chain) == 1:
            return "This claim has not replaced, or been replaced by, another claim."
        rows = [
            (
                format_html("<strong>{} (this claim)</strong>", claim)
                if claim.pk == obj.pk
                else admin_link(claim),
                claim.get_status_display(),
            )
            for claim in chain
        ]
        return format_html("<ol>{}</ol>", format_html_join("", "<li>{} — {}</li>", rows))

    @admin.display(description="source message")
    def source_message_display(self, obj: Claim) -> SafeString | str:
        message = obj.source_message
        if message is None:
            return "—"
        text = Truncator(message.content).chars(300)
        when = moment_label(message.created_at)
        url = source_message_url(message)
        if url:
            return format_html(
                '{} message of {}: <a href="{}">“{}”</a>',
                message.get_role_display(),
                when,
                url,
                text,
            )
        return format_html("{} message of {}: “{}”", message.get_role_display(), when, text)


def _sync_contexts(claim: Claim, wanted: list[Context], *, remove: bool) -> None:
    current = set(claim.contexts.all())
    for context in set(wanted) - current:
        context_add_claims(context=context, claims=[claim])
    if remove:
        for context in current - set(wanted):
            context_remove_claims(context=context, claims=[claim])


def _sync_tags(claim: Claim, wanted: list[Tag], *, remove: bool) -> None:
    current = set(claim.tags.all())
    for tag in set(wanted) - current:
        tag_link_claims(tag=tag, claims=[claim])
    if remove:
        for tag in current - set(wanted):
            # The services have no "unlink" for tags; removing a link is the only
            # tag write that is not a service call.
            tag.claims.remove(claim)
