"""`python -m config.serve` and its roles (issue 26): one machine runs everything; `web`
and `worker` run apart, never migrate, refuse an unmigrated database, and refuse to scale
out without a shared secret key and Redis. Real processes, as a deployment starts them."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from django.db import connection

from tests.processes import ROOT, free_port, process_env, wait_for_port

SERVE = [sys.executable, "-m", "config.serve"]


def _serve(role: str | None, env: dict[str, str], timeout: float = 120) -> tuple[int, str]:
    result = subprocess.run(
        [*SERVE, *([role] if role else [])],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return result.returncode, result.stderr


@pytest.fixture
def var_dir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="cairn-serve-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.parametrize("role", ["web", "worker"])
def test_a_role_refuses_to_start_without_secret_key_and_redis(role: str, var_dir: Path) -> None:
    env = process_env(
        DJANGO_SETTINGS_MODULE="config.settings.local",
        CAIRN_VAR_DIR=str(var_dir),
        SECRET_KEY=None,
        REDIS_URL=None,
    )

    code, said = _serve(role, env)

    assert code == 1
    assert "Cairn cannot start: SECRET_KEY is not set: each machine would generate its own" in said
    assert "Cairn cannot start: REDIS_URL is not set: without Redis, events and rate" in said
    assert "Traceback" not in said
    # Refused before anything was done: no database was started or migrated.
    assert not (var_dir / "pgdata").exists()


def test_several_web_processes_on_one_machine_need_redis_too(var_dir: Path) -> None:
    env = process_env(
        DJANGO_SETTINGS_MODULE="config.settings.local",
        CAIRN_VAR_DIR=str(var_dir),
        SECRET_KEY="a-real-secret-shared-by-every-machine",
        REDIS_URL=None,
        WEB_CONCURRENCY="2",
    )

    code, said = _serve(None, env)

    assert code == 1
    assert "REDIS_URL is not set" in said
    assert "SECRET_KEY" not in said


@pytest.fixture
def empty_database(db: None) -> Iterator[str]:
    """A database on the test server that nothing has migrated."""
    name = f"cairn_unmigrated_{uuid.uuid4().hex[:8]}"
    yield name
    params = connection.get_connection_params()
    with psycopg.connect(
        dbname="postgres", host=params["host"], port=params["port"], user=params["user"]
    ) as admin:
        admin.autocommit = True
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.mark.parametrize("role", ["web", "worker"])
def test_a_role_refuses_an_unmigrated_database_and_does_not_migrate_it(
    role: str, empty_database: str, redis_url: str
) -> None:
    env = process_env(CAIRN_DB_NAME=empty_database, REDIS_URL=redis_url)

    code, said = _serve(role, env)

    assert code == 1
    assert "Cairn cannot start: the database lacks" in said
    assert "run `manage.py migrate` first." in said
    params = connection.get_connection_params()
    with psycopg.connect(
        dbname=empty_database, host=params["host"], port=params["port"], user=params["user"]
    ) as conn:
        tables = conn.execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"
        ).fetchone()
    assert tables == (0,)


@pytest.mark.parametrize("role", ["web", "worker"])
def test_a_role_says_when_the_database_is_unreachable(role: str, redis_url: str) -> None:
    env = process_env(DATABASE_URL=f"postgres://cairn:secret@127.0.0.1:{free_port()}/cairn")
    env["REDIS_URL"] = redis_url

    code, said = _serve(role, env)

    assert code == 1
    assert "Cairn cannot start: the database cannot be reached (" in said
    assert "check DATABASE_URL." in said
    assert "Traceback" not in said


@contextlib.contextmanager
def _serving(role: str, env: dict[str, str]) -> Iterator[subprocess.Popen[str]]:
    process = subprocess.Popen(
        [*SERVE, role],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(2)  # SIGINT, as Ctrl-C or `docker stop`'s SIGTERM
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, 9)
                process.wait(timeout=10)


def test_serve_web_serves_the_migrated_database(transactional_db: None, redis_url: str) -> None:
    port = free_port()
    env = process_env(REDIS_URL=redis_url, PORT=str(port), CAIRN_WARM_UP="0")

    with _serving("web", env) as process:
        wait_for_port(port, timeout=90)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=30) as answer:
            body = json.loads(answer.read())
        assert body["status"] == "ok"
        assert process.poll() is None
    assert process.returncode == 0
