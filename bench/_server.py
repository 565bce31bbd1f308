"""A real uvicorn server on 127.0.0.1 and a real worker cluster for the benchmarks, started
as `make run` starts them."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_uvicorn(
    application: str, port: int, env: dict[str, str], log: Path | None = None
) -> subprocess.Popen[bytes]:
    """Start ``application`` on ``port`` and return once it accepts connections; its
    output goes to ``log`` (else to this process's)."""
    with contextlib.ExitStack() as stack:
        output = stack.enter_context(log.open("ab")) if log is not None else None
        server = _popen_uvicorn(application, port, env, output)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return server
        except OSError:
            time.sleep(0.2)
    server.terminate()
    raise RuntimeError(f"uvicorn did not start on port {port}")


def _popen_uvicorn(
    application: str, port: int, env: dict[str, str], output: IO[bytes] | None
) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
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
        stdout=output,
        stderr=subprocess.STDOUT if output is not None else None,
    )


def start_qcluster(env: dict[str, str], log: Path | None = None) -> subprocess.Popen[bytes]:
    """``manage.py qcluster`` with ``env``, in a session of its own, so that ``stop_group``
    reaches its forked workers too; its output goes to ``log`` (else nowhere)."""
    with contextlib.ExitStack() as stack:
        output = stack.enter_context(log.open("ab")) if log is not None else subprocess.DEVNULL
        return subprocess.Popen(
            [sys.executable, "manage.py", "qcluster"],
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def start_redis(directory: Path) -> tuple[subprocess.Popen[bytes], str]:
    """A Redis of the benchmark's own on a free port, keeping nothing on disk (never the
    shared one at 6379, which others use); returns it and its URL once it accepts
    connections. Stop it with ``process.terminate()``."""
    port = free_port()
    process = subprocess.Popen(
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(directory),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return process, f"redis://127.0.0.1:{port}/0"
        except OSError:
            time.sleep(0.1)
    process.terminate()
    raise RuntimeError(f"redis-server did not start on port {port}")


def stop_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the process and its whole session (what is still queued is dropped)."""
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
