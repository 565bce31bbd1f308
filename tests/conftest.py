from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import Client, override_settings
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.accounts.services import api_token_create
from tests.factories import UserFactory
from tests.processes import ROOT, free_port, start_redis

# What a run may leave under var/ (``pytest_sessionfinish`` below): the embedded
# PostgreSQL's data directory holds the test database (kept between runs by --reuse-db), and
# `make cpu-guard`, run before the tests, caches its verdict there. Anything else a run
# writes under var/ is a file a test forgot to put in its temporary folder.
VAR = ROOT / "var"
VAR_KEPT = {"pgdata", "cpu_guard.json"}
_LEFT_BEFORE = pytest.StashKey[set[str]]()


@pytest.fixture
def user(db: None) -> User:
    return UserFactory(email="alice@example.com")


@pytest.fixture
def other_user(db: None) -> User:
    return UserFactory(email="bob@example.com")


@pytest.fixture
def page_client(client: Client, user: User) -> Client:
    """The test client signed in as ``user``, for the HTML pages (not ``browser``: that
    name is pytest-playwright's, and taking it gave plain tests a ``[chromium]`` id)."""
    client.force_login(user)
    return client


@pytest.fixture
def api_client() -> APIClient:
    return APIClient()


@pytest.fixture
def token_client(user: User) -> APIClient:
    """An API client authenticated with one of ``user``'s API tokens, as an integration is."""
    _, key = api_token_create(user=user, name="tests")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


@pytest.fixture
def redis_url() -> str:
    url = os.environ.get("REDIS_URL", "")
    if not url:
        pytest.skip(
            "REDIS_URL is not set: Redis-backed behaviour is tested in CI (.ci/run sets it)"
        )
    return url


@pytest.fixture
def own_redis(redis_url: str) -> Iterator[tuple[int, list[subprocess.Popen[bytes]]]]:
    """A Redis of this test's own on a free port, which it may stop and start again
    (``servers.append(start_redis(port))``): never the shared one. Yields the port and the
    servers started on it, all stopped at the end."""
    if not shutil.which("redis-server"):
        pytest.skip("redis-server is not installed")
    port = free_port()
    servers = [start_redis(port)]
    yield port, servers
    for server in servers:
        server.terminate()
        server.wait(timeout=10)


@pytest.fixture(scope="session")
def site_port(django_db_setup: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """The site served as `make run` serves it (``running_site``, tests/processes.py) with
    its default settings, on the test database, started once for every test that needs no
    setting of its own: each test's rows are its own (transactional tests are flushed
    between them), and the site only serves them. Its output is kept in the run's
    temporary folder (``site-*/site.log``) for the tracebacks of a failure."""
    from tests.processes import SHARED_SITE_APP_NAME, running_site

    log = tmp_path_factory.mktemp("site") / "site.log"
    with running_site(log=log, PGAPPNAME=SHARED_SITE_APP_NAME) as port:
        yield port


@pytest.fixture(scope="session")
def migrated_postgres(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The data directory of a standalone PostgreSQL (tests/standalone_pg.py) migrated by
    its ordinary role over TCP, as a deployment's release step does, then stopped: the
    drills that need one start a copy (``copy_of=``), and the run migrates once, not once
    per drill."""
    from tests.processes import process_env
    from tests.standalone_pg import StandalonePostgres

    server = StandalonePostgres(tmp_path_factory.mktemp("migrated-postgres"))
    server.start()
    try:
        server.migrate(process_env())
    finally:
        server.stop()
    yield server.data
    server.discard()


@pytest.fixture(scope="session", autouse=True)
def _close_pool_connections(django_db_setup: None) -> Iterator[None]:
    """Pool threads (apps/core/concurrency.py) keep their connections between tasks; they
    must be closed before pytest-django drops the test database."""
    yield
    from apps.core.concurrency import close_pool_connections

    close_pool_connections()


@pytest.fixture(scope="session", autouse=True)
def _session_media_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Files written outside a test's own ``media_root`` (module-scoped servers, processes
    started with the environment) land in this run's temporary folder, never in var/media."""
    root = tmp_path_factory.mktemp("media")
    with pytest.MonkeyPatch.context() as patch, override_settings(MEDIA_ROOT=str(root)):
        patch.setenv("MEDIA_ROOT", str(root))
        yield root


@pytest.fixture(autouse=True)
def media_root(settings: Any, tmp_path: Path) -> Path:
    """Each test's uploads, imports and stored files under its own temporary folder
    (``MEDIA_ROOT``, made by the first file stored); processes it starts get the same one
    (tests/processes.py)."""
    root = tmp_path / "media"
    settings.MEDIA_ROOT = str(root)
    return root


def _var_files() -> set[str]:
    if not VAR.is_dir():
        return set()
    return {
        f"var/{path.relative_to(VAR)}"
        for top in VAR.iterdir()
        if top.name not in VAR_KEPT
        for path in ([top] if not top.is_dir() else [top, *top.rglob("*")])
    }


def _git_changes() -> set[str]:
    """What `git status` lists (changed and untracked files), where the tree is a checkout."""
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    return set(status.stdout.splitlines()) if status.returncode == 0 else set()


def _left_behind() -> set[str]:
    return _var_files() | {f"git status: {line}" for line in _git_changes()}


def pytest_sessionstart(session: pytest.Session) -> None:
    session.stash[_LEFT_BEFORE] = _left_behind()


@pytest.hookimpl(trylast=True)  # after the session's fixtures are torn down
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Fail the run when it left a new file or folder under var/, or one `git status`
    sees: every test writes under its temporary folders."""
    left = sorted(_left_behind() - session.stash.get(_LEFT_BEFORE, set()))
    if not left:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_sep("=", "FAILED: the run left files behind", red=True)
        for line in [*left[:20], *(["…"] if len(left) > 20 else [])]:
            reporter.write_line(line)
        reporter.write_line("Tests write under their temporary folders (tmp_path, media_root).")
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
