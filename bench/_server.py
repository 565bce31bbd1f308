"""A real uvicorn server on 127.0.0.1 for the load benchmarks, started as `make run`'s is."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_uvicorn(application: str, port: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """Start ``application`` on ``port`` and return once it accepts connections."""
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            application,
            "--port",
            str(port),
            "--log-level",
            "warning",
            "--lifespan",
            "off",
            "--ws",
            "websockets",
        ],
        cwd=ROOT,
        env=env,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return server
        except OSError:
            time.sleep(0.2)
    server.terminate()
    raise RuntimeError(f"uvicorn did not start on port {port}")
