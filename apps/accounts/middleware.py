from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib.auth.middleware import LoginRequiredMiddleware as DjangoLoginRequired
from django.http import HttpRequest, HttpResponseBase

# APIs answer 401 themselves and static files are public; every other page needs a login.
OPEN_PREFIXES = ("/api/", "/static/", "/healthz", "/ws/")


class LoginRequiredMiddleware(DjangoLoginRequired):
    def process_view(
        self, request: HttpRequest, view_func: Callable[..., Any], view_args: Any, view_kwargs: Any
    ) -> HttpResponseBase | None:
        if request.path.startswith(OPEN_PREFIXES):
            return None
        return super().process_view(request, view_func, view_args, view_kwargs)
