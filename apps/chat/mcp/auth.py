"""API-token authentication for the MCP endpoint, as an ASGI middleware.

MCP clients send ``Authorization: Bearer <key>`` (the spec's form) or, like the REST API,
``Token <key>``; both are the user's API tokens (Settings → API tokens). The user's id is
put in the ASGI scope with the token's name and whether it may write (``SCOPE_CALLER``),
which the SDK hands to each tool call with its HTTP request: the guard refuses a
read-only token's write, and what a tool saves records the token's name. A missing,
unknown or revoked token is refused before the SDK sees the request.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from asgiref.sync import sync_to_async
from django.db import close_old_connections

from apps.accounts.models import hash_token_key
from apps.accounts.services import api_token_for_key, api_token_may_write

from .streams import SCOPE_TOKEN

SCOPE_USER_ID = "cairn.user_id"
SCOPE_CALLER = "cairn.caller"
Scope = dict[str, Any]


@dataclass(frozen=True)
class Caller:
    """Who is calling, as the request's token says: read once, when it is authenticated."""

    user_id: int
    token_name: str
    may_write: bool


def _token_key(scope: Scope) -> str | None:
    for name, value in scope.get("headers", []):
        if name.lower() == b"authorization":
            scheme, _, key = value.decode("latin-1").partition(" ")
            if scheme.lower() in ("bearer", "token") and key.strip():
                return key.strip()
    return None


def caller_for_key(key: str) -> Caller | None:
    close_old_connections()  # a worker thread's connection may have been closed under it
    token = api_token_for_key(key=key)
    if token is None:
        return None
    return Caller(
        user_id=int(token.user_id),
        token_name=token.name,
        may_write=api_token_may_write(token=token),
    )


def caller_of(scope: Scope) -> Caller | None:
    caller = scope.get(SCOPE_CALLER)
    return caller if isinstance(caller, Caller) else None


class TokenAuthMiddleware:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        key = _token_key(scope)
        caller = await sync_to_async(caller_for_key)(key) if key else None
        if key is None or caller is None:
            await _refuse(send)
            return
        scope = {
            **scope,
            SCOPE_USER_ID: caller.user_id,
            SCOPE_CALLER: caller,
            SCOPE_TOKEN: hash_token_key(key),
        }
        await self.app(scope, receive, send)


async def _refuse(send: Any) -> None:
    body = json.dumps(
        {
            "error": "invalid_token",
            "error_description": "Send one of your API tokens (Settings → API tokens) as "
            "'Authorization: Bearer <token>'.",
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"application/json"),
                (b"www-authenticate", b'Bearer realm="cairn", error="invalid_token"'),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
