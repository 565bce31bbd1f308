"""``manage.py import_chats EXPORT --user EMAIL``: a ChatGPT or Claude export, imported now.

The same work as the Import page, run in this process (useful for exports larger than the
upload limit): stored, then indexed, with the counts printed at the end.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.accounts.selectors import user_by_email
from apps.chat.exports.store import chat_import_create, chat_import_group, chat_import_settle
from apps.chat.models import ChatImport
from apps.core.work import work_group_state, work_run_due
from apps.projects.selectors import project_get
from apps.projects.services import project_ensure_personal


class Command(BaseCommand):
    help = "Import a ChatGPT or Claude data export (zip or conversations.json) for a user."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("export", type=Path)
        parser.add_argument("--user", required=True, help="The account's e-mail address.")
        parser.add_argument("--project", help="A project id; the user's Personal one if left out.")
        parser.add_argument(
            "--extract-claims", action="store_true", help="Suggest claims, pending review."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        user = user_by_email(email=options["user"])
        if user is None:
            raise CommandError(f"No account with the e-mail address {options['user']}.")
        project = (
            project_get(user=user, project_id=options["project"])
            if options["project"]
            else project_ensure_personal(user=user)
        )
        path: Path = options["export"]
        if not path.is_file():
            raise CommandError(f"{path} is not a file.")
        upload = SimpleUploadedFile(path.name, path.read_bytes())
        try:
            chat_import = chat_import_create(
                user=user,
                project=project,
                upload=upload,
                extract_claims=options["extract_claims"],
            )
        except ValidationError as error:
            raise CommandError("; ".join(error.messages)) from error
        # This process works on the import's own work until none is owed (a running worker
        # may take some of it meanwhile), then reads the outcome from the ledger.
        group = chat_import_group(chat_import.pk)
        while work_group_state(group=group).open:
            if not work_run_due(group=group).startswith("0 "):
                continue
            time.sleep(0.5)  # the rest is held by a worker: wait for it
        chat_import = chat_import_settle(chat_import_id=chat_import.pk) or chat_import
        if chat_import.status == ChatImport.Status.FAILED:
            raise CommandError(chat_import.error)
        self.stdout.write(
            f"{chat_import.conversations_done} conversations ({chat_import.conversations_created} "
            f"new), {chat_import.messages_stored} messages from {chat_import.source}: "
            f"{chat_import.get_status_display().lower()}."
        )
