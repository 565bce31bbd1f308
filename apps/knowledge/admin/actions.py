"""Bulk actions on the claims changelist. The queryset an action receives is already
scoped to the user (ModelAdmin.get_queryset), and each write is a service call."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse

from apps.claims.models import Claim, ClaimStatus
from apps.claims.services import claim_review
from apps.contexts.models import Context
from apps.contexts.services import context_add_claims
from apps.core.admin_scoping import scope_to_user
from apps.memory.actions import memory_pin, memory_retract

from .forms import AddToContextForm

PREVIEW = 20


def _plural(count: int, noun: str = "claim") -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


@admin.action(description="Pin selected claims (use them in every answer)")
def pin_claims(modeladmin: Any, request: HttpRequest, queryset: QuerySet[Claim]) -> None:
    claims = list(queryset.filter(pinned=False))
    for claim in claims:
        memory_pin(claim=claim, pinned=True)
    modeladmin.message_user(request, f"Pinned {_plural(len(claims))}.", messages.SUCCESS)


@admin.action(description="Unpin selected claims")
def unpin_claims(modeladmin: Any, request: HttpRequest, queryset: QuerySet[Claim]) -> None:
    claims = list(queryset.filter(pinned=True))
    for claim in claims:
        memory_pin(claim=claim, pinned=False)
    modeladmin.message_user(request, f"Unpinned {_plural(len(claims))}.", messages.SUCCESS)


@admin.action(description="Retract selected claims")
def retract_claims(modeladmin: Any, request: HttpRequest, queryset: QuerySet[Claim]) -> None:
    claims = list(queryset.exclude(status=ClaimStatus.RETRACTED))
    for claim in claims:
        memory_retract(claim=claim)
    modeladmin.message_user(request, f"Retracted {_plural(len(claims))}.", messages.SUCCESS)


def _review(
    modeladmin: Any, request: HttpRequest, queryset: QuerySet[Claim], *, approve: bool
) -> None:
    total = queryset.count()
    pending = list(queryset.filter(status=ClaimStatus.PENDING))
    for claim in pending:
        claim_review(claim=claim, approve=approve)
    verb = "Approved" if approve else "Rejected (deleted)"
    modeladmin.message_user(request, f"{verb} {_plural(len(pending))}.", messages.SUCCESS)
    skipped = total - len(pending)
    if skipped:
        modeladmin.message_user(
            request, f"{_plural(skipped)} not waiting for review left unchanged.", messages.WARNING
        )


@admin.action(description="Approve selected pending claims")
def approve_pending(modeladmin: Any, request: HttpRequest, queryset: QuerySet[Claim]) -> None:
    _review(modeladmin, request, queryset, approve=True)


@admin.action(description="Reject (delete) selected pending claims")
def reject_pending(modeladmin: Any, request: HttpRequest, queryset: QuerySet[Claim]) -> None:
    _review(modeladmin, request, queryset, approve=False)


@admin.action(description="Add selected claims to a context…")
def add_to_context(
    modeladmin: Any, request: HttpRequest, queryset: QuerySet[Claim]
) -> TemplateResponse | None:
    """First call: a page to choose one of the user's contexts; its submit calls the action
    again with ``apply`` set, and the claims are added."""
    contexts = scope_to_user(Context.objects.order_by("name"), request)
    form = AddToContextForm(request.POST if "apply" in request.POST else None, contexts=contexts)
    if form.is_valid():
        context = form.cleaned_data["context"]
        try:
            added = context_add_claims(context=context, claims=queryset)
        except ValidationError as error:
            modeladmin.message_user(request, " ".join(error.messages), messages.ERROR)
            return None
        modeladmin.message_user(
            request, f"Added {_plural(added)} to “{context.name}”.", messages.SUCCESS
        )
        return None
    count = queryset.count()
    return TemplateResponse(
        request,
        "admin/claims/claim/add_to_context.html",
        {
            **modeladmin.admin_site.each_context(request),
            "title": "Add claims to a context",
            "opts": modeladmin.model._meta,
            # With "select all", the queryset is every matching claim: show a few, and pass
            # on only the posted selection (the action re-derives the rest).
            "claim_count": count,
            "preview": queryset[:PREVIEW],
            "more": max(0, count - PREVIEW),
            "selected_ids": request.POST.getlist(helpers.ACTION_CHECKBOX_NAME),
            "form": form,
            "has_contexts": contexts.exists(),
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "select_across": request.POST.get("select_across", "0"),
        },
    )
