from __future__ import annotations

from django.db.models import QuerySet

from .models import ApiToken, User


def api_token_list(*, user: User) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user)


def user_by_email(*, email: str) -> User | None:
    """The account with this e-mail address (as stored, lower-cased), or None."""
    return User.objects.filter(email__iexact=email.strip()).first()
