"""The connections page (staff only: anyone else gets the 404 of a page that does not
exist) and the conversation's model picker. Thin: parse, call one service, render."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from apps.chat.selectors import conversation_get
from apps.core.request_user import current_user

from .forms import ConnectionForm, DefaultsForm, ModelPickForm
from .selectors import (
    ENV_PREFIX,
    OFFLINE_VALUE,
    ModelOption,
    answerer_in_words,
    connection_get,
    connection_list,
    env_settings,
    model_defaults,
    model_options,
    option_value,
    site_models,
)
from .services import (
    connection_create,
    connection_delete,
    connection_test,
    conversation_model_choose,
    model_defaults_set,
)

View = Callable[..., HttpResponse]


def staff_only(view: View) -> View:
    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not current_user(request).is_staff:
            raise Http404("No such page.")
        return view(request, *args, **kwargs)

    return wrapped


def _stored_options() -> list[ModelOption]:
    """What the defaults form offers: the stored connections' models (the environment's
    are chosen in the environment; offline is what "none" means)."""
    return [
        option
        for option in model_options()
        if option.value != OFFLINE_VALUE and not option.value.startswith(ENV_PREFIX)
    ]


def _page(
    request: HttpRequest,
    *,
    add_form: ConnectionForm | None = None,
    defaults_form: DefaultsForm | None = None,
    status: int = 200,
) -> HttpResponse:
    site = site_models()
    options = _stored_options()
    if defaults_form is None:
        stored = model_defaults()
        initial = {
            "default": option_value(str(stored.default_connection_id), stored.default_model)
            if stored.default_connection_id
            else "",
            "cheap": option_value(str(stored.cheap_connection_id), stored.cheap_model)
            if stored.cheap_connection_id
            else "",
        }
        defaults_form = DefaultsForm(initial=initial, options=options)
    return render(
        request,
        "chat/connections.html",
        {
            "nav": "settings",
            "connections": connection_list(),
            "add_form": add_form or ConnectionForm(initial={"kind": "openai"}),
            "defaults_form": defaults_form,
            "has_options": bool(options),
            "site": site,
            "answers_now": answerer_in_words(site.answerer),
            "cheap_now": site.answerer.cheap.model,
            "env_settings": env_settings(),
        },
        status=status,
    )


@require_GET
@staff_only
def connections_page(request: HttpRequest) -> HttpResponse:
    return _page(request)


@require_POST
@staff_only
def connection_add(request: HttpRequest) -> HttpResponse:
    form = ConnectionForm(request.POST)
    if form.is_valid():
        try:
            connection, result = connection_create(**form.cleaned_data)
        except ValidationError as error:
            for field, problems in error.message_dict.items():
                form.add_error(field if field in form.fields else None, problems)
        else:
            level = messages.success if result.ok else messages.warning
            level(request, f"Added {connection.name}. {result.message}")
            return redirect("chat:connections")
    return _page(request, add_form=form, status=400)


@require_POST
@staff_only
def connection_test_view(request: HttpRequest, connection_id: uuid.UUID) -> HttpResponse:
    connection = connection_get(connection_id=connection_id)
    result = connection_test(connection=connection)
    level = messages.success if result.ok else messages.error
    level(request, f"{connection.name}: {result.message}")
    return redirect(f"{reverse('chat:connections')}#connection-{connection.pk}")


@require_POST
@staff_only
def connection_delete_view(request: HttpRequest, connection_id: uuid.UUID) -> HttpResponse:
    connection = connection_get(connection_id=connection_id)
    connection_delete(connection=connection)
    messages.success(request, f"Deleted {connection.name}.")
    return redirect("chat:connections")


@require_POST
@staff_only
def defaults_set(request: HttpRequest) -> HttpResponse:
    form = DefaultsForm(request.POST, options=_stored_options())
    if form.is_valid():
        try:
            model_defaults_set(**form.cleaned_data)
        except ValidationError as error:
            for field, problems in error.message_dict.items():
                form.add_error(field if field in form.fields else None, problems)
        else:
            messages.success(request, "Default and cheap models saved.")
            return redirect("chat:connections")
    return _page(request, defaults_form=form, status=400)


@require_POST
def conversation_model(request: HttpRequest, conversation_id: uuid.UUID) -> HttpResponse:
    """The picker: remember the model for this conversation's turns."""
    conversation = conversation_get(user=current_user(request), conversation_id=conversation_id)
    form = ModelPickForm(
        request.POST, options=model_options(), default_label=site_models().answerer.main.model
    )
    if not form.is_valid():
        return HttpResponse(
            f"model: {'; '.join(str(e) for e in form.errors.get('model', ['invalid']))}",
            status=400,
            content_type="text/plain; charset=utf-8",
        )
    try:
        conversation_model_choose(conversation=conversation, choice=form.cleaned_data["model"])
    except ValidationError as error:
        return HttpResponse(
            f"model: {'; '.join(error.messages)}", status=400, content_type="text/plain"
        )
    return redirect("chat:conversation", conversation_id=conversation.pk)
