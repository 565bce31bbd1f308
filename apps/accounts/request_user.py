from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied

from .models import User


def current_user(request: Any) -> User:
    """The authenticated user of a request (Django's or DRF's), typed for the layers below.

    Views behind the login middleware, DRF's IsAuthenticated or ninja's session auth are
    only reached by authenticated users; this makes that explicit instead of casting.
    """
    user = request.user
    if not isinstance(user, User) or not user.is_authenticated:
        raise PermissionDenied("Authentication required.")
    return user
