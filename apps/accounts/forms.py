from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.password_validation import (
    password_validators_help_text_html,
    validate_password,
)

from .models import MemoryMode, TokenAccess, User


class SignUpForm(forms.Form):
    email = forms.EmailField(
        widget=forms.EmailInput(attrs={"autocomplete": "email", "autofocus": True})
    )
    display_name = forms.CharField(max_length=150, required=False, label="Name (optional)")
    password1 = forms.CharField(
        label="Password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        help_text=password_validators_help_text_html(),
    )
    password2 = forms.CharField(
        label="Password again",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean_email(self) -> str:
        email = self.cleaned_data["email"].strip().lower()
        if User.objects.filter(email__iexact=email).exists():
            raise forms.ValidationError("An account with this e-mail address already exists.")
        return str(email)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        password1, password2 = data.get("password1"), data.get("password2")
        if password1 and password2 and password1 != password2:
            self.add_error("password2", "The two passwords differ.")
        elif password1 and data.get("email"):
            try:
                validate_password(password1, User(email=data["email"]))
            except forms.ValidationError as error:
                self.add_error("password1", error)
        return data


class SettingsForm(forms.Form):
    display_name = forms.CharField(max_length=150, required=False, label="Name")
    memory_mode = forms.ChoiceField(
        choices=MemoryMode.choices,
        widget=forms.RadioSelect,
        label="Memory from conversations",
        # Said where the mode is chosen (issue 28): what happens to a plain statement.
        help_text="What Cairn does with what you state in chat (“I prefer morning workouts”). "
        "Suggest: it waits on the Knowledge page for your review; the conversation you said "
        "it in uses it at once, and its answers say it is waiting. Auto: it is remembered "
        "at once, for every conversation. Off: no memories are taken from your "
        "conversations.",
    )
    show_admin = forms.BooleanField(
        required=False,
        label="Show the admin in my Developer menu",
        help_text="Django's admin edits every field of your claims, contexts and tags; the "
        "Knowledge pages cover what most people need.",
    )


class ApiTokenForm(forms.Form):
    name = forms.CharField(max_length=100, initial="My integration")
    access = forms.ChoiceField(
        choices=TokenAccess.choices,
        initial=TokenAccess.WRITE,
        # Left out (a form posted by an older page or a script), a token reads and writes,
        # as every token did before access levels.
        required=False,
        widget=forms.RadioSelect,
        label="What it may do",
        help_text="A read-only token suits an assistant that should look things up but "
        "never change your memory.",
    )

    def clean_access(self) -> str:
        return str(self.cleaned_data.get("access") or TokenAccess.WRITE)
