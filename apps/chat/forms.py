"""The chat page's plain forms: they work without JavaScript, and the script posts the same
fields to the ninja endpoints when it runs."""

from __future__ import annotations

from django import forms

from apps.chat.services.conversations import TITLE_MAX_LENGTH


class ConversationFilterForm(forms.Form):
    """The sidebar: search by title or content, and open or archived conversations."""

    q = forms.CharField(
        required=False, max_length=200, strip=True, widget=forms.TextInput(attrs={"type": "search"})
    )
    archived = forms.BooleanField(required=False)

    def values(self) -> tuple[str, bool]:
        if not self.is_valid():
            return "", False
        return self.cleaned_data["q"], self.cleaned_data["archived"]


class ConversationTitleForm(forms.Form):
    title = forms.CharField(required=False, max_length=TITLE_MAX_LENGTH, strip=True)


class ConversationArchiveForm(forms.Form):
    # "true" or "false" (a checkbox reads "0" as checked), so one field both archives and
    # unarchives.
    archived = forms.BooleanField(required=False)


class RememberForm(forms.Form):
    statement = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}))
