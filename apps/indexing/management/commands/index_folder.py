"""``manage.py index_folder PATH --user EMAIL --project SLUG_OR_ID``: index a folder on this
server now, in this process, with a progress bar. The operator already has the server's
files, so the allowed-roots setting (which guards the web) does not apply here; symlinks
leaving the folder are still refused."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.accounts.models import User
from apps.indexing.management.progress import ProgressBar
from apps.indexing.models import Document, Source, SourceKind
from apps.indexing.services import (
    FolderUnavailable,
    ScanResult,
    source_create_folder,
    source_scan_run,
)
from apps.indexing.services.sources import folder_root_clean
from apps.projects.models import Project


class Command(BaseCommand):
    help = "Index a folder on this server into a user's project, showing progress."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="The folder to index.")
        parser.add_argument("--user", required=True, help="The owner's e-mail address.")
        parser.add_argument("--project", required=True, help="The project's slug or id.")
        parser.add_argument(
            "--include",
            action="append",
            default=[],
            metavar="GLOB",
            help="Only files matching (repeatable), e.g. '*.md'.",
        )
        parser.add_argument(
            "--exclude",
            action="append",
            default=[],
            metavar="GLOB",
            help="Leave out files matching (repeatable), e.g. 'drafts/'.",
        )
        parser.add_argument("--name", default="", help="The source's name.")

    def handle(self, *args: Any, **options: Any) -> None:
        user = User.objects.filter(email__iexact=options["user"]).first()
        if user is None:
            raise CommandError(f"No user with the e-mail address {options['user']}.")
        project = _project(user, options["project"])
        source = self._source(user, project, options)
        bar = ProgressBar(label=f"{source.name} ", stream=self.stderr)

        def scanned(result: ScanResult) -> None:
            self.stderr.write(
                f"{result.found} files: {result.new} new, {result.changed} changed, "
                f"{result.retried} retried, {result.unchanged} unchanged, "
                f"{result.removed} removed, {len(result.refused)} refused"
            )
            bar.start(len(result.to_index))

        def document_done(document: Document) -> None:
            bar.advance(current=document.path)

        try:
            result = source_scan_run(
                source_id=source.pk, inline=True, on_scanned=scanned, on_document_done=document_done
            )
        except FolderUnavailable as error:
            raise CommandError(str(error)) from error
        if result and result.to_index:
            bar.finish()
        counts = dict.fromkeys(("indexed", "skipped", "failed", "pending"), 0)
        for status in source.documents.values_list("status", flat=True):
            counts[status] = counts.get(status, 0) + 1
        self.stdout.write(
            ", ".join(f"{n} {status}" for status, n in counts.items() if n) or "No files."
        )
        failed = source.documents.filter(status="failed").values_list("path", "error")
        for path, reason in failed:
            self.stdout.write(f"  failed: {path}: {reason}")

    def _source(self, user: User, project: Project, options: dict[str, Any]) -> Source:
        try:
            root = folder_root_clean(options["path"], roots=None)
        except ValidationError as error:
            raise CommandError(" ".join(error.messages)) from error
        source = Source.objects.filter(
            project=project, kind=SourceKind.FOLDER, root_path=root
        ).first()
        if source is not None:
            return source
        try:
            return source_create_folder(
                user=user,
                project=project,
                root_path=root,
                name=options["name"],
                include_globs=options["include"],
                exclude_globs=options["exclude"],
                trusted=True,
            )
        except ValidationError as error:
            raise CommandError(" ".join(error.messages)) from error


def _project(user: User, key: str) -> Project:
    project = Project.objects.filter(owner=user, slug=key).first()
    if project is None:
        try:
            project = Project.objects.filter(owner=user, pk=key).first()
        except ValidationError:
            project = None
    if project is None:
        raise CommandError(f"{user.email} has no project {key!r} (give its slug or id).")
    return project
