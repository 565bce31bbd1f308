"""What every DRF endpoint shares: a service's ``ValidationError`` is a 400.

Services raise Django's ``ValidationError`` with field errors; views let it propagate and
this handler (``REST_FRAMEWORK["EXCEPTION_HANDLER"]``) answers it as DRF's 400 with those
field errors, unchanged, instead of each view converting it.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


def as_drf_error(error: DjangoValidationError) -> serializers.ValidationError:
    """A service's field errors, unchanged, as DRF's 400 body."""
    if hasattr(error, "error_dict"):
        return serializers.ValidationError(error.message_dict)
    return serializers.ValidationError({"detail": error.messages})


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, DjangoValidationError):
        exc = as_drf_error(exc)
    return drf_exception_handler(exc, context)
