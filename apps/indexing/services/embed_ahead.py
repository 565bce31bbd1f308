"""Embedding one batch of chunks while the caller reads the next and writes the last.

Indexing a batch is three steps: read and chunk files (Python, one core), embed the chunks
(onnxruntime, every core, without the GIL) and write them (PostgreSQL, which maintains the
HNSW graph: one core of its own). Run one after another, the model is idle while
PostgreSQL inserts: with 200,000 chunks in the table that was a tenth of each batch
(bench/bench_indexing.py). Here the model works on a thread of its own, one batch at a
time, in order; reading and writing stay on the caller's thread, with its connection and
its transaction.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from types import TracebackType
from typing import Generic, TypeVar

from django.conf import settings

from ..embeddings import EmbeddingProvider, Matrix

Batch = TypeVar("Batch")


class EmbedAhead(Generic[Batch]):
    """Batches go in with ``submit`` and come back with their vectors from ``finished``,
    in the order they went in. Used as a context manager: on the way out, batches not yet
    started are dropped and the one being embedded is waited for, so no thread outlives
    the call. With ``CAIRN_BESIDE_THREADS`` set to 0 each batch is embedded in
    ``submit``, on the caller's thread."""

    def __init__(self, provider: EmbeddingProvider) -> None:
        self._provider = provider
        self._in_flight: deque[tuple[Batch, Future[Matrix]]] = deque()
        self._executor: ThreadPoolExecutor | None = None
        if int(settings.CAIRN_BESIDE_THREADS) > 0:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cairn-embed")

    def __enter__(self) -> EmbedAhead[Batch]:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
        self._in_flight.clear()

    def submit(self, batch: Batch, texts: Sequence[str]) -> None:
        """Queue ``texts`` (the chunks of ``batch``) for embedding."""
        if self._executor is None:
            future: Future[Matrix] = Future()
            future.set_result(self._provider.embed_documents(texts))
        else:
            future = self._executor.submit(self._provider.embed_documents, texts)
        self._in_flight.append((batch, future))

    def finished(self, *, keep: int = 0) -> Iterator[tuple[Batch, Matrix]]:
        """The oldest batches with their vectors, waiting for each, until at most ``keep``
        are still in flight. An error of the model is raised here."""
        while len(self._in_flight) > keep:
            batch, future = self._in_flight.popleft()
            yield batch, future.result()
