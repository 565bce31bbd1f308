"""Run Cairn: everything on one machine, or one role of several.

    python -m config.serve          # one machine (`make run`): migrate, collect static files,
                                    # probe pgvector, then the site and its worker
    python -m config.serve web      # the site only (uvicorn), for a machine of several
    python -m config.serve worker   # the django-q2 worker only

``web`` and ``worker`` never migrate nor collect static files: many of them start at once,
and schema changes are a deliberate step (``manage.py migrate`` once per release). They
refuse to start on a database that is not migrated. With more than one process (a role,
or ``WEB_CONCURRENCY`` above 1) a generated per-machine secret key and in-process events
and rate limits would silently break, so ``SECRET_KEY`` and ``REDIS_URL`` are required.

This process holds a handle on the embedded database for the whole run, so the server
starts once and stops when the last of this process and its children exits.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time

import django

ROLES = ("all", "web", "worker")


def _web_concurrency() -> int:
    try:
        return max(1, int(os.environ.get("WEB_CONCURRENCY", "1") or "1"))
    except ValueError:
        return 1


def scale_out_refusals(role: str) -> list[str]:
    """Why this start would break once there is more than one process; empty when it is fine."""
    from django.conf import settings

    if role == "all" and _web_concurrency() == 1:
        return []
    refusals = []
    if getattr(settings, "CAIRN_SECRET_KEY_GENERATED", False):
        refusals.append(
            "SECRET_KEY is not set: each machine would generate its own key, and a session "
            "signed on one would be refused by the others."
        )
    if not settings.REDIS_URL:
        refusals.append(
            "REDIS_URL is not set: without Redis, events and rate limits stay inside each "
            "process, so a page would miss what another process or the worker does."
        )
    return refusals


def unapplied_migrations() -> list[str]:
    """The migrations the code has that the database has not applied ("app.name")."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    return [f"{migration.app_label}.{migration.name}" for migration, _ in plan]


def _prepare(role: str) -> str | None:
    """Make the database ready (one machine) or check it is (a role); return why not."""
    from django.core.management import call_command
    from django.db import DatabaseError, OperationalError

    from config.database_probe import DatabaseProblem, probe_database
    from config.embedded_db import EmbeddedDatabaseError

    try:
        if role == "all":
            call_command("migrate", interactive=False, verbosity=1)
            call_command("collectstatic", interactive=False, verbosity=0)
        else:
            # Before the probe: on an unmigrated database the advice is to migrate, not
            # to install the extensions migrate installs.
            missing = unapplied_migrations()
            if missing:
                shown = ", ".join(missing[:3]) + (" …" if len(missing) > 3 else "")
                return (
                    f"the database lacks {len(missing)} migration(s) of this version "
                    f"({shown}): run `manage.py migrate` first."
                )
        print(f"  Database: {probe_database()}", flush=True)
    except (DatabaseProblem, EmbeddedDatabaseError) as problem:
        return str(problem)
    except DatabaseError as error:
        first = (str(error).strip().splitlines() or [type(error).__name__])[0]
        if isinstance(error, OperationalError):
            return f"the database cannot be reached ({first}): check DATABASE_URL."
        return f"the database refused: {first}."
    return None


def web_command(host: str, port: str) -> list[str]:
    """Uvicorn serving the site; it trusts X-Forwarded-For only from FORWARDED_ALLOW_IPS.

    Uvicorn's own default trusts 127.0.0.1, so any process on the host could claim another
    address and slip past the per-address login lockout; with the setting empty no proxy
    header is read at all.
    """
    from django.conf import settings

    command = [
        sys.executable,
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
    trusted = ",".join(settings.FORWARDED_ALLOW_IPS)
    if trusted:
        command += ["--proxy-headers", "--forwarded-allow-ips", trusted]
    else:
        command += ["--no-proxy-headers"]
    # uvicorn reads WEB_CONCURRENCY itself for its number of worker processes.
    return command


def worker_command() -> list[str]:
    from django.conf import settings

    return [sys.executable, str(settings.BASE_DIR / "manage.py"), "qcluster"]


def _first_run_hint(host: str, port: str) -> None:
    from django.contrib.auth import get_user_model

    print(f"\n  Cairn is running at http://{host}:{port}/")
    if not get_user_model().objects.exists():
        print("  No users yet. Sign up at the page above, or create an administrator with:")
        print("      .venv/bin/python manage.py createsuperuser")
    print("  Press Ctrl-C to stop the site and the worker.\n", flush=True)


def _supervise(commands: list[list[str]]) -> int:
    """Run the children until one exits or we are told to stop; stop the others with it."""
    children = [subprocess.Popen(command) for command in commands]
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m config.serve", description=__doc__)
    parser.add_argument("role", nargs="?", default="all", choices=ROLES)
    role = parser.parse_args(argv).role
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    django.setup()
    # One sentence each, not a traceback: nothing is started that would fail or mislead.
    refusals = scale_out_refusals(role)
    if not refusals:
        problem = _prepare(role)
        refusals = [problem] if problem else []
    if refusals:
        for refusal in refusals:
            print(f"\n  Cairn cannot start: {refusal}", file=sys.stderr, flush=True)
        print(file=sys.stderr, flush=True)
        return 1
    host = os.environ.get("HOST", "127.0.0.1")
    port = os.environ.get("PORT", "8000")
    commands = {
        "all": [web_command(host, port), worker_command()],
        "web": [web_command(host, port)],
        "worker": [worker_command()],
    }[role]
    if role == "all":
        _first_run_hint(host, port)
    else:
        print(f"  Cairn {role} starting" + (f" on {host}:{port}" if role == "web" else ""))
    from django.db import connections

    connections.close_all()  # the children open their own
    return _supervise(commands)


if __name__ == "__main__":
    sys.exit(main())
