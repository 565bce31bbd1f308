"""The Files page's forms: parse only; the services validate again and decide."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.files.uploadedfile import UploadedFile


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    widget = MultipleFileInput

    def clean(self, data: Any, initial: Any = None) -> list[UploadedFile]:
        single = super().clean
        if isinstance(data, list | tuple):
            return [single(item, initial) for item in data]
        return [single(data, initial)]


class UploadForm(forms.Form):
    project = forms.UUIDField(widget=forms.HiddenInput)
    # Declared fields leave the class body, so this does not shadow Form.files at run time.
    files = MultipleFileField(  # type: ignore[assignment]
        label="Files", widget=MultipleFileInput(attrs={"multiple": True, "data-file-input": ""})
    )


def _patterns(value: str) -> list[str]:
    return [part.strip() for part in value.replace("\n", ",").split(",") if part.strip()]


class FolderSourceForm(forms.Form):
    project = forms.UUIDField(widget=forms.HiddenInput)
    root_path = forms.CharField(
        label="Folder on the server",
        max_length=1024,
        widget=forms.TextInput(attrs={"placeholder": "/srv/shared/notes", "spellcheck": "false"}),
    )
    name = forms.CharField(label="Name", max_length=200, required=False)
    include_globs = forms.CharField(
        label="Only files matching",
        required=False,
        help_text="Comma-separated patterns, e.g. *.md, docs/*; empty for all files.",
    )
    exclude_globs = forms.CharField(
        label="Leave out files matching",
        required=False,
        help_text="e.g. *.log, drafts/",
    )

    def clean_include_globs(self) -> list[str]:
        return _patterns(self.cleaned_data["include_globs"])

    def clean_exclude_globs(self) -> list[str]:
        return _patterns(self.cleaned_data["exclude_globs"])
