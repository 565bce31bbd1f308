"""Editing on the Knowledge page, without the admin: claims added, edited, given a new
version, retracted, pinned and moved between contexts; contexts created, renamed, moved
and emptied. Plain forms (POST, CSRF, redirect) that work without JavaScript.

Thin views: a form parses, one service writes, a ValidationError the service raises is
shown on the field it names (status 400), never a server error. Every object is fetched
through a selector scoped to the requesting user, so another user's id answers 404."""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.text import Truncator
from django.views.decorators.http import require_http_methods, require_POST

from apps.claims.models import Claim
from apps.claims.selectors import claim_get
from apps.contexts.models import Context
from apps.contexts.selectors import context_get, context_tree
from apps.contexts.services import (
    claim_contexts_set,
    context_create,
    context_delete,
    context_empty,
    context_move,
    context_update,
)
from apps.core.admin_services import add_validation_error
from apps.core.request_user import current_user
from apps.memory.actions import memory_pin, memory_restore, memory_retract
from apps.memory.errors import MemoryRefusal

from .forgetting import claim_forgotten
from .forms import ClaimContextsForm, ClaimForm, ContextForm, PinForm
from .services import knowledge_claim_add, knowledge_claim_details_set, knowledge_claim_edit
from .views import claim_details_form, claim_page, context_forest, context_page, page_context


def _label(claim: Claim) -> str:
    return f"#{claim.number} “{Truncator(claim.statement).chars(60)}”"


@require_http_methods(["GET", "POST"])
def claim_add(request: HttpRequest) -> HttpResponse:
    user = current_user(request)
    # "Add a claim here" on a context's page names it; an id that is not one of the
    # user's contexts is simply not a choice, so it is ignored.
    initial = {"contexts": [request.GET.get("context", "")]}
    form = ClaimForm(request.POST or None, initial=initial, contexts=context_tree(user=user))
    if request.method == "POST" and form.is_valid():
        try:
            claim = knowledge_claim_add(user=user, **form.claim_fields())
        except ValidationError as error:
            add_validation_error(form, error)
        else:
            messages.success(request, f"Saved {_label(claim)}.")
            return redirect("knowledge:claim", claim.pk)
    status = 400 if form.is_bound else 200
    return render(
        request,
        "knowledge/claim_form.html",
        page_context(user, tab="claims", form=form, claim=None),
        status=status,
    )


@require_http_methods(["GET", "POST"])
def claim_edit(request: HttpRequest, claim_id: uuid.UUID) -> HttpResponse:
    user = current_user(request)
    claim = claim_get(user=user, claim_id=claim_id)
    initial = {
        "statement": claim.statement,
        "claim_types": claim.claim_types,
        "domains": claim.domains,
        "possible_questions": "\n".join(claim.possible_questions),
        "pinned": claim.pinned,
        "contexts": [str(pk) for pk in claim.contexts.values_list("pk", flat=True)],
    }
    form = ClaimForm(request.POST or None, initial=initial, contexts=context_tree(user=user))
    if request.method == "POST" and form.is_valid():
        as_new_version = request.POST.get("save") == "new_version"
        try:
            saved = knowledge_claim_edit(
                claim=claim, as_new_version=as_new_version, **form.claim_fields()
            )
        except ValidationError as error:
            add_validation_error(form, error)
            claim.refresh_from_db()  # the page shows the claim as it still is
        else:
            if as_new_version:
                text = f"Saved a new version of {_label(saved)}; the earlier one is in its history."
            else:
                text = f"Updated {_label(saved)}."
            messages.success(request, text)
            return redirect("knowledge:claim", saved.pk)
    return render(
        request,
        "knowledge/claim_form.html",
        page_context(user, tab="claims", form=form, claim=claim),
        status=400 if form.is_bound else 200,
    )


def _claim_action_done(request: HttpRequest, claim: Claim, text: str) -> HttpResponse:
    messages.success(request, text)
    return redirect("knowledge:claim", claim.pk)


@require_POST
def claim_retract_view(request: HttpRequest, claim_id: uuid.UUID) -> HttpResponse:
    claim = memory_retract(claim=claim_get(user=current_user(request), claim_id=claim_id)).claim
    # Said from what is now hidden, after the write (issue 28).
    return _claim_action_done(
        request, claim, claim_forgotten(claim=claim).sentence(label=_label(claim))
    )


@require_POST
def claim_restore_view(request: HttpRequest, claim_id: uuid.UUID) -> HttpResponse:
    claim = claim_get(user=current_user(request), claim_id=claim_id)
    try:
        claim = memory_restore(claim=claim).claim
    except MemoryRefusal as refusal:
        messages.error(request, refusal.text)
        return redirect("knowledge:claim", claim.pk)
    return _claim_action_done(
        request, claim, claim_forgotten(claim=claim).sentence(label=_label(claim), restored=True)
    )


@require_POST
def claim_pin_view(request: HttpRequest, claim_id: uuid.UUID) -> HttpResponse:
    claim = claim_get(user=current_user(request), claim_id=claim_id)
    form = PinForm(request.POST)
    form.is_valid()  # a checkbox: absent or unreadable means "not pinned"
    try:
        claim = memory_pin(claim=claim, pinned=bool(form.cleaned_data.get("pinned"))).claim
    except MemoryRefusal as refusal:
        messages.error(request, refusal.text)
        return redirect("knowledge:claim", claim.pk)
    verb = "Pinned" if claim.pinned else "Unpinned"
    return _claim_action_done(request, claim, f"{verb} {_label(claim)}.")


@require_POST
def claim_contexts_view(request: HttpRequest, claim_id: uuid.UUID) -> HttpResponse:
    user = current_user(request)
    claim = claim_get(user=user, claim_id=claim_id)
    form = ClaimContextsForm(request.POST, contexts=context_tree(user=user))
    if not form.is_valid():
        # Only a hand-made request gets here: the page offers the user's own contexts only.
        return render(
            request,
            "errors/page.html",
            {
                "title": "Those contexts cannot be chosen",
                "explanation": "contexts: choose from your own contexts; nothing was changed.",
            },
            status=400,
        )
    chosen = form.chosen_contexts()
    claim_contexts_set(claim=claim, contexts=chosen)
    names = ", ".join(context.name for context in chosen) or "no context"
    return _claim_action_done(request, claim, f"{_label(claim)} is now in {names}.")


@require_POST
def claim_details_view(request: HttpRequest, claim_id: uuid.UUID) -> HttpResponse:
    """Tags, validity dates and confidence, from the claim's page (issue 30)."""
    user = current_user(request)
    claim = claim_get(user=user, claim_id=claim_id)
    form = claim_details_form(user, claim, request.POST)
    if form.is_valid():
        try:
            knowledge_claim_details_set(
                claim=claim,
                confidence=form.cleaned_data["confidence"] / 100,
                valid_from=form.cleaned_data["valid_from"],
                valid_until=form.cleaned_data["valid_until"],
                tags=form.chosen_tags(),
                new_tag_names=form.new_tag_names(),
            )
        except ValidationError as error:
            add_validation_error(form, error)
        else:
            return _claim_action_done(request, claim, f"Saved the details of {_label(claim)}.")
    claim.refresh_from_db()  # the page shows the claim as it still is
    return claim_page(request, user, claim, details_form=form, status=400)


# ---- contexts --------------------------------------------------------------------------


@require_POST
def context_add(request: HttpRequest) -> HttpResponse:
    user = current_user(request)
    form = ContextForm(request.POST, contexts=context_tree(user=user))
    if form.is_valid():
        try:
            context = context_create(
                user=user,
                name=form.cleaned_data["name"],
                description=form.cleaned_data["description"],
                parent=form.chosen_parent(),
            )
        except ValidationError as error:
            add_validation_error(form, error)
        else:
            messages.success(request, f"Created the context “{context.name}”.")
            return redirect("knowledge:context", context.pk)
    return render(
        request,
        "knowledge/contexts.html",
        page_context(user, tab="contexts", forest=context_forest(user), new_form=form),
        status=400,
    )


@require_POST
def context_edit(request: HttpRequest, context_id: uuid.UUID) -> HttpResponse:
    user = current_user(request)
    context = context_get(user=user, context_id=context_id)
    form = ContextForm(request.POST, contexts=context_tree(user=user), editing=context)
    if form.is_valid():
        try:
            _context_save(context, form)
        except ValidationError as error:
            add_validation_error(form, error)
        else:
            messages.success(request, f"Saved the context “{context.name}”.")
            return redirect("knowledge:context", context.pk)
    context.refresh_from_db()  # the page shows the context as it still is
    return context_page(request, user, context, edit_form=form, status=400)


def _context_save(context: Context, form: ContextForm) -> None:
    with transaction.atomic():  # a refused move must not keep the new name either
        context_update(
            context=context,
            name=form.cleaned_data["name"],
            description=form.cleaned_data["description"],
        )
        parent = form.chosen_parent()
        if parent != context.parent:
            context_move(context=context, parent=parent)


@require_POST
def context_empty_view(request: HttpRequest, context_id: uuid.UUID) -> HttpResponse:
    context = context_get(user=current_user(request), context_id=context_id)
    removed = context_empty(context=context)
    messages.success(
        request,
        f"Took {removed} claim{'s' if removed != 1 else ''} out of “{context.name}”; "
        "the claims themselves are kept.",
    )
    return redirect("knowledge:context", context.pk)


@require_POST
def context_delete_view(request: HttpRequest, context_id: uuid.UUID) -> HttpResponse:
    context = context_get(user=current_user(request), context_id=context_id)
    name = context.name
    context_delete(context=context)
    messages.success(request, f"Deleted the context “{name}” and those inside it; claims are kept.")
    return redirect(reverse("knowledge:contexts"))
