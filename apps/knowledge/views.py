"""The Knowledge page: browse, search and review one's own claims and contexts.

Thin views: parse the request, read through the scoped selectors, render. The one write,
reviewing a pending claim, is the ``claim_review`` service. Another user's claim or
context answers 404 (the selectors raise it)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.text import Truncator
from django.views.decorators.http import require_GET, require_POST

from apps.accounts.models import User
from apps.claims.models import USABLE_STATUSES, Claim, ClaimStatus, Tag
from apps.claims.presentation import source_message_url, supersession_chain
from apps.claims.selectors import (
    claim_get,
    claims_pending,
    tag_list,
)
from apps.claims.services import claim_review
from apps.contexts.models import Context
from apps.contexts.selectors import (
    context_ancestors,
    context_get,
    context_memberships,
    context_resolved_queryset,
    context_tree,
)
from apps.core.request_user import current_user
from apps.memory.selectors import ClaimFilters, claims_filtered

from .forgetting import claim_forgotten
from .forms import ClaimContextsForm, ClaimDetailsForm, ClaimFilterForm, ContextForm, ReviewForm

PAGE_SIZE = 25


def page_context(user: User, **extra: object) -> dict[str, object]:
    return {"nav": "knowledge", "pending_count": claims_pending(user=user).count(), **extra}


def _claim_filters(
    filters: dict[str, str], contexts: dict[str, Context], tags: dict[str, Tag]
) -> ClaimFilters:
    """The page's valid filters as the shared claim filters; ``contexts`` and ``tags`` are
    the user's own (the form only accepts those), keyed by their id."""
    return ClaimFilters(
        q=filters.get("q", ""),
        pinned={"yes": True, "no": False}.get(filters.get("pinned", "")),
        tag=tags.get(filters.get("tag", "")),
        context=contexts.get(filters.get("context", "")),
        statuses=[filters["status"]] if filters.get("status") else None,
        claim_types=[filters["type"]] if filters.get("type") else None,
        domains=[filters["domain"]] if filters.get("domain") else None,
        origin=filters.get("origin", ""),
    )


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    user = current_user(request)
    tree = context_tree(user=user)
    tags = list(tag_list(user=user))
    form = ClaimFilterForm(request.GET or None, contexts=tree, tags=tags)
    filters = form.values() if request.GET else {}
    claims = claims_filtered(
        user=user,
        filters=_claim_filters(
            filters,
            contexts={str(c.pk): c for c, _ in tree},
            tags={str(t.pk): t for t in tags},
        ),
    )
    page = Paginator(claims.prefetch_related("tags", "contexts"), PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    return render(
        request,
        "knowledge/home.html",
        page_context(user, tab="claims", form=form, page=page, filtered=bool(filters)),
    )


@dataclass
class TreeNode:
    context: Context
    claim_count: int
    children: list[TreeNode] = field(default_factory=list)


def context_forest(user: User) -> list[TreeNode]:
    """The user's context tree; each node counts the distinct active and contested claims
    it resolves to (its own and its descendants'), as referencing it would use them."""
    own: dict[uuid.UUID, set[uuid.UUID]] = {}
    for link in context_memberships(user=user, usable_only=True):
        own.setdefault(link.context_id, set()).add(link.claim_id)
    children: dict[uuid.UUID | None, list[Context]] = {}
    for context, _depth in context_tree(user=user):
        children.setdefault(context.parent_id, []).append(context)

    def build(context: Context) -> tuple[TreeNode, set[uuid.UUID]]:
        claim_ids = set(own.get(context.pk, ()))
        node = TreeNode(context, 0)
        for child in children.get(context.pk, []):
            child_node, child_ids = build(child)
            node.children.append(child_node)
            claim_ids |= child_ids
        node.claim_count = len(claim_ids)
        return node, claim_ids

    return [build(root)[0] for root in children.get(None, [])]


@require_GET
def context_index(request: HttpRequest) -> HttpResponse:
    user = current_user(request)
    return render(
        request,
        "knowledge/contexts.html",
        page_context(
            user,
            tab="contexts",
            forest=context_forest(user),
            new_form=ContextForm(contexts=context_tree(user=user)),
        ),
    )


@require_GET
def context_detail(request: HttpRequest, context_id: uuid.UUID) -> HttpResponse:
    user = current_user(request)
    context = context_get(user=user, context_id=context_id)
    return context_page(request, user, context)


def context_page(
    request: HttpRequest,
    user: User,
    context: Context,
    edit_form: ContextForm | None = None,
    status: int = 200,
) -> HttpResponse:
    """One context's page; ``edit_form`` is a refused edit, shown open with its errors."""
    children = context.children.annotate(
        claim_count=Count("memberships", filter=Q(memberships__claim__status__in=USABLE_STATUSES))
    )
    page = Paginator(context_resolved_queryset(user=user, context=context), PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    if edit_form is None:
        edit_form = ContextForm(
            initial={
                "name": context.name,
                "description": context.description,
                "parent": str(context.parent_id or ""),
            },
            contexts=context_tree(user=user),
            editing=context,
        )
    return render(
        request,
        "knowledge/context_detail.html",
        page_context(
            user,
            tab="contexts",
            context=context,
            page=page,
            ancestors=context_ancestors(context=context),
            children=children.order_by("name"),
            edit_form=edit_form,
            own_count=context.claims.count(),
        ),
        status=status,
    )


@require_GET
def claim_detail(request: HttpRequest, claim_id: uuid.UUID) -> HttpResponse:
    user = current_user(request)
    return claim_page(request, user, claim_get(user=user, claim_id=claim_id))


def claim_details_form(user: User, claim: Claim, data: Any = None) -> ClaimDetailsForm:
    """The claim page's form for tags, validity dates and confidence (issue 30)."""
    initial = {
        "confidence": round(claim.confidence * 100),
        "valid_from": timezone.localdate(claim.valid_from) if claim.valid_from else None,
        "valid_until": timezone.localdate(claim.valid_until) if claim.valid_until else None,
        "tags": [str(pk) for pk in claim.tags.values_list("pk", flat=True)],
    }
    return ClaimDetailsForm(data, initial=initial, tags=list(tag_list(user=user).order_by("name")))


def claim_page(
    request: HttpRequest,
    user: User,
    claim: Claim,
    *,
    details_form: ClaimDetailsForm | None = None,
    status: int = 200,
) -> HttpResponse:
    message = claim.source_message
    chain = supersession_chain(claim=claim)
    return render(
        request,
        "knowledge/claim_detail.html",
        page_context(
            user,
            tab="claims",
            claim=claim,
            contexts=claim.contexts.order_by("name"),
            contexts_form=ClaimContextsForm(
                initial={
                    "contexts": [str(pk) for pk in claim.contexts.values_list("pk", flat=True)]
                },
                contexts=context_tree(user=user),
            ),
            tags=claim.tags.order_by("name"),
            entities=claim.entities.order_by("name"),
            chain=chain,
            current_version=chain[-1],
            source_message=message,
            source_url=source_message_url(message) if message else None,
            forgotten_now=(
                claim_forgotten(claim=claim).hidden_now()
                if claim.status == ClaimStatus.RETRACTED
                else ""
            ),
            admin_url=reverse("admin:claims_claim_change", args=[claim.pk]),
            details_form=details_form or claim_details_form(user, claim),
        ),
        status=status,
    )


@require_GET
def pending(request: HttpRequest) -> HttpResponse:
    user = current_user(request)
    page = Paginator(claims_pending(user=user), PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "knowledge/pending.html", page_context(user, tab="pending", page=page))


@require_POST
def claim_review_view(request: HttpRequest, claim_id: uuid.UUID) -> HttpResponse:
    """Approve (→ active, optionally with corrected wording) or dismiss (→ deleted) one
    pending claim, then go back."""
    user = current_user(request)
    claim = claim_get(user=user, claim_id=claim_id)
    form = ReviewForm(request.POST)
    ok, deleted, text = False, False, "Choose Approve or Dismiss."
    if form.is_valid():
        approve = form.cleaned_data["decision"] == "approve"
        edited = form.cleaned_data["statement"] if "statement" in request.POST else None
        label = f"#{claim.number} “{Truncator(claim.statement).chars(60)}”"
        try:
            saved = claim_review(claim=claim, approve=approve, statement=edited)
        except ValidationError as error:
            text = " ".join(error.messages)
        else:
            ok, deleted = True, not approve
            if saved is not None:
                label = f"#{saved.number} “{Truncator(saved.statement).chars(60)}”"
            text = f"Approved {label}." if approve else f"Dismissed {label}; it was deleted."
    if "application/json" in request.headers.get("Accept", ""):
        return JsonResponse(
            {"ok": ok, "message": text, "pending": claims_pending(user=user).count()},
            status=200 if ok else 400,
        )
    (messages.success if ok else messages.error)(request, text)
    target = request.POST.get("next", "")
    if deleted and target.startswith(reverse("knowledge:claim", args=[claim_id])):
        target = ""  # the claim's own page no longer exists
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = reverse("knowledge:pending")
    return redirect(target)
