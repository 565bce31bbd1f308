"""``manage.py export_knowledge --user EMAIL [--output FILE]``: one user's knowledge as JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.accounts.models import User
from apps.knowledge.portability import knowledge_export


def user_by_email(email: str) -> User:
    user = User.objects.filter(email__iexact=email.strip()).first()
    if user is None:
        raise CommandError(f"No user has the e-mail address {email!r}.")
    return user


class Command(BaseCommand):
    help = "Export a user's claims, contexts, tags and entities as one JSON document."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--user",
            required=True,
            metavar="EMAIL",
            help="The e-mail address of the user whose knowledge to export.",
        )
        parser.add_argument(
            "--output", metavar="FILE", help="Write the document here (default: standard output)."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        document = knowledge_export(user=user_by_email(options["user"]))
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        if not options["output"]:
            self.stdout.write(text, ending="")
            return
        Path(options["output"]).write_text(text, encoding="utf-8")
        self.stderr.write(
            f"Exported {len(document['claims'])} claims, "
            f"{len(document['contexts'])} contexts, {len(document['tags'])} "
            f"tags and {len(document['entities'])} entities to "
            f"{options['output']}."
        )
