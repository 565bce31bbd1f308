from __future__ import annotations

from typing import Any

from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from .models import ApiToken, hash_token_key
from .services import api_token_touch


class ApiTokenAuthentication(TokenAuthentication):
    """`Authorization: Token <key>` against the hashed, named tokens of ApiToken."""

    model = ApiToken

    def authenticate_credentials(self, key: str) -> tuple[Any, ApiToken]:
        try:
            token = ApiToken.objects.select_related("user").get(key_hash=hash_token_key(key))
        except ApiToken.DoesNotExist as exc:
            raise exceptions.AuthenticationFailed("Invalid token.") from exc
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        api_token_touch(token=token)
        return token.user, token
