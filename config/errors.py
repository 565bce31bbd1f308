"""Error pages without debug output: the site's own pages, JSON on the APIs.

With ``DEBUG`` off Django would answer an API client with an HTML page; integrations and
the site's scripts read JSON, so everything under ``/api/`` gets ``{"detail": …}`` with
the status, and never a traceback, a path or a setting.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template import loader

API_PREFIX = "/api/"

PAGES: dict[int, tuple[str, str]] = {
    400: (
        "That request could not be read",
        "Something in it was malformed. Go back and try again.",
    ),
    403: ("You can't open this", "Your session may have expired: log in again and retry."),
    404: (
        "Nothing here",
        "This page does not exist, or it belongs to someone else. Check the address or go back.",
    ),
}
API_DETAILS = {
    400: "Bad request.",
    403: "You do not have permission to do this.",
    404: "Not found.",
    500: "Internal server error.",
}


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def _page(request: HttpRequest, status: int) -> HttpResponse:
    if _is_api(request):
        return JsonResponse({"detail": API_DETAILS[status]}, status=status)
    title, explanation = PAGES[status]
    return render(
        request,
        "errors/page.html",
        {"title": title, "explanation": explanation},
        status=status,
    )


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _page(request, 400)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _page(request, 403)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _page(request, 404)


def server_error(request: HttpRequest) -> HttpResponse:
    # No context processors and no database: this page must render when they are the fault.
    if _is_api(request):
        return JsonResponse({"detail": API_DETAILS[500]}, status=500)
    return HttpResponse(loader.get_template("500.html").render(), status=500)
