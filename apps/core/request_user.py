from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied

if TYPE_CHECKING:
    # Only the annotation names the concrete user model; at run time it is AUTH_USER_MODEL.
    from apps.accounts.models import User


def current_user(request: Any) -> User:
    """The authenticated user of a request (Django's or DRF's), typed for the layers below.

    Views behind the login middleware, DRF's IsAuthenticated or ninja's session auth are
    only reached by authenticated users; this makes that explicit instead of casting.
    """
    user = request.user
    if not isinstance(user, get_user_model()) or not user.is_authenticated:
        raise PermissionDenied("Authentication required.")
    return user
