"""`make run`: prepare the database, then serve the site and its worker until Ctrl-C.

This process holds a handle on the embedded database for the whole run, so the server
starts once and stops when the last of this process and its children exits.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import django


def _prepare() -> str | None:
    """Migrate, collect static files and probe the database; return why it cannot serve."""
    from django.core.management import call_command

    from config.database_probe import DatabaseProblem, probe_database
    from config.embedded_db import EmbeddedDatabaseError

    try:
        call_command("migrate", interactive=False, verbosity=1)
        call_command("collectstatic", interactive=False, verbosity=0)
        print(f"  Database: {probe_database()}", flush=True)
    except (DatabaseProblem, EmbeddedDatabaseError) as problem:
        return str(problem)
    return None


def _first_run_hint(host: str, port: str) -> None:
    from django.contrib.auth import get_user_model

    print(f"\n  Cairn is running at http://{host}:{port}/")
    if not get_user_model().objects.exists():
        print("  No users yet. Sign up at the page above, or create an administrator with:")
        print("      .venv/bin/python manage.py createsuperuser")
    print("  Press Ctrl-C to stop the site and the worker.\n", flush=True)


def main() -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    django.setup()
    host = os.environ.get("HOST", "127.0.0.1")
    port = os.environ.get("PORT", "8000")
    problem = _prepare()
    if problem is not None:
        # One sentence, not a traceback: the server is not started on a database that fails.
        print(f"\n  Cairn cannot start: {problem}\n", file=sys.stderr, flush=True)
        return 1
    python = sys.executable
    children = [
        subprocess.Popen(
            [
                python,
                "-m",
                "uvicorn",
                "config.asgi:application",
                "--host",
                host,
                "--port",
                port,
                "--ws",
                "websockets",
                "--lifespan",
                "on",
            ]
        ),
        subprocess.Popen([python, "manage.py", "qcluster"]),
    ]
    _first_run_hint(host, port)

    stopping = False

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    try:
        while not stopping and all(child.poll() is None for child in children):
            time.sleep(0.3)
    finally:
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGINT)
        deadline = time.monotonic() + 15
        for child in children:
            try:
                child.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()
    failed = [child for child in children if child.returncode not in (0, -2, None)]
    return 1 if failed and not stopping else 0


if __name__ == "__main__":
    sys.exit(main())
