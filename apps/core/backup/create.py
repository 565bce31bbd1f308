"""``backup_create``: the snapshot, the dump, the files, the manifest, in one archive."""

from __future__ import annotations

import contextlib
import io
import json
import os
import tarfile
import tempfile
from dataclasses import asdict
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

from django.core.files.storage import Storage, default_storage

from .manifest import (
    DUMP,
    MANIFEST,
    MEDIA_PREFIX,
    BackedUpFile,
    BackupError,
    HashingReader,
    Manifest,
    file_digest,
    storage_files,
)
from .postgres import (
    connect,
    conninfo,
    libpq_params,
    migration_heads,
    pg_tool,
    referenced_files,
    run_tool,
    server_major_version,
    table_rows,
    tool_env,
)


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
    params = libpq_params(alias)
    with contextlib.ExitStack() as stack:
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(dir=output.parent)))
        dump_path = work / DUMP
        snapshot = stack.enter_context(connect(params))
        # Held open until pg_dump is done: the dump, the counts and the heads see one instant.
        snapshot.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        snapshot_row = snapshot.execute("SELECT pg_export_snapshot()").fetchone()
        assert snapshot_row is not None
        tables = table_rows(snapshot)
        referenced = referenced_files(snapshot)
        heads = migration_heads(snapshot)
        server_major = server_major_version(snapshot)
        run_tool(
            [
                pg_tool("pg_dump", server_major),
                "--format=custom",
                "--compress=0",  # the archive is compressed once, as a whole
                f"--snapshot={snapshot_row[0]}",
                f"--file={dump_path}",
                f"--dbname={conninfo(params)}",
            ],
            tool_env(params),
            "pg_dump",
        )
        snapshot.execute("COMMIT")
        dump_sha256, dump_size = file_digest(dump_path)
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
        reader = HashingReader(handle)
        tar.addfile(info, reader)  # type: ignore[arg-type]
    if reader.size != info.size:
        raise BackupError(f"The file {name} changed size while it was being backed up: run again.")
    return BackedUpFile(name=name, size=reader.size, sha256=reader.digest.hexdigest())


def _cairn_version() -> str:
    try:
        return metadata.version("cairn")
    except metadata.PackageNotFoundError:
        return "unknown"
