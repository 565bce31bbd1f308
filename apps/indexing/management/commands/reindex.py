"""``manage.py reindex [--model NAME]``: re-embed chunks and claims that the configured
embedding provider did not embed (after changing ``CAIRN_EMBEDDING_PROVIDER``)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from apps.indexing.embeddings import get_embedding_provider
from apps.indexing.management.progress import ProgressBar
from apps.indexing.services.reembed import embeddings_refresh, stale_count


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

    def handle(self, *args: Any, **options: Any) -> None:
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
