"""The Facts page: one project's facts grouped by topic, each with its history, plus a
form to set a fact by hand and a button to retract one.

Thin views: parse, call one selector or service, render or redirect. Works without
JavaScript (history is a ``<details>`` element, the writes are plain forms). Another
user's project, or an id that is not a UUID, answers 404 (``project_get``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlencode

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from apps.accounts.models import User
from apps.core.request_user import current_user
from apps.projects.models import Project
from apps.projects.selectors import project_list
from apps.projects.services import project_chosen_or_personal

from .models import MAX_KEY_LENGTH, FactOrigin, FactValueType, ProjectFact
from .selectors import FactGroup, fact_groups, facts_earlier_versions, facts_retracted_keys
from .services import MAX_VALUE_CHARS, fact_retract, fact_store
from .wording import display_value, key_from_words, key_words

_FORM_FIELD = {"key": "key", "value": "value", "value_type": "value_type"}


class FactSetForm(forms.Form):
    # In words ("crypto list, #1"), read by wording.key_from_words; a dotted key still works.
    key = forms.CharField(
        max_length=MAX_KEY_LENGTH,
        label="What it is about",
        help_text="e.g. “crypto list, #1”, “email” or “birthday”",
    )
    value = forms.CharField(max_length=MAX_VALUE_CHARS, strip=True)
    value_type = forms.ChoiceField(
        choices=FactValueType.choices, initial=FactValueType.STRING, label="Type"
    )


@dataclass
class FactItem:
    """A current fact as the page shows it, with its earlier values (newest first)."""

    fact: ProjectFact
    display: str
    earlier: list[tuple[ProjectFact, str]] = field(default_factory=list)

    @property
    def words(self) -> str:
        return key_words(self.fact.fact_key)

    @property
    def type_label(self) -> str:
        """The value's type where it is not plain text or a quantity read as one."""
        if self.fact.value_type == FactValueType.STRING:
            return ""
        if self.fact.value_type == FactValueType.JSON and self.display != self.fact.value_text:
            return ""
        return self.fact.get_value_type_display().lower()


@dataclass
class GroupView:
    group: FactGroup
    items: list[FactItem]


def _chosen_project(request: HttpRequest, user: User) -> Project:
    project_id = request.GET.get("project") or request.POST.get("project")
    return project_chosen_or_personal(user=user, project_id=project_id)


def _page_url(project: Project) -> str:
    return f"{reverse('facts:home')}?{urlencode({'project': str(project.pk)})}"


def _render(
    request: HttpRequest, user: User, project: Project, form: FactSetForm, status: int = 200
) -> HttpResponse:
    groups = fact_groups(user=user, project_id=project.pk)
    keys = [fact.fact_key for group in groups for fact in group.facts]
    earlier = facts_earlier_versions(user=user, project_id=project.pk, keys=keys)
    views = [
        GroupView(
            group,
            [
                FactItem(
                    fact,
                    display_value(fact),
                    [(row, display_value(row)) for row in earlier.get(fact.fact_key, [])],
                )
                for fact in group.facts
            ],
        )
        for group in groups
    ]
    retracted = [
        (row, display_value(row), key_words(row.fact_key))
        for row in facts_retracted_keys(user=user, project_id=project.pk)
    ]
    projects = list(project_list(user=user, include_archived=False))
    if project not in projects:
        projects.append(project)
    context = {
        "nav": "facts",
        "project": project,
        "projects": projects,
        "groups": views,
        "fact_count": len(keys),
        "retracted": retracted,
        "form": form,
    }
    return render(request, "facts/home.html", context, status=status)


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    user = current_user(request)
    project = _chosen_project(request, user)
    key = request.GET.get("key", "")[:MAX_KEY_LENGTH]
    initial = {"key": key_words(key) if key else ""}
    return _render(request, user, project, FactSetForm(initial=initial))


@require_POST
def set_fact(request: HttpRequest) -> HttpResponse:
    user = current_user(request)
    project = _chosen_project(request, user)
    form = FactSetForm(request.POST)
    if form.is_valid():
        try:
            data = {**form.cleaned_data, "key": key_from_words(form.cleaned_data["key"])}
            result = fact_store(project=project, origin=FactOrigin.MANUAL, **data)
        except ValidationError as error:
            for name, errors in error.message_dict.items():
                form.add_error(_FORM_FIELD.get(name), errors)
        else:
            key = f"“{key_words(result.fact.fact_key)}”"
            text = {
                "stored": f"Stored {key}.",
                "updated": f"Updated {key}; the previous value is in its history.",
                "unchanged": f"{key} already had this value; nothing changed.",
            }[result.outcome]
            messages.success(request, text)
            return HttpResponseRedirect(_page_url(project))
    return _render(request, user, project, form, status=400)


@require_POST
def retract(request: HttpRequest) -> HttpResponse:
    user = current_user(request)
    project = _chosen_project(request, user)
    key = request.POST.get("key", "")
    try:
        retracted = fact_retract(project=project, key=key)
    except ValidationError:
        retracted = None
    if retracted is None:
        messages.warning(request, "That fact has no current value; nothing was retracted.")
    else:
        words = key_words(retracted.fact_key)
        messages.success(request, f"Retracted “{words}”; its history is kept.")
    return HttpResponseRedirect(_page_url(project))
