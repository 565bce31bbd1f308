"""Real processes for the tests that need them (the scale-out and the fault tests): the
site's web server and django-q2 workers, started as `make run` starts them but on this
test's database."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"nothing listens on {port}")


def process_env(**overrides: str | None) -> dict[str, str]:
    """The environment of a process sharing this test's database, so it sees what a
    ``transactional_db`` test commits, and its files (the test's temporary ``MEDIA_ROOT``,
    tests/conftest.py); its jobs go to the real queue (``CAIRN_Q_SYNC``). An override of
    None removes the variable."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        # The test database's own name ("test_…"): the process is not a test run and
        # would otherwise use the development database.
        "CAIRN_DB_NAME": str(connection.settings_dict["NAME"]),
        "CAIRN_Q_SYNC": "false",
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
    }
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    for name, value in overrides.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def start_qcluster(env: dict[str, str], log: Path | None = None) -> subprocess.Popen[bytes]:
    """``manage.py qcluster`` in a session of its own, so ``kill_group`` reaches its
    forked workers too; its output goes to ``log`` (else nowhere)."""
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


def kill_group(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL the process and every process of its session (started with
    ``start_new_session``), as the OOM killer or a pulled plug would, and reap it."""
    with contextlib.suppress(ProcessLookupError):  # already gone
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=10)


@contextlib.contextmanager
def running_site(
    *, lifespan: bool = True, log: Path | None = None, **overrides: str | None
) -> Iterator[int]:
    """The site served by uvicorn as `make run` serves it (websockets, the ASGI lifespan
    that the MCP server needs), on this test's database; yields its port. ``overrides``
    change its environment (``REDIS_URL``, ``DATABASE_URL`` …); ``log`` keeps its output."""
    port = free_port()
    output = log.open("ab") if log is not None else subprocess.DEVNULL
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "config.asgi:application",
            "--port",
            str(port),
            "--ws",
            "websockets",
            "--lifespan",
            "on" if lifespan else "off",
        ],
        cwd=ROOT,
        env=process_env(**{"CAIRN_WARM_UP": "0", **overrides}),
        stdout=output,
        stderr=subprocess.STDOUT if log is not None else subprocess.DEVNULL,
    )
    try:
        wait_for_port(port)
        yield port
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        if log is not None:
            output.close()  # type: ignore[union-attr]


# The application_name (libpq reads PGAPPNAME) of the shared site's database sessions
# (tests/conftest.py, ``site_port``), so that a test can end those alone.
SHARED_SITE_APP_NAME = "cairn-test-shared-site"


def start_redis(port: int) -> subprocess.Popen[bytes]:
    """A ``redis-server`` of the test's own on ``port`` (never the shared one at 6379),
    without persistence: a restart forgets everything, as a worst case does."""
    server = subprocess.Popen(
        [
            shutil.which("redis-server") or "redis-server",
            *("--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for_port(port, timeout=10)
    return server


class RedisServer:
    """A Redis of this test's own on a free port (never the shared one: a test may stop
    it), keeping nothing on disk, that the test can stop and start again on its port."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = start_redis(self.port)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """A ``RedisServer`` started for the block; yields its URL."""
    server = RedisServer()
    server.start()
    try:
        yield server.url
    finally:
        server.stop()
