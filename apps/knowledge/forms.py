"""Forms of the Knowledge page. They parse input only; writes go through the services."""

from __future__ import annotations

from typing import Any, cast

from django import forms

from apps.claims.models import ClaimStatus, ClaimType, Domain, Tag
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
    decision = forms.ChoiceField(choices=[("approve", "Approve"), ("reject", "Reject")])
