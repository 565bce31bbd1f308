"""Login throttling (django-axes): per account and per address, with a lock-out that ends.

Axes counts failed logins of the login form, the token endpoint and the admin (they all
go through ``authenticate``) and refuses the next ones once an account, or an address,
has failed ``AXES_FAILURE_LIMIT`` times, until ``AXES_COOLOFF_TIME`` has passed since the
last failure. Sign-ups are counted per address by django-ratelimit (views.py).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render


def login_username(request: HttpRequest, credentials: dict[str, Any] | None) -> str | None:
    """The account a login attempt names: the form says ``username``, the API ``email``."""
    source = credentials or getattr(request, "data", None) or request.POST
    value = source.get("username") or source.get("email")
    return str(value).strip().lower() if value else None


def lockout_minutes() -> int:
    return max(1, int(settings.AXES_COOLOFF_TIME.total_seconds() // 60))


def lockout_message() -> str:
    return (
        "Too many failed logins for this account or from this address. "
        f"Try again in {lockout_minutes()} minutes."
    )


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None, credentials: Any = None
) -> HttpResponse:
    retry_after = str(int(settings.AXES_COOLOFF_TIME.total_seconds()))
    response: HttpResponse
    if request.path.startswith("/api/"):
        response = JsonResponse({"detail": lockout_message()}, status=429)
    else:
        response = render(
            request, "registration/locked_out.html", {"message": lockout_message()}, status=429
        )
    response["Retry-After"] = retry_after
    return response
