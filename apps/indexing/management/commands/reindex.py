"""``manage.py reindex [--model NAME]``: re-embed chunks and claims that the configured
embedding provider did not embed (after changing ``CAIRN_EMBEDDING_PROVIDER``).

``manage.py reindex --windows``: bring every chat turn's window (its speaker, day and
neighbouring turns, ranked by full-text search) up to date, for messages indexed before
windows existed; nothing is embedded again.

``manage.py reindex --documents``: cut every indexed file again into passages and embed
them (after the chunking changed: issue 19 cut passages to the model's window), through
the same service that indexes uploads and folders.

``manage.py reindex --mentions``: read again the names, speakers and relations of every
passage (for passages indexed before migration 0012, or after the rules of
``apps/indexing/mentions.py`` changed); nothing is embedded again.

``manage.py reindex --units``: build again the memory units (the statements) of every
chat turn said by a person (for turns indexed before migration 0014, or after the rules of
``apps/indexing/units.py`` changed). Re-embedding for a new model builds them again too:
they are embedded by the same model as the queries."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from apps.indexing.embeddings import get_embedding_provider
from apps.indexing.management.progress import ProgressBar
from apps.indexing.models import Chunk, Document, DocumentStatus
from apps.indexing.services import documents_index, message_windows_refresh
from apps.indexing.services.files import document_file_exists
from apps.indexing.services.mentions import REFRESH_BATCH, mentions_refresh
from apps.indexing.services.reembed import (
    embeddings_refresh,
    stale_count,
    vector_indexes_rebuild,
)
from apps.indexing.services.units import units_build

WINDOW_BATCH = 500
UNIT_BATCH = 500
DOCUMENT_BATCH = 20
"""Documents per ``documents_index`` call: enough to fill the model's batches, few enough
that an interrupted run has finished most of what it started."""


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
        parser.add_argument(
            "--mentions",
            action="store_true",
            help="Read every passage's names, speakers and relations again; embeds nothing.",
        )
        parser.add_argument(
            "--units",
            action="store_true",
            help="Build every chat turn's memory units (its statements) again.",
        )
        parser.add_argument(
            "--documents",
            action="store_true",
            help="Cut every indexed file into passages again and embed them (after a "
            "chunking change).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["windows"]:
            self._windows(dry_run=options["dry_run"])
            return
        if options["documents"]:
            self._documents(dry_run=options["dry_run"])
            return
        if options["mentions"]:
            self._mentions(dry_run=options["dry_run"])
            return
        if options["units"]:
            self._units(dry_run=options["dry_run"])
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
        self.stdout.write("Rebuilding the vector indexes (search keeps working meanwhile)…")
        started = time.monotonic()
        vector_indexes_rebuild()
        self.stdout.write(f"Rebuilt the vector indexes in {time.monotonic() - started:.0f} s.")
        if done.chunks:
            self._units(dry_run=False)

    def _windows(self, *, dry_run: bool) -> None:
        message_ids = _indexed_message_ids()
        self.stdout.write(f"Chat messages with indexed passages: {len(message_ids)}.")
        if dry_run or not message_ids:
            return
        changed = self._in_batches(
            message_ids,
            WINDOW_BATCH,
            "windows ",
            lambda batch: message_windows_refresh(message_ids=batch),
        )
        self.stdout.write(f"Updated the windows of {changed} passages.")

    def _mentions(self, *, dry_run: bool) -> None:
        chunk_ids = list(Chunk.objects.order_by("pk").values_list("pk", flat=True))
        self.stdout.write(f"Passages to read names from: {len(chunk_ids)}.")
        if dry_run or not chunk_ids:
            return
        written = self._in_batches(
            chunk_ids, REFRESH_BATCH, "mentions ", lambda batch: mentions_refresh(chunk_ids=batch)
        )
        self.stdout.write(f"Stored {written} names, speakers and relations.")

    def _units(self, *, dry_run: bool) -> None:
        message_ids = _indexed_message_ids()
        self.stdout.write(f"Chat messages to build memory units of: {len(message_ids)}.")
        if dry_run or not message_ids:
            return
        written = self._in_batches(
            message_ids, UNIT_BATCH, "units ", lambda batch: units_build(message_ids=batch)
        )
        self.stdout.write(f"Stored {written} memory units.")

    def _in_batches(
        self, ids: list[Any], size: int, label: str, work: Callable[[list[Any]], int]
    ) -> int:
        """``work`` on ``ids``, ``size`` at a time, with a progress bar; the sum of what
        it returned."""
        bar = ProgressBar(total=len(ids), label=label, stream=self.stderr)
        done = 0
        for first in range(0, len(ids), size):
            batch = ids[first : first + size]
            done += work(batch)
            bar.advance(len(batch))
        bar.finish()
        return done

    def _documents(self, *, dry_run: bool) -> None:
        # Only indexed files: pending ones are on their way, and skipped or failed ones
        # have no passages to cut again (a source refresh retries them). A file that
        # cannot be reached now (a folder on an unmounted drive) keeps its passages:
        # indexing it would record it as failed and delete them.
        documents = (
            Document.objects.filter(status=DocumentStatus.INDEXED)
            .select_related("source")
            .order_by("pk")
        )
        document_ids, unreachable = [], 0
        for document in documents.iterator():
            if _reachable(document):
                document_ids.append(document.pk)
            else:
                unreachable += 1
        self.stdout.write(
            f"Indexed files to cut into passages again: {len(document_ids)}"
            + (f" ({unreachable} not reachable now, left as they are)." if unreachable else ".")
        )
        if dry_run or not document_ids:
            return
        provider = get_embedding_provider()
        bar = ProgressBar(total=len(document_ids), label="passages ", stream=self.stderr)
        indexed = failed = passages = 0
        for first in range(0, len(document_ids), DOCUMENT_BATCH):
            # ``force``: the content is unchanged, so the service would otherwise keep
            # the passages cut the old way.
            run = documents_index(
                document_ids=document_ids[first : first + DOCUMENT_BATCH],
                force=True,
                provider=provider,
                on_document_done=lambda document: bar.advance(1, current=document.path),
            )
            indexed += len(run.indexed)
            failed += len(run.failed) + len(run.skipped)
            passages += run.chunks_written
        bar.finish()
        self.stdout.write(
            f"Cut {indexed} files into {passages} passages; {failed} could not be read again."
        )


def _reachable(document: Document) -> bool:
    return document_file_exists(document)


def _indexed_message_ids() -> list[Any]:
    """The chat messages that have passages, in order."""
    return list(
        Chunk.objects.filter(message__isnull=False)
        .order_by("message_id")
        .values_list("message_id", flat=True)
        .distinct()
    )
