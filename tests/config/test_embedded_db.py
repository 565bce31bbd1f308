"""The embedded server's life cycle, with real processes: start, re-attach, stop with the
last user, and recovery after a process (or the server itself) was killed with SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

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


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "pgdata"
    yield path
    postmaster = path / "postmaster.pid"
    if postmaster.exists():  # never leave a server behind, whatever the test did
        pid = int(postmaster.read_text().split()[0])
        if psutil.pid_exists(pid):
            os.kill(pid, signal.SIGTERM)
            _wait_until_gone(pid)


def test_start_reattach_and_stop_with_the_last_user(data_dir: Path) -> None:
    first = Holder(data_dir)
    second = Holder(data_dir)
    assert second.server_pid == first.server_pid  # re-attached, not a second server

    second.release()
    assert psutil.pid_exists(first.server_pid)  # the first user still holds it

    first.release()
    assert _wait_until_gone(first.server_pid)


def test_a_killed_owner_leaves_a_server_that_the_next_run_reattaches_and_stops(
    data_dir: Path,
) -> None:
    killed = Holder(data_dir)
    killed.kill()
    assert psutil.pid_exists(killed.server_pid)  # left behind by the SIGKILL

    next_run = Holder(data_dir)
    assert next_run.server_pid == killed.server_pid
    next_run.release()

    assert _wait_until_gone(killed.server_pid)


def test_a_killed_server_is_restarted_on_the_next_attach(data_dir: Path) -> None:
    holder = Holder(data_dir)
    os.kill(holder.server_pid, signal.SIGKILL)
    holder.kill()
    assert _wait_until_gone(holder.server_pid)

    restarted = Holder(data_dir)

    assert restarted.server_pid != holder.server_pid
    restarted.release()
    assert _wait_until_gone(restarted.server_pid)
