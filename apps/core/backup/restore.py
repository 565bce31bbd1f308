"""``backup_restore``: check the whole archive, restore, then count and hash again."""

from __future__ import annotations

import json
import shutil
import tarfile
import tempfile
from pathlib import Path, PurePosixPath
from typing import Any

from django.core.files.base import File
from django.core.files.storage import Storage, default_storage
from django.db import connections

from .manifest import (
    CHUNK,
    DUMP,
    FORMAT,
    MANIFEST,
    MEDIA_PREFIX,
    BackupError,
    Manifest,
    RestoreReport,
    file_digest,
    safe_name,
    stream_digest,
)
from .postgres import (
    code_migrations,
    connect,
    conninfo,
    libpq_params,
    migrations_to_apply,
    pg_tool,
    run_tool,
    server_major_version,
    table_rows,
    tool_env,
)


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
                    dump_digest = file_digest(dump_path)
                elif member.name.startswith(MEDIA_PREFIX):
                    name = safe_name(member.name.removeprefix(MEDIA_PREFIX))
                    file_digests[name] = stream_digest(handle)
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
        if file_digests.pop(safe_name(item.name), None) != (item.sha256, item.size):
            raise BackupError(f"{archive}: the file {item.name} is missing or damaged.")
    if file_digests:
        raise BackupError(
            f"{archive} holds files its manifest does not list: {sorted(file_digests)[:3]}."
        )
    return manifest, dump_path


def _refuse_newer_schema(manifest: Manifest) -> None:
    known = code_migrations()
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
    params = libpq_params(alias)
    with tempfile.TemporaryDirectory() as work:
        manifest, dump_path = _verify_archive(archive, Path(work))
        _refuse_newer_schema(manifest)
        database = params.get("dbname", "")
        with connect(params) as conn:
            tables = conn.execute(
                "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"
            ).fetchone()
            server_major = server_major_version(conn)
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
            with connect(params) as conn:
                # The schema Django and the extensions live in, emptied in one statement.
                conn.execute("DROP SCHEMA public CASCADE")
                conn.execute("CREATE SCHEMA public")
        run_tool(
            [
                pg_tool("pg_restore", server_major),
                "--no-owner",  # the restoring role owns what it creates
                "--no-privileges",
                "--no-comments",  # COMMENT ON EXTENSION needs its owner; nothing else has one
                "--single-transaction",
                "--exit-on-error",
                f"--dbname={conninfo(params)}",
                str(dump_path),
            ],
            tool_env(params),
            "pg_restore",
        )
    connections[alias].close()  # it may have cached what the database held before
    report = RestoreReport(manifest=manifest, database=database)
    _restore_files(archive, manifest, storage, replace=force)
    _verify_restored(report, params, storage)
    report.migrations_to_apply = migrations_to_apply(alias)
    return report


def _restore_files(archive: Path, manifest: Manifest, storage: Storage, *, replace: bool) -> None:
    listed = {item.name for item in manifest.files}
    with _open_archive(archive) as tar:
        for member in tar:
            if not member.isfile() or not member.name.startswith(MEDIA_PREFIX):
                continue
            name = safe_name(member.name.removeprefix(MEDIA_PREFIX))
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
    with connect(params) as conn:
        report.tables = table_rows(conn)
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
            found = stream_digest(handle)
        if found != (item.sha256, item.size):
            raise BackupError(f"The restored file {item.name} does not match the backup.")
        report.files.append(item)
