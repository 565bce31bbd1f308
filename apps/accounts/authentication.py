from __future__ import annotations

from typing import Any

from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication, get_authorization_header
from rest_framework.request import Request

from .models import ApiToken
from .services import api_token_for_key

# `Token` is DRF's word; `Bearer` is the standard one, which MCP clients send, so the key
# copied from the tokens page works in either door with the same header.
SCHEMES = (b"token", b"bearer")


class ApiTokenAuthentication(TokenAuthentication):
    """`Authorization: Bearer <key>` or `Authorization: Token <key>` against the hashed,
    named tokens of ApiToken."""

    model = ApiToken

    def authenticate(self, request: Request) -> tuple[Any, ApiToken] | None:
        words = get_authorization_header(request).split()
        if not words or words[0].lower() not in SCHEMES:
            return None
        if len(words) != 2:
            raise exceptions.AuthenticationFailed(
                "Invalid token header: send 'Authorization: Bearer <key>', the key without spaces."
            )
        try:
            key = words[1].decode()
        except UnicodeError as error:
            raise exceptions.AuthenticationFailed(
                "Invalid token header: the key has characters no key has."
            ) from error
        return self.authenticate_credentials(key)

    def authenticate_credentials(self, key: str) -> tuple[Any, ApiToken]:
        token = api_token_for_key(key=key)
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
        return token.user, token
