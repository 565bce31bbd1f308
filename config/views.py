from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

SECTIONS: dict[str, tuple[str, str]] = {}


def section_pending(request: HttpRequest, section: str) -> HttpResponse:
    title, blurb = SECTIONS[section]
    return render(
        request, "sections/empty.html", {"title": title, "blurb": blurb, "section": section}
    )
