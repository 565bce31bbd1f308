"""The REST API's share of token access levels (the MCP server's is in its guard)."""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from .models import ApiToken
from .services import READ_ONLY_REFUSAL, api_token_may_write


class TokenMayWrite(BasePermission):
    """A read-only token reads (GET, HEAD, OPTIONS) and is refused anything else with a
    403 saying why. Session requests (the pages, Swagger in the browser) are the user
    themself and are not limited."""

    message = READ_ONLY_REFUSAL

    def has_permission(self, request: Request, view: Any) -> bool:
        token = request.auth
        if request.method in SAFE_METHODS or not isinstance(token, ApiToken):
            return True
        return api_token_may_write(token=token)
