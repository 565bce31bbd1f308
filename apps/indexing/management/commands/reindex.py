"""``manage.py reindex [--model NAME]``: re-embed chunks and claims that the configured
embedding provider did not embed (after changing ``CAIRN_EMBEDDING_PROVIDER``).

``manage.py reindex --windows``: bring every chat turn's window (its speaker, day and
neighbouring turns, ranked by full-text search) up to date, for messages indexed before
windows existed; nothing is embedded again."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from apps.indexing.embeddings import get_embedding_provider
from apps.indexing.management.progress import ProgressBar
from apps.indexing.models import Chunk
from apps.indexing.services import message_windows_refresh
from apps.indexing.services.reembed import embeddings_refresh, stale_count

WINDOW_BATCH = 500


class Command(BaseCommand):
    help = "Re-embed every chunk and claim whose embedding model is not the configured one."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--model",
            default=None,
            help="Only rows embedded by this model (as stored on the rows).",
        )
        parser.add_argument("--batch-size", type=int, default=256)
        parser.add_argument("--dry-run", action="store_true", help="Only count the rows.")
        parser.add_argument(
            "--windows",
            action="store_true",
            help="Rebuild chat turns' windows (neighbouring turns) instead; embeds nothing.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["windows"]:
            self._windows(dry_run=options["dry_run"])
            return
        provider = get_embedding_provider()
        stale = stale_count(provider=provider, model=options["model"])
        self.stdout.write(
            f"Embedding model: {provider.name}. To re-embed: {stale.chunks} "
            f"chunks, {stale.claims} claims."
        )
        if options["dry_run"] or not (stale.chunks or stale.claims):
            return
        bar = ProgressBar(
            total=stale.chunks + stale.claims, label="re-embedding ", stream=self.stderr
        )
        done = embeddings_refresh(
            provider=provider,
            model=options["model"],
            batch_size=max(1, options["batch_size"]),
            on_batch=lambda count: bar.advance(count),
        )
        bar.finish()
        self.stdout.write(f"Re-embedded {done.chunks} chunks and {done.claims} claims.")

    def _windows(self, *, dry_run: bool) -> None:
        message_ids = list(
            Chunk.objects.filter(message__isnull=False)
            .order_by("message_id")
            .values_list("message_id", flat=True)
            .distinct()
        )
        self.stdout.write(f"Chat messages with indexed passages: {len(message_ids)}.")
        if dry_run or not message_ids:
            return
        bar = ProgressBar(total=len(message_ids), label="windows ", stream=self.stderr)
        changed = 0
        for first in range(0, len(message_ids), WINDOW_BATCH):
            batch = message_ids[first : first + WINDOW_BATCH]
            changed += message_windows_refresh(message_ids=batch)
            bar.advance(len(batch))
        bar.finish()
        self.stdout.write(f"Updated the windows of {changed} passages.")
