"""How long Cairn waits for a model server, and what it says when the wait is over.

Three bounds (issue 26): connecting (`connect`, one retry, and only when the connection
could not be made: a request that reached the server is never sent again, since the
model may have started on it), the first streamed event after asking (`first_byte`), and
the silence between two events (`idle`). The last two are kept here, around each awaited
step of the stream, rather than by the HTTP client's read timeout: a read timeout
restarts with every byte (a server's keep-alive comments included) and cannot tell the
first event from the next. Everything the SDKs do is therefore bounded; both streamed
answers and `complete()` stream, so the cheap calls have the same bounds.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TypeVar

import httpx2
from django.conf import settings
from httpx2._utils import get_environment_proxies  # the SDKs' own way

from apps.chat.llm.types import StreamError

T = TypeVar("T")
CONNECT_RETRIES = 1


@dataclass(frozen=True)
class Bounds:
    """Seconds: connecting, until the first streamed event, between two events."""

    first_byte: float = 30.0
    idle: float = 30.0
    connect: float = 10.0

    def __post_init__(self) -> None:
        for name in ("first_byte", "idle", "connect"):
            if not getattr(self, name) > 0:
                setting = f"CAIRN_LLM_{name.upper()}_TIMEOUT"
                raise ValueError(f"{setting} must be a number of seconds above 0.")

    @classmethod
    def from_settings(cls) -> Bounds:
        return cls(
            first_byte=settings.CAIRN_LLM_FIRST_BYTE_TIMEOUT,
            idle=settings.CAIRN_LLM_IDLE_TIMEOUT,
            connect=settings.CAIRN_LLM_CONNECT_TIMEOUT,
        )

    def http_timeout(self) -> httpx2.Timeout:
        # The read timeout is only a backstop, longer than the watch's own deadlines, so
        # that the watch's precise words are what the person reads.
        backstop = 2 * max(self.first_byte, self.idle) + self.connect
        return httpx2.Timeout(backstop, connect=self.connect, pool=self.connect)


def http_client_for(bounds: Bounds) -> httpx2.AsyncClient:
    """An HTTP client that retries a failed connection once (httpcore retries only
    connection errors, never a request that was sent), keeps long streams alive with
    TCP keep-alives and honours the proxy environment variables as the SDKs do."""

    def transport(proxy: str | None = None) -> httpx2.AsyncHTTPTransport:
        return httpx2.AsyncHTTPTransport(
            proxy=proxy,
            retries=CONNECT_RETRIES,
            socket_options=[(socket.SOL_SOCKET, socket.SO_KEEPALIVE, True)],
        )

    return httpx2.AsyncClient(
        timeout=bounds.http_timeout(),
        follow_redirects=True,
        transport=transport(),  # given, so httpx2 would not read the proxies itself
        mounts={
            pattern: None if proxy is None else transport(proxy)
            for pattern, proxy in get_environment_proxies().items()
        },
    )


class StreamWatch:
    """The deadlines of one streamed request.

    `opening()` bounds sending the request and receiving its headers, `next_event()`
    each wait for the next event: the first within `first_byte` of asking, each later one
    within `idle` of asking for it (the time the caller spends on an event is not
    silence). When a deadline passes, the awaited step is cancelled (the SDK closes the
    connection), `TimeoutError` rises, and `expired` is True: `error()` says what
    happened. A cancellation from outside (the person's "stop") passes through as is.
    """

    def __init__(self, bounds: Bounds, *, server: str) -> None:
        self.bounds = bounds
        self.server = server
        self.answering = False
        self.expired = False
        self._deadline = asyncio.get_running_loop().time() + bounds.first_byte

    def _timeout(self) -> asyncio.Timeout:
        if self.answering:
            return asyncio.timeout(self.bounds.idle)
        return asyncio.timeout_at(self._deadline)

    @contextlib.asynccontextmanager
    async def opening(self) -> AsyncIterator[None]:
        """Around the call that sends the request and waits for its headers."""
        try:
            async with asyncio.timeout_at(self._deadline):
                yield
        except TimeoutError:
            self.expired = True
            raise

    async def next_event(self, events: AsyncIterator[T]) -> T | None:
        """The next event of `events` (None at its end), within the deadline."""
        try:
            async with self._timeout():
                event = await anext(events)
        except StopAsyncIteration:
            return None
        except TimeoutError:
            self.expired = True
            raise
        self.answering = True
        return event

    def error(self) -> StreamError:
        if self.answering:
            return StreamError(
                message=f"{self.server} stopped answering for {_seconds(self.bounds.idle)}; "
                "the answer ends here.",
                retryable=True,
                error_type="idle_timeout",
            )
        return StreamError(
            message=f"{self.server} did not start answering within "
            f"{_seconds(self.bounds.first_byte)}; nothing more will come.",
            retryable=True,
            error_type="first_byte_timeout",
        )


def _seconds(value: float) -> str:
    rounded = f"{value:g}"
    return "1 second" if rounded == "1" else f"{rounded} seconds"
