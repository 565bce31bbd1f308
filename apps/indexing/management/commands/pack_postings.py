"""``manage.py pack_postings [--user EMAIL] [--all]``: pack BM25 postings now, in this
process, with a progress bar. The worker packs an account once enough of its chunks have
changed, and the upgrade that brought packing packed the accounts already large; this is
for packing at once (after a bulk load done behind the worker's back, say)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.accounts.models import User
from apps.indexing.management.progress import ProgressBar
from apps.indexing.models import LexicalCollection
from apps.indexing.services.postings import postings_pack, postings_pack_due


class Command(BaseCommand):
    help = "Pack users' BM25 postings (those due, or every one with --all)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", help="Only this user (e-mail address).")
        parser.add_argument(
            "--all", action="store_true", help="Pack every user, due or not (default: due)."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["user"]:
            user = User.objects.filter(email__iexact=options["user"]).first()
            if user is None:
                raise CommandError(f"No user with the e-mail address {options['user']}.")
            user_ids = [user.pk]
        else:
            user_ids = sorted(set(LexicalCollection.objects.values_list("user_id", flat=True)))
        wanted = [pk for pk in user_ids if options["all"] or postings_pack_due(user_id=pk)]
        bar = ProgressBar(label="packing ", stream=self.stderr)
        bar.start(len(wanted))
        packed = postings = 0
        for user_id in wanted:
            result = postings_pack(user_id=user_id)
            if result is not None:
                packed += 1
                postings += result.postings
            bar.advance(current=f"user {user_id}")
        bar.finish()
        skipped = len(wanted) - packed
        self.stdout.write(
            f"Packed {postings:,} postings of {packed} user(s)"
            + (f"; {skipped} were being packed by the worker." if skipped else ".")
        )
