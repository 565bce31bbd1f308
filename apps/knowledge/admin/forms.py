"""Forms of the knowledge editor: they parse and check input; the ModelAdmins write
through the services. Field checks reuse the services' own validators, so the admin and
the API reject the same input with the same message."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from django import forms
from django.contrib.admin.widgets import FilteredSelectMultiple
from django.core.exceptions import ValidationError
from django.db.models import QuerySet

from apps.claims.models import CLAIM_EDITABLE_FIELDS, Claim, ClaimType, Domain, Tag
from apps.claims.services.validation import (
    clean_friendly_id,
    clean_questions,
    clean_statement,
)
from apps.contexts.models import Context
from apps.core.admin_scoping import scope_to_user
from apps.core.admin_services import ServiceForm


def _checked(validator: Callable[[Any], Any], value: Any) -> Any:
    """Run a service validator inside a form field's clean method (flattening its
    field-keyed error into plain messages for that field)."""
    try:
        return validator(value)
    except ValidationError as error:
        raise ValidationError(error.messages) from error


def _keep_order(chosen: list[str], previous: list[str]) -> list[str]:
    """Checkboxes submit in display order; keep the order a claim already had, so that
    its primary type (the first) survives an edit."""
    rank = {value: index for index, value in enumerate(previous)}
    return sorted(chosen, key=lambda value: rank.get(value, len(previous)))


class ClaimAdminForm(ServiceForm):
    statement = forms.CharField(widget=forms.Textarea(attrs={"rows": 4, "cols": 80}))
    friendly_id = forms.CharField(
        max_length=60,
        required=False,
        help_text="How you point at this claim in chat, e.g. <code>@prefer_tea_a3f2</code>. "
        "Leave blank on a new claim to generate one from the statement.",
    )
    claim_types = forms.MultipleChoiceField(
        choices=ClaimType.choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label="Types",
        help_text="Several allowed; the first one is the primary type. None checked means Fact.",
    )
    domains = forms.MultipleChoiceField(
        choices=Domain.choices, required=False, widget=forms.CheckboxSelectMultiple
    )
    possible_questions = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 80}),
        help_text="Self-contained questions this claim answers, one per line.",
    )
    confidence = forms.FloatField(min_value=0.0, max_value=1.0, initial=1.0)
    contexts = forms.ModelMultipleChoiceField(
        queryset=Context.objects.none(),
        required=False,
        widget=FilteredSelectMultiple("contexts", is_stacked=False),
    )
    tags = forms.ModelMultipleChoiceField(
        queryset=Tag.objects.none(),
        required=False,
        widget=FilteredSelectMultiple("tags", is_stacked=False),
    )

    class Meta:
        model = Claim
        fields = [*CLAIM_EDITABLE_FIELDS, "supersedes"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        assert self.request is not None, "ClaimAdminForm is built by ClaimAdmin.get_form"
        contexts = cast(forms.ModelMultipleChoiceField, self.fields["contexts"])
        contexts.queryset = scope_to_user(Context.objects.all(), self.request)
        tags = cast(forms.ModelMultipleChoiceField, self.fields["tags"])
        tags.queryset = scope_to_user(Tag.objects.all(), self.request)
        if self.adding:
            self.fields["supersedes"].help_text = (
                "Optional: the claim this one replaces. The new claim becomes its new "
                "version, with its number, friendly ID, tags, entities and contexts; the "
                "old one stays linked as history."
            )
        else:
            self.fields["friendly_id"].required = True
            self.fields["friendly_id"].help_text = "How you point at this claim in chat."
            self.initial["possible_questions"] = "\n".join(self.instance.possible_questions)
            self.initial["contexts"] = list(self.instance.contexts.all())
            self.initial["tags"] = list(self.instance.tags.all())

    def clean_statement(self) -> str:
        value: str = _checked(clean_statement, self.cleaned_data["statement"])
        return value

    def clean_friendly_id(self) -> str:
        value = self.cleaned_data["friendly_id"].strip()
        if value:
            value = _checked(lambda v: clean_friendly_id(v, kind="claim"), value)
        return value

    def clean_claim_types(self) -> list[str]:
        return _keep_order(self.cleaned_data["claim_types"], self.instance.claim_types or [])

    def clean_domains(self) -> list[str]:
        return _keep_order(self.cleaned_data["domains"], self.instance.domains or [])

    def clean_possible_questions(self) -> list[str]:
        lines = self.cleaned_data["possible_questions"].splitlines()
        questions: list[str] = _checked(clean_questions, lines)
        return questions


class ContextChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Context) -> str:
        return f"{obj.name} (@{obj.friendly_id})"


class AddToContextForm(forms.Form):
    """The intermediate page of the admin's "add to context" action."""

    context = ContextChoiceField(queryset=Context.objects.none(), empty_label="Choose a context…")

    def __init__(self, *args: Any, contexts: QuerySet[Context], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(ContextChoiceField, self.fields["context"]).queryset = contexts
