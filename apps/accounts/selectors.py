from __future__ import annotations

from importlib import import_module

from django.conf import settings
from django.db.models import QuerySet

from .models import ApiToken, User, UserSession


def api_token_list(*, user: User) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user)


def user_by_email(*, email: str) -> User | None:
    """The account with this e-mail address (as stored, lower-cased), or None."""
    return User.objects.filter(email__iexact=email.strip()).first()


def session_list(*, user: User) -> list[UserSession]:
    """The user's signed-in browsers, most recently seen first; a row whose session has
    expired or was ended elsewhere (gone from the session store) is left out."""
    engine = import_module(settings.SESSION_ENGINE)
    store = engine.SessionStore()
    return [row for row in UserSession.objects.filter(user=user) if store.exists(row.session_key)]
