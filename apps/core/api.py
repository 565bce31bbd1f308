"""What every DRF endpoint shares: a service's ``ValidationError`` is a 400 (a storage
that cannot take a file, 507 Insufficient Storage).

Services raise Django's ``ValidationError`` with field errors; views let it propagate and
this handler (``REST_FRAMEWORK["EXCEPTION_HANDLER"]``) answers it as DRF's 400 with those
field errors, unchanged, instead of each view converting it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.exceptions import ObjectDoesNotExist
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import InterfaceError, OperationalError
from django.db.models import QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema_field
from rest_framework import serializers
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework.views import exception_handler as drf_exception_handler

from .request_user import current_user
from .storage import StorageUnavailable
from .validation import query_parameters_refused


def field_errors(error: DjangoValidationError) -> dict[str, list[str]]:
    """A service's refusal as both JSON APIs answer it (400): ``{field: [message]}``, or
    ``{"detail": [message]}`` when it names no field."""
    if hasattr(error, "error_dict"):
        return error.message_dict
    return {"detail": error.messages}


def as_drf_error(error: DjangoValidationError) -> serializers.ValidationError:
    """A service's field errors, unchanged, as DRF's 400 body."""
    return serializers.ValidationError(field_errors(error))


# Where django-ninja says a value came from; the field is named without it, as DRF does.
_NINJA_SOURCES = frozenset({"body", "query", "path", "form", "header", "cookie", "file"})


def ninja_field_errors(errors: list[dict[str, Any]]) -> dict[str, list[str]]:
    """django-ninja's validation errors in DRF's shape: ``{"title": ["String should have
    at most 200 characters"]}`` for ``loc = ["body", "payload", "title"]``."""
    found: dict[str, list[str]] = {}
    for item in errors:
        loc = [str(part) for part in item.get("loc", ())]
        if loc and loc[0] in _NINJA_SOURCES:
            source, loc = loc[0], loc[1:]
            if source == "body" and len(loc) > 1:
                loc = loc[1:]  # the view's parameter name ("payload"), not a field
        field = ".".join(loc) or "detail"
        found.setdefault(field, []).append(f"{str(item.get('msg', 'Invalid value')).rstrip('.')}.")
    return found


STORAGE_REFUSED = OpenApiResponse(
    description="The server's storage has no room for the file, or is read-only (507), or "
    "its bucket could not take it (503): nothing was saved. The body names the field in "
    'words: `{"file": ["…"]}`.'
)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, StorageUnavailable):  # the server's disk, not the request, is at fault
        return Response({"file": [exc.reason]}, status=exc.status_code)
    if isinstance(exc, DjangoValidationError):
        exc = as_drf_error(exc)
    if isinstance(exc, OperationalError | InterfaceError):
        # The database is down or restarting (issue 26): say so, instead of a bare 500.
        return Response(
            {
                "code": "database_unavailable",
                "detail": "The database could not be reached; try again in a moment.",
            },
            status=503,
        )
    return drf_exception_handler(exc, context)


class BoundedLimitOffsetPagination(LimitOffsetPagination):
    """``?limit`` at most 200 (more is served as 200); ``?offset`` within a PostgreSQL
    integer, past the end simply empty (the input guard refuses larger ones).

    Every list endpoint pages through here, so here an unknown query parameter is refused
    by name (400) rather than silently ignored: besides ``limit`` and ``offset`` a list
    reads its view's ``filter_serializer_class`` fields and ``query_parameters``."""

    max_limit = 200

    def paginate_queryset(
        self, queryset: Any, request: Request, view: APIView | None = None
    ) -> list[Any] | None:
        filters = getattr(view, "filter_serializer_class", None)
        known = [*getattr(view, "query_parameters", ()), *(filters().fields if filters else ())]
        query_parameters_refused(request.query_params, known=known)
        return super().paginate_queryset(queryset, request, view)


@extend_schema_field(OpenApiTypes.UUID)  # every user-owned object has a UUID key
class OwnedPrimaryKeyField(serializers.PrimaryKeyRelatedField):  # type: ignore[type-arg]
    """The id of one of the requesting user's objects.

    DRF's field looks the id up in a fixed queryset: another user's object then answered
    differently from a missing one ("No such project." against "Invalid pk … does not
    exist"). Here the queryset is the user's own, and a malformed id, a missing one and
    another user's all answer the same words (DESIGN §3)."""

    def __init__(self, *, scope: Callable[[Any], QuerySet[Any]], noun: str, **kwargs: Any):
        self.scope = scope
        self.noun = noun
        super().__init__(**kwargs)

    def get_queryset(self) -> QuerySet[Any]:
        return self.scope(current_user(self.context["request"]))

    def to_internal_value(self, data: Any) -> Any:
        try:
            return self.get_queryset().get(pk=data)
        except (ObjectDoesNotExist, DjangoValidationError, TypeError, ValueError, OverflowError):
            raise serializers.ValidationError(f"No such {self.noun}.") from None
