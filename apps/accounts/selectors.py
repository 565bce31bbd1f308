from __future__ import annotations

from django.db.models import QuerySet

from .models import ApiToken, User


def api_token_list(*, user: User) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user)
