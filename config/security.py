"""The Content-Security-Policy of every page (issue 15).

The site loads nothing from elsewhere and runs no inline script, so the policy can be
strict: scripts, styles, images, fonts and connections (the websockets included: CSP 3's
'self' covers ws:/wss: on the same host) from this origin only. Templates still carry
``style=""`` attributes, which ``style-src-attr`` allows without allowing ``<style>``
elements or any script. A response that sets its own policy keeps it (the sandbox that
uploaded originals are served with, apps/indexing/views.py).
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponseBase

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "style-src-attr 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        return response


# Swagger UI (the API docs) sets styles from its scripts; that page allows inline styles,
# still no script but its own files.
API_DOCS_POLICY = (
    CONTENT_SECURITY_POLICY.replace(
        "style-src 'self'", "style-src 'self' 'unsafe-inline'", 1
    ).replace("; style-src-attr 'unsafe-inline'", "")
    + "; worker-src 'self' blob:"
)


def with_api_docs_policy(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
    def wrapped(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponseBase:
        response = view(request, *args, **kwargs)
        response.headers["Content-Security-Policy"] = API_DOCS_POLICY
        return response

    return wrapped
