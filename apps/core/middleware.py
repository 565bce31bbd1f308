"""One door for every HTTP request: text PostgreSQL cannot store is refused up front.

A NUL character (PostgreSQL rejects ``\\u0000`` in text and JSON), an unpaired surrogate
(not UTF-8 at all), an integer beyond any column or JSON nested thousands deep reached
the database, or the interpreter's stack, through any of ~200 routes and answered 500.
Checking each field of each serializer and form would miss the next one; this checks
the query string, form fields, file names and JSON bodies of every request, and answers
400 naming the field: JSON on the APIs, the site's error page elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.shortcuts import render

from .validation import InputProblem, json_problem, parameters_problem, text_problem

JSON_TYPES = ("application/json", "application/merge-patch+json")


def request_problem(request: HttpRequest) -> InputProblem | None:
    path_problem = text_problem(request.path_info)  # "/api/v1/claims/%00/" names a claim
    if path_problem:
        return InputProblem("path", path_problem)
    problem = parameters_problem(request.GET, kind="query parameter")
    if problem or request.method in ("GET", "HEAD", "OPTIONS"):
        return problem
    content_type = request.content_type or ""
    if content_type in JSON_TYPES or content_type.endswith("+json"):
        return json_problem(request.body)
    if content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
        problem = parameters_problem(request.POST, kind="form field")
        if problem:
            return problem
        for field, files in request.FILES.lists():
            for upload in files:
                name_problem = text_problem(upload.name or "")
                if name_problem:
                    return InputProblem(f"{field} (file name)", name_problem)
    return None


class InputGuardMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        problem = request_problem(request)
        if problem is None:
            return self.get_response(request)
        if request.path.startswith("/api/"):
            return JsonResponse(problem.as_dict(), status=400)
        return _error_page(request, problem)


def _error_page(request: HttpRequest, problem: InputProblem) -> HttpResponse:
    return render(
        request,
        "errors/page.html",
        {
            "title": "That could not be saved",
            "explanation": f"{problem.field}: {problem.message} Go back, change it and try again.",
        },
        status=400,
    )
