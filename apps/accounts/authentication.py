from __future__ import annotations

from typing import Any

from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from .models import ApiToken
from .services import api_token_for_key


class ApiTokenAuthentication(TokenAuthentication):
    """`Authorization: Token <key>` against the hashed, named tokens of ApiToken."""

    model = ApiToken

    def authenticate_credentials(self, key: str) -> tuple[Any, ApiToken]:
        token = api_token_for_key(key=key)
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
        return token.user, token
