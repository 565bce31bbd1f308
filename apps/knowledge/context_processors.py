"""The navigation's count of claims waiting for review (issue 18): every page shows it on
the Knowledge link, so a suggestion made in chat is never silent. Lazy, so a page that
does not render the navigation (an API call, a logged-out page) runs no query."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from apps.claims.selectors import claims_pending


class _Count:
    def __init__(self, request: HttpRequest) -> None:
        user = request.user
        self.value = (
            claims_pending(user=user).count()  # type: ignore[arg-type]
            if user.is_authenticated
            else 0
        )


def pending_claims(request: HttpRequest) -> dict[str, object]:
    return {"nav_pending_count": SimpleLazyObject(lambda: _Count(request))}
