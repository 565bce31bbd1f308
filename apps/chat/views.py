"""The chat page: the conversations sidebar, one conversation's messages and the composer.

Thin views: parse, read through the scoped selectors (another user's conversation is a
404), call one service, render or redirect. Every write here also has a ninja endpoint
(apps/chat/ui_api.py) that the page's script uses; these plain POST forms are what works
without JavaScript. The turn itself runs over the websocket (apps/chat/consumers.py).
"""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from apps.accounts.models import User
from apps.core.request_user import current_user
from apps.memory.actions import memory_remember_message
from apps.memory.errors import MemoryRefusal

from .connections.forms import ModelPickForm
from .connections.selectors import choice_answerer, model_options, site_models
from .events import protocol_for_page
from .forms import (
    ConversationArchiveForm,
    ConversationFilterForm,
    ConversationTitleForm,
    RememberForm,
)
from .models import Conversation
from .presentation import message_views, remember_default
from .selectors import (
    conversation_get,
    conversation_import_state,
    conversation_list,
    conversation_messages,
    message_get,
)
from .services import (
    conversation_delete,
    conversation_set_archived,
    conversation_start,
    conversation_update,
)

SIDEBAR_LIMIT = 200


def _sidebar(request: HttpRequest, user: User) -> dict[str, Any]:
    form = ConversationFilterForm(request.GET or None)
    query, archived = form.values()
    conversations = conversation_list(user=user, archived=archived, query=query)
    return {
        "filter_form": form,
        "query": query,
        "show_archived": archived,
        "conversations": conversations[:SIDEBAR_LIMIT],
    }


def _next_url(request: HttpRequest, default: str) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return default


def _render_page(
    request: HttpRequest, user: User, conversation: Conversation | None
) -> HttpResponse:
    context: dict[str, Any] = {
        "nav": "chat",
        **_sidebar(request, user),
        "conversation": conversation,
        "chat_protocol": protocol_for_page(),
    }
    if conversation is not None:
        history = list(
            conversation_messages(conversation=conversation).prefetch_related("attached_claims")
        )
        last_order = history[-1].order if history else None
        context["message_views"] = message_views(
            user=user, conversation=conversation, messages=history, last_order=last_order
        )
        context["last_order"] = last_order or 0
        context["pinned_claims"] = list(conversation.pinned_claims.order_by("number"))
        context["import_state"] = conversation_import_state(conversation=conversation)
        # The banner and the picker speak of this conversation's model, not the site's.
        site = site_models()
        context["llm_offline"] = choice_answerer(choice=conversation.chosen_model).offline
        context["model_pick_form"] = ModelPickForm(
            options=model_options(), default_label=site.answerer.main.model
        )
    else:
        context["has_any"] = conversation_list(user=user, archived=None).exists()
    return render(request, "chat/page.html", context)


def _create(request: HttpRequest) -> HttpResponse:
    """A new conversation, or the newest one while it is still empty (the service's rule)."""
    conversation, _ = conversation_start(user=current_user(request))
    return redirect("chat:conversation", conversation_id=conversation.pk)


@login_not_required  # a visitor sees what Cairn is (issue 18); everything else needs a login
@require_http_methods(["GET", "HEAD", "POST"])
def home(request: HttpRequest) -> HttpResponse:
    """The newest open conversation, or the empty state; a POST starts a conversation.
    Logged out: the front page, which says what Cairn is and offers sign up and log in."""
    if not request.user.is_authenticated:
        if request.method == "POST":
            return redirect_to_login(request.get_full_path())
        return render(request, "welcome.html", {"nav": "welcome"})
    if request.method == "POST":
        return _create(request)
    user = current_user(request)
    return _render_page(request, user, conversation_list(user=user).first())


@require_POST
def conversation_new(request: HttpRequest) -> HttpResponse:
    return _create(request)


@require_GET
def conversation_page(request: HttpRequest, conversation_id: uuid.UUID) -> HttpResponse:
    user = current_user(request)
    return _render_page(request, user, conversation_get(user=user, conversation_id=conversation_id))


@require_GET
def message_fragment(request: HttpRequest, conversation_id: uuid.UUID) -> HttpResponse:
    """The messages after ``?after=<order>``, rendered exactly as the page renders them:
    the script swaps a streamed answer for this once the turn is done."""
    user = current_user(request)
    conversation = conversation_get(user=user, conversation_id=conversation_id)
    try:
        after = max(int(request.GET.get("after", "0")), 0)
    except ValueError:
        after = 0
    # One earlier message comes along so an answer knows the words it replied to.
    history = list(
        conversation_messages(conversation=conversation)
        .filter(order__gte=after)
        .prefetch_related("attached_claims")[:101]
    )
    last = conversation.messages.order_by("-order").values_list("order", flat=True).first()
    views = message_views(user=user, conversation=conversation, messages=history, last_order=last)
    return render(
        request,
        "chat/_messages.html",
        {
            "message_views": [view for view in views if view.message.order > after],
            "conversation": conversation,
        },
    )


@require_GET
def sidebar_fragment(request: HttpRequest) -> HttpResponse:
    user = current_user(request)
    context = _sidebar(request, user)
    current = request.GET.get("current", "")
    return render(request, "chat/_conversation_list.html", {**context, "current_id": current})


@require_http_methods(["GET", "HEAD", "POST"])
def conversation_rename(request: HttpRequest, conversation_id: uuid.UUID) -> HttpResponse:
    user = current_user(request)
    conversation = conversation_get(user=user, conversation_id=conversation_id)
    page = reverse("chat:conversation", args=[conversation.pk])
    form = ConversationTitleForm(request.POST or None, initial={"title": conversation.title})
    if request.method == "POST" and form.is_valid():
        try:
            conversation_update(conversation=conversation, title=form.cleaned_data["title"])
        except ValidationError as error:
            form.add_error("title", error.message_dict.get("title", error.messages))
        else:
            messages.success(request, "Conversation renamed.")
            return redirect(_next_url(request, page))
    return render(
        request,
        "chat/rename.html",
        {
            "nav": "chat",
            "form": form,
            "conversation": conversation,
            "next": _next_url(request, page),
        },
    )


@require_POST
def conversation_archive(request: HttpRequest, conversation_id: uuid.UUID) -> HttpResponse:
    user = current_user(request)
    conversation = conversation_get(user=user, conversation_id=conversation_id)
    form = ConversationArchiveForm(request.POST)
    archived = form.is_valid() and form.cleaned_data["archived"]
    conversation_set_archived(conversation=conversation, archived=archived)
    messages.success(request, "Conversation archived." if archived else "Conversation restored.")
    return redirect(_next_url(request, reverse("chat:conversation", args=[conversation.pk])))


@require_http_methods(["GET", "HEAD", "POST"])
def conversation_delete_view(request: HttpRequest, conversation_id: uuid.UUID) -> HttpResponse:
    """GET asks for confirmation (the no-script path); POST deletes."""
    user = current_user(request)
    conversation = conversation_get(user=user, conversation_id=conversation_id)
    if request.method != "POST":
        return render(
            request, "chat/confirm_delete.html", {"nav": "chat", "conversation": conversation}
        )
    title = str(conversation)
    conversation_delete(conversation=conversation)
    messages.success(request, f"Deleted “{title}”.")
    return redirect("chat:home")


@require_POST
def message_remember_view(
    request: HttpRequest, conversation_id: uuid.UUID, message_id: uuid.UUID
) -> HttpResponse:
    user = current_user(request)
    message = message_get(user=user, message_id=message_id)
    if message.conversation_id != conversation_id:
        raise Http404("No such message.")
    form = RememberForm(request.POST)
    statement = (form.cleaned_data["statement"] if form.is_valid() else "").strip()
    page = reverse("chat:conversation", args=[conversation_id]) + f"#message-{message.pk}"
    try:
        remembered = memory_remember_message(
            user=user, message=message, statement=statement or remember_default(message)
        )
        claim, created = remembered.claim, remembered.created
    except MemoryRefusal as refusal:
        messages.error(request, refusal.text)
    else:
        verb = "Saved" if created else "Already known — reinforced"
        messages.success(request, f"{verb} as memory #{claim.number}.")
    return redirect(page)
