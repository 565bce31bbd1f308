"""Forms of the Knowledge page. They parse input only; writes go through the services."""

from __future__ import annotations

from typing import Any, cast

from django import forms

from apps.claims.models import ClaimOrigin, ClaimStatus, ClaimType, Domain, Tag
from apps.contexts.models import Context


def _blank(label: str, choices: Any) -> list[tuple[str, str]]:
    return [("", label), *((str(value), str(text)) for value, text in choices)]


class ClaimFilterForm(forms.Form):
    """The Knowledge page's GET filters; invalid values are ignored, never an error page."""

    q = forms.CharField(
        required=False,
        max_length=500,
        label="Search",
        widget=forms.TextInput(
            attrs={"type": "search", "placeholder": "Words, a friendly ID or #42"}
        ),
    )
    type = forms.ChoiceField(required=False, choices=_blank("Any type", ClaimType.choices))
    domain = forms.ChoiceField(required=False, choices=_blank("Any domain", Domain.choices))
    status = forms.ChoiceField(required=False, choices=_blank("Any status", ClaimStatus.choices))
    pinned = forms.ChoiceField(
        required=False, choices=[("", "Pinned or not"), ("yes", "Pinned"), ("no", "Not pinned")]
    )
    context = forms.ChoiceField(required=False)
    tag = forms.ChoiceField(required=False)
    origin = forms.ChoiceField(
        required=False, label="Where from", choices=_blank("From anywhere", ClaimOrigin.choices)
    )

    def __init__(
        self, *args: Any, contexts: list[tuple[Context, int]], tags: list[Tag], **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["context"]).choices = [("", "Any context")] + [
            (str(context.pk), f"{'· ' * depth}{context.name}") for context, depth in contexts
        ]
        cast(forms.ChoiceField, self.fields["tag"]).choices = [("", "Any tag")] + [
            (str(tag.pk), tag.name) for tag in tags
        ]

    def values(self) -> dict[str, str]:
        """The valid filters (an invalid one is dropped, not reported)."""
        self.is_valid()  # cleaned_data keeps only the fields that were valid
        return {name: value for name, value in self.cleaned_data.items() if value}


class ReviewForm(forms.Form):
    decision = forms.ChoiceField(choices=[("approve", "Approve"), ("reject", "Dismiss")])
    # Set when the user edited the wording before approving; absent, the claim is kept as is.
    statement = forms.CharField(required=False, strip=False)


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


class ContextChoicesMixin:
    """A ``contexts`` field offering the user's context tree (``(context, depth)`` pairs,
    indented by depth); only those contexts can be chosen."""

    fields: dict[str, forms.Field]
    cleaned_data: dict[str, Any]

    def __init__(self, *args: Any, contexts: list[tuple[Context, int]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[call-arg]
        self.context_rows = {str(context.pk): context for context, _ in contexts}
        cast(forms.MultipleChoiceField, self.fields["contexts"]).choices = [
            (str(context.pk), f"{'· ' * depth}{context.name}") for context, depth in contexts
        ]

    def chosen_contexts(self) -> list[Context]:
        return [self.context_rows[pk] for pk in self.cleaned_data.get("contexts", [])]


class ClaimForm(ContextChoicesMixin, forms.Form):
    """Add or edit a claim on the Knowledge page. Only parsing here: the services clean
    the values again and their errors are shown on the field they name."""

    statement = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="One thing to remember, in a sentence.",
    )
    claim_types = forms.MultipleChoiceField(
        label="Kinds",
        required=False,
        choices=ClaimType.choices,
        widget=forms.CheckboxSelectMultiple,
    )
    domains = forms.MultipleChoiceField(
        label="Areas of life",
        required=False,
        choices=Domain.choices,
        widget=forms.CheckboxSelectMultiple,
    )
    possible_questions = forms.CharField(
        label="Questions it answers",
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="One per line; they help Cairn find it.",
    )
    contexts = forms.MultipleChoiceField(
        required=False, widget=forms.CheckboxSelectMultiple, label="In contexts"
    )
    pinned = forms.BooleanField(required=False, label="Pin it (every answer uses it)")

    def questions(self) -> list[str]:
        return _lines(self.cleaned_data.get("possible_questions", ""))

    def claim_fields(self) -> dict[str, Any]:
        """The cleaned values as the knowledge services take them (add and edit alike)."""
        data = self.cleaned_data
        return {
            "statement": data["statement"],
            "claim_types": data["claim_types"],
            "domains": data["domains"],
            "possible_questions": self.questions(),
            "pinned": data["pinned"],
            "contexts": self.chosen_contexts(),
        }


class ClaimContextsForm(ContextChoicesMixin, forms.Form):
    contexts = forms.MultipleChoiceField(required=False, widget=forms.CheckboxSelectMultiple)


class PinForm(forms.Form):
    pinned = forms.BooleanField(required=False)


class ContextForm(forms.Form):
    """Create, rename or move a context; ``parent`` lists the user's own contexts only
    (another user's id is simply not a choice)."""

    name = forms.CharField(max_length=200)
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))
    parent = forms.ChoiceField(required=False, label="Inside")

    def __init__(
        self,
        *args: Any,
        contexts: list[tuple[Context, int]],
        editing: Context | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.context_rows = {str(context.pk): context for context, _ in contexts}
        cast(forms.ChoiceField, self.fields["parent"]).choices = [("", "— top level —")] + [
            (str(context.pk), f"{'· ' * depth}{context.name}")
            for context, depth in contexts
            if editing is None or context.pk != editing.pk
        ]
        for name in ("name", "description", "parent"):
            self.fields[name].widget.attrs["id"] = f"{'ctx-edit' if editing else 'ctx-new'}-{name}"

    def chosen_parent(self) -> Context | None:
        return self.context_rows.get(self.cleaned_data.get("parent") or "")


class ClaimDetailsForm(forms.Form):
    """Tags, the dates a claim holds between and how sure it is: on the claim's page
    (issue 30), no longer only in the admin. Confidence is shown in per cent."""

    confidence = forms.IntegerField(
        label="Confidence (%)",
        min_value=0,
        max_value=100,
        help_text="How sure this is; answers say when they rest on something uncertain.",
    )
    valid_from = forms.DateField(
        label="True from", required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    valid_until = forms.DateField(
        label="True until", required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    tags = forms.MultipleChoiceField(
        required=False, widget=forms.CheckboxSelectMultiple, label="Tags"
    )
    new_tags = forms.CharField(
        required=False,
        max_length=500,
        label="New tags",
        help_text="Names separated by commas.",
    )

    def __init__(self, *args: Any, tags: list[Tag], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tag_rows = {str(tag.pk): tag for tag in tags}
        cast(forms.MultipleChoiceField, self.fields["tags"]).choices = [
            (str(tag.pk), tag.name) for tag in tags
        ]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        start, end = data.get("valid_from"), data.get("valid_until")
        if start and end and end < start:
            self.add_error("valid_until", "A claim cannot stop being true before it starts.")
        return data

    def chosen_tags(self) -> list[Tag]:
        return [self.tag_rows[pk] for pk in self.cleaned_data.get("tags", [])]

    def new_tag_names(self) -> list[str]:
        return [name.strip() for name in self.cleaned_data.get("new_tags", "").split(",")]
