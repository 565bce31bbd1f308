"""``manage.py backup``: the database and the uploaded files in one archive.

apps/core/backup.py does the work."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.core.backup import BackupError, backup_create, first_line


class Command(BaseCommand):
    help = (
        "Write one .tar.gz holding a consistent pg_dump of the database, every uploaded "
        "file (through the storage API) and a manifest to check them by."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--output",
            type=Path,
            default=None,
            help="the archive to write, or a directory to write it in "
            "(default: $CAIRN_VAR_DIR/backups/cairn-backup-<UTC time>.tar.gz)",
        )

    def handle(self, *args: Any, output: Path | None, **options: Any) -> None:
        target = output or Path(settings.VAR_DIR) / "backups"
        if output is None:
            target.mkdir(parents=True, exist_ok=True)
        try:
            written, manifest = backup_create(output=target)
        except BackupError as error:
            raise CommandError(str(error)) from error
        except psycopg.Error as error:
            raise CommandError(f"The database refused the backup: {first_line(error)}") from error
        except OSError as error:
            raise CommandError(f"The backup could not be written: {error}") from error
        self.stdout.write(
            f"Backed up the database {manifest.database} ({len(manifest.tables)} tables, "
            f"{manifest.rows:,} rows) and {len(manifest.files)} files "
            f"({manifest.file_bytes:,} bytes) to {written}."
        )
        if manifest.files_missing:
            shown = ", ".join(manifest.files_missing[:3])
            self.stderr.write(
                f"{len(manifest.files_missing)} file(s) named by the database were not in the "
                f"storage and are not in the backup: {shown}"
                + (" …" if len(manifest.files_missing) > 3 else "")
            )
