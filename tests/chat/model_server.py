"""Real HTTP servers on free local ports that play model servers: ``QuietModelServer``
a server gone quiet, ``OpenAIServer`` (below) one that answers the OpenAI protocol.

The quiet one reads each request whole, counts it, then either says nothing at all or sends the
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


class OpenAIServer:
    """A real HTTP server on a free local port speaking the OpenAI protocol, in its own
    thread, so synchronous code (the connections page's test), the SDK's async client
    and a browser test can all reach it: ``GET /v1/models`` lists ``models``; ``POST
    /v1/chat/completions`` streams ``reply`` word by word as server-sent events, naming
    the model it was asked for. With ``api_key`` set, any other key gets a 401 as
    OpenAI's own API answers it. ``requests`` records (path, model) of each request.
    """

    def __init__(
        self,
        *,
        models: list[str] | None = None,
        reply: str = "Hello from the local model.",
        api_key: str | None = None,
    ) -> None:
        self.models = ["llama-test", "mistral-small"] if models is None else models
        self.reply = reply
        self.api_key = api_key
        self.requests: list[tuple[str, str]] = []
        self._httpd: Any = None
        self._thread: Any = None

    @property
    def url(self) -> str:
        """The base URL a client is given: ``http://127.0.0.1:<port>/v1``."""
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> OpenAIServer:
        import threading
        from http.server import ThreadingHTTPServer

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _openai_handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=10)

    def chunks(self, model: str) -> list[dict[str, Any]]:
        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {
                "id": "chatcmpl-local",
                "object": "chat.completion.chunk",
                "created": 1700000000,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }

        words = self.reply.split(" ")
        return [
            chunk({"role": "assistant", "content": ""}),
            *(chunk({"content": word if i == 0 else f" {word}"}) for i, word in enumerate(words)),
            chunk({}, "stop"),
            {
                **chunk({}),
                "choices": [],
                "usage": {"prompt_tokens": 12, "completion_tokens": len(words)},
            },
        ]


def _openai_handler(server: OpenAIServer) -> Any:
    from http.server import BaseHTTPRequestHandler

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet test output
            pass

        def _send_json(self, status: int, payload: dict[str, Any]) -> None:
            body = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _authorised(self) -> bool:
            if server.api_key is None:
                return True
            if self.headers.get("authorization") == f"Bearer {server.api_key}":
                return True
            self._send_json(
                401,
                {
                    "error": {
                        "message": "Incorrect API key provided.",
                        "type": "invalid_request_error",
                        "code": "invalid_api_key",
                    }
                },
            )
            return False

        def do_GET(self) -> None:
            server.requests.append((self.path, ""))
            if not self._authorised():
                return
            if self.path.rstrip("/") != "/v1/models":
                self._send_json(404, {"error": {"message": "Not found", "type": "not_found"}})
                return
            data = [
                {"id": model, "object": "model", "created": 1700000000, "owned_by": "local"}
                for model in server.models
            ]
            self._send_json(200, {"object": "list", "data": data})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))))
            model = str(body.get("model", ""))
            server.requests.append((self.path, model))
            if not self._authorised():
                return
            if self.path != "/v1/chat/completions" or model not in server.models:
                self._send_json(
                    404, {"error": {"message": f"model '{model}' not found", "type": "not_found"}}
                )
                return
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            events = [f"data: {json.dumps(chunk)}\n\n" for chunk in server.chunks(model)]
            for event in [*events, "data: [DONE]\n\n"]:
                data = event.encode()
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

    return Handler
