"""A real uvicorn server on 127.0.0.1 and a real worker cluster for the benchmarks, started
as `make run` starts them."""

from __future__ import annotations

import os
import signal
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


def start_qcluster(env: dict[str, str]) -> subprocess.Popen[bytes]:
    """``manage.py qcluster`` with ``env``, in a session of its own, so that ``stop_group``
    reaches its forked workers too."""
    return subprocess.Popen(
        [sys.executable, "manage.py", "qcluster"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def stop_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the process and its whole session (what is still queued is dropped)."""
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
