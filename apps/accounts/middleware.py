from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.contrib.auth.middleware import LoginRequiredMiddleware as DjangoLoginRequired
from django.http import HttpRequest, HttpResponseBase

from .sessions import SEEN_EVERY, session_seen

# APIs answer 401 themselves and static files are public; every other page needs a login.
OPEN_PREFIXES = ("/api/", "/static/", "/healthz", "/ws/")


class LoginRequiredMiddleware(DjangoLoginRequired):
    def process_view(
        self, request: HttpRequest, view_func: Callable[..., Any], view_args: Any, view_kwargs: Any
    ) -> HttpResponseBase | None:
        if request.path.startswith(OPEN_PREFIXES):
            return None
        return super().process_view(request, view_func, view_args, view_kwargs)


SEEN_KEY = "cairn.seen"  # in the session: [session key, epoch seconds] of the last note


class SessionSeenMiddleware:
    """Notes each signed-in browser session (Settings → Sessions) at most every few
    minutes. Runs after the view, so the request that logs in is noted with the key
    ``login()`` gave it, and one whose key changed (a password change) as a new row."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        user = getattr(request, "user", None)
        session = getattr(request, "session", None)
        if user is None or session is None or not user.is_authenticated:
            return response
        key = session.session_key
        if not key:
            return response
        now = time.time()
        seen = session.get(SEEN_KEY) or ["", 0.0]
        if seen[0] == key and now - float(seen[1]) < SEEN_EVERY.total_seconds():
            return response
        session_seen(
            user=user,
            session_key=key,
            user_agent=request.headers.get("User-Agent", ""),
            ip_address=request.META.get("REMOTE_ADDR"),
        )
        session[SEEN_KEY] = [key, now]
        return response
