"""Embedding one batch while the caller reads the next and writes the last (EmbedAhead)."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from apps.indexing.embeddings import Matrix
from apps.indexing.services.embed_ahead import EmbedAhead
from tests.indexing.fakes import HashEmbeddingProvider


class RecordingProvider(HashEmbeddingProvider):
    """Records the thread of every call; the first call can be made slow or held."""

    def __init__(self, *, first_call_seconds: float = 0.0) -> None:
        super().__init__()
        self.threads: list[str] = []
        self.first_call_seconds = first_call_seconds
        self.release = threading.Event()
        self.release.set()

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        self.threads.append(threading.current_thread().name)
        if len(self.threads) == 1:
            time.sleep(self.first_call_seconds)
            self.release.wait(timeout=10)
        return super().embed_documents(texts)


def test_batches_come_back_in_order_with_their_own_vectors() -> None:
    # Given a model slow on the first batch, so later ones could overtake it
    provider = RecordingProvider(first_call_seconds=0.05)
    batches = {name: [f"{name} passage {n}" for n in range(3)] for name in "abc"}

    # When three batches go in
    with EmbedAhead[str](provider) as embedder:
        for name, texts in batches.items():
            embedder.submit(name, texts)
        results = list(embedder.finished())

    # Then they come back in the order they went in, each with its texts' vectors
    assert [name for name, _ in results] == ["a", "b", "c"]
    for name, vectors in results:
        expected = np.stack([provider._vector(text) for text in batches[name]])
        np.testing.assert_array_equal(vectors, expected)


def test_keep_leaves_the_newest_batches_in_flight() -> None:
    provider = RecordingProvider()
    with EmbedAhead[int](provider) as embedder:
        for batch in range(3):
            embedder.submit(batch, [f"text {batch}"])

        assert [batch for batch, _ in embedder.finished(keep=1)] == [0, 1]
        assert [batch for batch, _ in embedder.finished(keep=0)] == [2]


def test_the_model_runs_on_a_thread_of_its_own() -> None:
    provider = RecordingProvider()
    with EmbedAhead[int](provider) as embedder:
        embedder.submit(1, ["a text"])
        list(embedder.finished())

    assert provider.threads[0].startswith("cairn-embed")


def test_with_no_threads_the_model_runs_in_submit(settings: Any) -> None:
    settings.CAIRN_BESIDE_THREADS = 0
    provider = RecordingProvider()
    with EmbedAhead[int](provider) as embedder:
        embedder.submit(1, ["a text"])
        assert provider.threads == [threading.current_thread().name]  # before finished()
        assert [batch for batch, _ in embedder.finished()] == [1]


def test_an_error_of_the_model_is_raised_to_the_caller() -> None:
    class Broken(HashEmbeddingProvider):
        def embed_documents(self, texts: Sequence[str]) -> Matrix:
            raise RuntimeError("model crashed")

    with EmbedAhead[int](Broken()) as embedder:
        embedder.submit(1, ["a text"])
        with pytest.raises(RuntimeError, match="model crashed"):
            list(embedder.finished())


def test_leaving_early_drops_the_batches_not_started() -> None:
    # Given the first batch held in the model, two more queued behind it
    provider = RecordingProvider()
    provider.release.clear()
    threading.Timer(0.5, provider.release.set).start()

    def index() -> None:
        with EmbedAhead[int](provider) as embedder:
            for batch in range(3):
                embedder.submit(batch, [f"text {batch}"])
            raise ValueError("the database went away")

    # When the caller fails before taking any result
    with pytest.raises(ValueError, match="the database went away"):
        index()

    # Then only the batch already started was embedded, and no thread is left running it
    assert len(provider.threads) == 1
    assert not any(thread.name.startswith("cairn-embed") for thread in threading.enumerate())
