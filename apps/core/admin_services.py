"""What every knowledge ModelAdmin shares: writes go through the services, and a
ValidationError a service raises is shown on the form, never as a server error.

The admin saves inside one transaction (``changeform_view``). When a service rejects the
write, ``save_model`` or ``save_related`` raises ``ServiceRejected``; the transaction rolls
back, so nothing is half-written, and the same POST is rendered again with the service's
errors attached to the form, which makes it invalid, so the second pass saves nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import models
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

SERVICE_ERROR_ATTR = "_cairn_service_error"


class ServiceRejected(Exception):
    """A service refused a write the admin form had accepted."""

    def __init__(self, error: ValidationError) -> None:
        super().__init__(str(error))
        self.error = error


@contextmanager
def service_call() -> Iterator[None]:
    try:
        yield
    except ValidationError as error:
        raise ServiceRejected(error) from error


def add_validation_error(form: forms.BaseForm, error: ValidationError) -> None:
    """Attach ``error`` to the form: to its field when the form has one, else to the form."""
    if not hasattr(error, "error_dict"):
        form.add_error(None, error.messages)
        return
    for field, messages in error.message_dict.items():
        if field in form.fields and field != NON_FIELD_ERRORS:
            form.add_error(field, messages)
        else:
            label = "" if field == NON_FIELD_ERRORS else f"{field.replace('_', ' ')}: "
            form.add_error(None, [f"{label}{message}" for message in messages])


class ServiceForm(forms.ModelForm):
    """A ModelAdmin form that knows its request (to scope its own choices) and shows the
    errors a service raised on the previous attempt at saving the same data."""

    request: ClassVar[HttpRequest | None] = None
    service_error: ClassVar[ValidationError | None] = None

    def clean(self) -> dict[str, Any]:
        super().clean()
        if self.service_error is not None:
            add_validation_error(self, self.service_error)
        return self.cleaned_data

    @property
    def adding(self) -> bool:
        return bool(self.instance._state.adding)


class ServiceAdminMixin:
    """For ModelAdmins whose save_model/save_related wrap their service calls in
    ``service_call()``."""

    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        try:
            return super().changeform_view(  # type: ignore[misc, no-any-return]
                request, object_id, form_url, extra_context
            )
        except ServiceRejected as rejected:
            setattr(request, SERVICE_ERROR_ATTR, rejected.error)
            return super().changeform_view(  # type: ignore[misc, no-any-return]
                request, object_id, form_url, extra_context
            )

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> type[forms.ModelForm]:
        base: type[forms.ModelForm] = kwargs.get("form") or self.form  # type: ignore[attr-defined]
        attrs = {
            "request": request,
            "service_error": getattr(request, SERVICE_ERROR_ATTR, None),
            "__module__": base.__module__,
        }
        kwargs["form"] = type(base.__name__, (base,), attrs)
        return super().get_form(  # type: ignore[misc, no-any-return]
            request, obj, change=change, **kwargs
        )


def copy_row(*, source: models.Model, target: models.Model) -> None:
    """Make the admin's unsaved form instance the row a service saved, so the admin's
    log entry, message and redirect refer to the real row."""
    for field in source._meta.concrete_fields:
        setattr(target, field.attname, getattr(source, field.attname))
    target._state.adding = False
    target._state.db = source._state.db


def admin_link(obj: models.Model, label: str | None = None) -> SafeString:
    opts = obj._meta
    url = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk])
    return format_html('<a href="{}">{}</a>', url, label if label is not None else str(obj))


def admin_links(objects: Any, empty: str = "—") -> SafeString | str:
    """Links to the objects' change pages, one per line."""
    rows = [(admin_link(obj),) for obj in objects]
    if not rows:
        return empty
    return format_html_join(mark_safe("<br>"), "{}", rows)
