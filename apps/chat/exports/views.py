"""The Import page: upload an export, watch it become searchable."""

from __future__ import annotations

import uuid

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from apps.core.request_user import current_user
from apps.projects.selectors import project_list
from apps.projects.services import project_ensure_personal

from .api import chat_import_progress_ratio
from .selectors import chat_import_get, chat_import_list
from .store import (
    chat_import_create,
    chat_import_delete,
    chat_import_retry,
    chat_imports_settle_unfinished,
)


class ImportForm(forms.Form):
    file = forms.FileField(
        label="Export file",
        help_text="The zip ChatGPT or Claude sent you (Settings → Data controls → Export data), "
        "or the conversations.json inside it.",
    )
    project = forms.ChoiceField(label="Into project")
    extract_claims = forms.BooleanField(
        required=False,
        label="Suggest memories from what I said (they wait for my review)",
    )


@require_http_methods(["GET", "POST"])
def imports_page(request: HttpRequest) -> HttpResponse:
    user = current_user(request)
    personal = project_ensure_personal(user=user)
    projects = list(project_list(user=user, include_archived=False))
    form = ImportForm(request.POST or None, request.FILES or None, initial={"project": personal.pk})
    project_field = form.fields["project"]
    assert isinstance(project_field, forms.ChoiceField)
    project_field.choices = [(str(p.pk), p.name) for p in projects]
    if request.method == "POST" and form.is_valid():
        project = next(p for p in projects if str(p.pk) == form.cleaned_data["project"])
        try:
            chat_import = chat_import_create(
                user=user,
                project=project,
                upload=form.cleaned_data["file"],
                extract_claims=form.cleaned_data["extract_claims"],
            )
        except ValidationError as error:
            for field, problems in error.message_dict.items():
                form.add_error(field if field in form.fields else None, problems)
        else:
            messages.success(request, f"Importing {chat_import.file_name} in the background.")
            return redirect("chat:imports")
    chat_imports_settle_unfinished(user=user)
    imports = [
        (item, int(chat_import_progress_ratio(item) * 100))
        for item in chat_import_list(user=user)[:50]
    ]
    return render(request, "chat/imports.html", {"form": form, "imports": imports, "nav": "chat"})


@require_POST
def import_retry(request: HttpRequest, chat_import_id: uuid.UUID) -> HttpResponse:
    chat_import = chat_import_get(user=current_user(request), chat_import_id=chat_import_id)
    try:
        chat_import_retry(chat_import=chat_import)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(request, f"Importing {chat_import.file_name} again.")
    return redirect("chat:imports")


@require_POST
def import_delete(request: HttpRequest, chat_import_id: uuid.UUID) -> HttpResponse:
    chat_import = chat_import_get(user=current_user(request), chat_import_id=chat_import_id)
    with_conversations = request.POST.get("with_conversations") == "on"
    deleted = chat_import_delete(chat_import=chat_import, with_conversations=with_conversations)
    note = f" and {deleted} conversation{'s' if deleted != 1 else ''}" if with_conversations else ""
    messages.success(request, f"Deleted the import of {chat_import.file_name}{note}.")
    return redirect("chat:imports")
