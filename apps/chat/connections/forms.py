"""The connections page's forms and the conversation's model picker: they parse; the
services validate what only they can (a model on offer, a reachable server)."""

from __future__ import annotations

from collections.abc import Sequence

from django import forms

from .models import ModelConnection
from .selectors import ModelOption


class ConnectionForm(forms.Form):
    kind = forms.ChoiceField(
        label="Kind", choices=ModelConnection.Kind.choices, widget=forms.RadioSelect
    )
    name = forms.CharField(
        label="Name", max_length=100, required=False, help_text="Shown in the model picker."
    )
    base_url = forms.CharField(
        label="Base URL",
        max_length=500,
        required=False,
        help_text="OpenAI-compatible servers only, e.g. <code>http://127.0.0.1:11434/v1</code>.",
    )
    api_key = forms.CharField(
        label="API key",
        max_length=500,
        required=False,
        strip=True,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off"}),
        help_text="Stored encrypted; only its last four characters are shown again.",
    )


def _choices(options: Sequence[ModelOption], blank: str) -> list[tuple[str, str]]:
    return [("", blank), *((option.value, option.label) for option in options)]


class DefaultsForm(forms.Form):
    default = forms.ChoiceField(label="Default model", required=False)
    cheap = forms.ChoiceField(
        label="Cheap model",
        required=False,
        help_text="Condenses memory, checks citations and finds memories to keep.",
    )

    def __init__(self, *args: object, options: Sequence[ModelOption], **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.fields["default"].choices = _choices(options, "None: the offline provider")  # type: ignore[attr-defined]
        self.fields["cheap"].choices = _choices(options, "The default model")  # type: ignore[attr-defined]


class ModelPickForm(forms.Form):
    model = forms.ChoiceField(label="Model", required=False)

    def __init__(
        self, *args: object, options: Sequence[ModelOption], default_label: str, **kwargs: object
    ) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.fields["model"].choices = _choices(options, f"Default ({default_label})")  # type: ignore[attr-defined]
