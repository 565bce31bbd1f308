"""``manage.py restore``: bring back a ``manage.py backup`` archive (apps/core/backup.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.core.backup import BackupError, backup_restore, first_line


class Command(BaseCommand):
    help = (
        "Restore a backup into an empty database and media storage, then check every table's "
        "rows and every file's hash against the backup's manifest."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("archive", type=Path, help="a file written by manage.py backup")
        parser.add_argument(
            "--force",
            action="store_true",
            help="replace what the database and the storage already hold",
        )

    def handle(self, *args: Any, archive: Path, force: bool, **options: Any) -> None:
        try:
            report = backup_restore(archive=archive, force=force)
        except BackupError as error:
            raise CommandError(str(error)) from error
        except psycopg.Error as error:
            raise CommandError(f"The database refused the restore: {first_line(error)}") from error
        except OSError as error:
            raise CommandError(f"The restore could not go on: {error}") from error
        manifest = report.manifest
        self.stdout.write(
            f"Restored the database {report.database}: {len(report.tables)} tables, "
            f"{sum(report.tables.values()):,} rows, each table as many as backed up."
        )
        self.stdout.write(
            f"Restored {len(report.files)} files ({manifest.file_bytes:,} bytes), each matching "
            "its SHA-256."
        )
        self.stdout.write(
            f"The backup was made {manifest.created_at} by Cairn {manifest.cairn_version}."
        )
        if manifest.files_missing:
            self.stderr.write(
                f"{len(manifest.files_missing)} file(s) the database names were already missing "
                f"when the backup was taken, and are not restored: {manifest.files_missing[0]} …"
            )
        if report.migrations_to_apply:
            self.stdout.write(
                f"This Cairn has {report.migrations_to_apply} migration(s) the backup predates: "
                "run `manage.py migrate` before serving."
            )
