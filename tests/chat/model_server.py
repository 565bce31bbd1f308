"""A real HTTP server on a free local port that plays a model server gone quiet.

It reads each request whole, counts it, then either says nothing at all or sends the
headers of a streamed answer and its first events, and then nothing more; in both cases
it waits for the client to hang up and counts that too. The SDKs reach it through their
real HTTP stack: connecting, sending, waiting and closing are all genuine.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any


def anthropic_first_events(text: str) -> bytes:
    """Claude's opening events: `message_start`, a text block and its first delta."""
    message = {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 5, "output_tokens": 1},
    }
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": message},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
    ]
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def openai_first_events(text: str) -> bytes:
    chunk = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "llama-test",
        "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}],
    }
    return f"data: {json.dumps(chunk)}\n\n".encode()


class QuietModelServer:
    """`first_events=None`: never answers; bytes: sends them as a stream, then stalls."""

    def __init__(self, first_events: bytes | None = None) -> None:
        self.first_events = first_events
        self.requests: list[dict[str, Any]] = []
        self.hung_up = 0  # connections the client closed
        self._changed = asyncio.Condition()
        self._server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def __aenter__(self) -> QuietModelServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    async def wait_until(self, *, requests: int = 0, hung_up: int = 0) -> None:
        """Until at least so many requests came and so many connections were closed."""
        async with self._changed:
            await self._changed.wait_for(
                lambda: len(self.requests) >= requests and self.hung_up >= hung_up
            )

    async def _note(self, change: Any) -> None:
        async with self._changed:
            change()
            self._changed.notify_all()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            headers = {
                name.strip().lower(): value.strip()
                for name, _, value in (line.partition(":") for line in lines[1:] if line)
            }
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            await self._note(lambda: self.requests.append(json.loads(body or b"{}")))
            if self.first_events is not None:
                writer.write(
                    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                    b"transfer-encoding: chunked\r\n\r\n"
                )
                data = self.first_events
                writer.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                await writer.drain()
            while await reader.read(4096):  # silence, until the client hangs up
                pass
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()
        await self._note(lambda: setattr(self, "hung_up", self.hung_up + 1))
