"""Bounds on the event streams a client opens with ``GET /mcp/`` (issue 29).

The Streamable HTTP transport answers a GET with a server-sent event stream for messages
the server might send on its own. In stateless mode there never are any, yet the SDK held
each stream open until the client left: 40 at once from one token were accepted, each an
open socket and a task. Here a stream that has carried nothing but keep-alive comments
for ``CAIRN_MCP_STREAM_IDLE_SECONDS`` is ended (the client may open another), and one
token holds at most ``CAIRN_MCP_STREAMS_PER_TOKEN`` at once: the next is a 429 saying so.
The count is per server process; behind several processes each keeps its own.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from typing import Any

from django.conf import settings

# The hash of the request's API token key, put in the scope by TokenAuthMiddleware.
SCOPE_TOKEN = "cairn.token_hash"  # noqa: S105 - a scope key, not a secret
Message = dict[str, Any]


def _is_keep_alive(message: Message) -> bool:
    """An SSE comment (``: ping - …``): the transport's keep-alive, not a message."""
    return bytes(message.get("body", b"")).lstrip().startswith(b":")


class StreamLimits:
    """ASGI middleware for the authenticated MCP app: GET requests are event streams."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.open: Counter[str] = Counter()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "GET":
            await self.app(scope, receive, send)
            return
        token = scope[SCOPE_TOKEN]
        limit = settings.CAIRN_MCP_STREAMS_PER_TOKEN
        if self.open[token] >= limit:
            await _too_many(send, limit)
            return
        self.open[token] += 1
        try:
            await _IdleStream(self.app, settings.CAIRN_MCP_STREAM_IDLE_SECONDS).run(
                scope, receive, send
            )
        finally:
            self.open[token] -= 1
            if not self.open[token]:
                del self.open[token]


class _IdleStream:
    """One stream: when nothing but keep-alives was sent for ``idle`` seconds, the app is
    told the client left (its ordinary way out), and the response is ended."""

    def __init__(self, app: Any, idle: float) -> None:
        self.app = app
        self.idle = idle
        self.loop = asyncio.get_running_loop()
        self.last_sent = self.loop.time()
        self.idle_over = asyncio.Event()
        self.started = self.finished = False

    async def run(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        async def sent(message: Message) -> None:
            if message["type"] == "http.response.start":
                self.started = True
            elif message["type"] == "http.response.body":
                if not _is_keep_alive(message):
                    self.last_sent = self.loop.time()
                self.finished = not message.get("more_body", False)
            await send(message)

        async def received() -> Message:
            waiting = asyncio.ensure_future(receive())
            over = asyncio.ensure_future(self.idle_over.wait())
            done, _ = await asyncio.wait({waiting, over}, return_when=asyncio.FIRST_COMPLETED)
            if waiting in done:
                over.cancel()
                return waiting.result()  # type: ignore[no-any-return]
            waiting.cancel()
            return {"type": "http.disconnect"}

        watchdog = asyncio.ensure_future(self._watch())
        try:
            await self.app(scope, received, sent)
        finally:
            watchdog.cancel()
        if self.started and not self.finished:
            await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _watch(self) -> None:
        while (left := self.last_sent + self.idle - self.loop.time()) > 0:
            await asyncio.sleep(left)
        self.idle_over.set()


async def _too_many(send: Any, limit: int) -> None:
    body = json.dumps(
        {
            "error": "too_many_streams",
            "error_description": f"At most {limit} event streams may be open at once with "
            "one API token; close one before opening another.",
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 429,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": body})
