"""The Knowledge page's Lists tab: goals, tasks and the shopping list, each with what is
still open and what is done, and the same actions the chat's memory tools have (tick off,
restore), through the same services (issue 17).

Kept apart from ``views.py`` on purpose: the claim and context pages change for their own
reasons, and a list is a different way of looking at claims."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.text import Truncator
from django.views.decorators.http import require_GET, require_POST

from apps.accounts.models import User
from apps.claims.models import Claim
from apps.claims.selectors import LIST_TYPES, claim_get, claims_on_list, claims_pending
from apps.core.request_user import current_user
from apps.memory.actions import memory_complete, memory_restore
from apps.memory.errors import MemoryRefusal
from apps.memory.schemas import CompleteInput

DONE_SHOWN = 20


@dataclass(frozen=True)
class TypedList:
    claim_type: str
    title: str
    open_items: list[Claim]
    done_items: list[Claim]


class ListActionForm(forms.Form):
    action = forms.ChoiceField(choices=[("done", "Tick off"), ("restore", "Restore")])


def typed_lists(user: User) -> list[TypedList]:
    return [
        TypedList(
            claim_type=claim_type,
            title=title,
            open_items=list(claims_on_list(user=user, claim_type=claim_type)),
            done_items=list(
                claims_on_list(user=user, claim_type=claim_type, status="done").order_by(
                    "-updated_at"
                )[:DONE_SHOWN]
            ),
        )
        for claim_type, title in LIST_TYPES.items()
    ]


@require_GET
def lists_page(request: HttpRequest) -> HttpResponse:
    user = current_user(request)
    return render(
        request,
        "knowledge/lists.html",
        {
            "nav": "knowledge",
            "tab": "lists",
            "pending_count": claims_pending(user=user).count(),
            "lists": typed_lists(user),
        },
    )


@require_POST
def list_item_action(request: HttpRequest, claim_id: uuid.UUID) -> HttpResponse:
    """Tick off (done) or restore one item; another user's claim answers 404."""
    user = current_user(request)
    claim = claim_get(user=user, claim_id=claim_id)
    wants_json = "application/json" in request.headers.get("Accept", "")
    form = ListActionForm(request.POST)
    if not form.is_valid():
        errors = {name: [str(e) for e in errs] for name, errs in form.errors.items()}
        if wants_json:
            return JsonResponse({"ok": False, "errors": errors}, status=400)
        # The site's error page, whose template escapes: the form's message repeats the
        # value sent, and a bare HttpResponse of it was HTML the sender wrote (issue 29).
        explanation = f"action: {' '.join(errors['action'])} Go back and try again."
        return render(
            request,
            "errors/page.html",
            {"title": "That could not be done", "explanation": explanation},
            status=400,
        )
    label = f"#{claim.number} “{Truncator(claim.statement).chars(60)}”"
    ok = True
    try:
        if form.cleaned_data["action"] == "done":
            memory_complete(claim=claim, data=CompleteInput(number=claim.number))
            text = f"Done: {label}."
        else:
            memory_restore(claim=claim)
            text = f"Restored {label}."
    except MemoryRefusal as refusal:
        ok, text = False, refusal.text
    if wants_json:
        return JsonResponse({"ok": ok, "message": text}, status=200 if ok else 400)
    (messages.success if ok else messages.error)(request, text)
    return redirect("knowledge:lists")
