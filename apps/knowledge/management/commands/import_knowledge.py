"""``manage.py import_knowledge --user EMAIL FILE``: load an exported document into an
empty account (``-`` reads standard input)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.knowledge.portability import knowledge_import

from .export_knowledge import user_by_email


def _describe(error: ValidationError) -> str:
    if not hasattr(error, "error_dict"):
        return "\n".join(error.messages)
    return "\n".join(
        f"  {path}: {message}"
        for path, messages in error.message_dict.items()
        for message in messages
    )


class Command(BaseCommand):
    help = "Import a knowledge document (from export_knowledge) into a user's empty account."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", metavar="FILE", help="The JSON document; '-' for stdin.")
        parser.add_argument(
            "--user",
            required=True,
            metavar="EMAIL",
            help="The e-mail address of the user to import into.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        user = user_by_email(options["user"])
        try:
            text = (
                sys.stdin.read()
                if options["file"] == "-"
                else Path(options["file"]).read_text(encoding="utf-8")
            )
            document = json.loads(text)
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise CommandError(f"Cannot read {options['file']}: {error}") from error
        try:
            report = knowledge_import(user=user, document=document)
        except ValidationError as error:
            raise CommandError(f"Nothing was imported:\n{_describe(error)}") from error
        self.stdout.write(
            self.style.SUCCESS(
                f"Imported {report.claims} claims, {report.contexts} contexts, {report.tags} tags "
                f"and {report.entities} entities into {user.email}; the next claim is "
                f"#{report.last_claim_number + 1}."
            )
        )
