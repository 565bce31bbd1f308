"""Test doubles for indexing: a deterministic embedding provider without a model.

Unit tests that only need *some* consistent vectors use ``HashEmbeddingProvider`` (set
``CAIRN_EMBEDDING_PROVIDER = "tests.indexing.fakes.HashEmbeddingProvider"`` or pass it in);
integration tests use the real model. ``GatedHashEmbeddingProvider`` holds a worker
process in the middle of indexing, for the tests that kill it there.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from apps.indexing.embeddings import Matrix, Vector

_WORD = re.compile(r"\w+")
_TOKEN = re.compile(r"\S+")


def whitespace_token_offsets(text: str) -> list[tuple[int, int]]:
    """Each run of non-whitespace is one token."""
    return [(match.start(), match.end()) for match in _TOKEN.finditer(text)]


class HashEmbeddingProvider:
    """384-dimensional unit vectors built by hashing each lower-cased word into a signed
    bucket: the same text always gets the same vector, texts sharing words score higher
    than texts that share none. ``batches`` records the texts of every call, so tests can
    tell whether something was (re-)embedded."""

    name = "fake-hash-384"
    dimensions = 384

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    @property
    def embedded_texts(self) -> list[str]:
        return [text for batch in self.batches for text in batch]

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        self.batches.append(list(texts))
        vectors = np.empty((len(texts), self.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            vectors[row] = self._vector(text)
        return vectors

    def embed_query(self, text: str) -> Vector:
        self.batches.append([text])
        return self._vector(text)

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        return whitespace_token_offsets(text)

    def _vector(self, text: str) -> Vector:
        vector = np.zeros(self.dimensions, dtype=np.float32)
        for word in _WORD.findall(text.lower()):
            digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
            bucket = int.from_bytes(digest[:4], "little") % self.dimensions
            vector[bucket] += 1.0 if digest[4] & 1 else -1.0
        norm = float(np.linalg.norm(vector))
        if norm == 0.0:  # no words: still a unit vector, as the interface promises
            vector[0] = 1.0
            return vector
        normalised: Vector = vector / norm
        return normalised


class GatedHashEmbeddingProvider(HashEmbeddingProvider):
    """``HashEmbeddingProvider`` (same name, same vectors) that another process can hold
    in the middle of indexing, chosen through ``CAIRN_EMBEDDING_PROVIDER`` in a worker's
    environment.

    While the file named by ``CAIRN_TEST_EMBED_GATE`` exists, every call after the first
    ``CAIRN_TEST_EMBED_FREE_CALLS`` (default 0) writes ``<gate>.held`` (the number of
    texts) and then waits until the gate file is removed, or the process is killed.
    Without the variable it is the plain fake."""

    def __init__(self) -> None:
        super().__init__()
        gate = os.environ.get("CAIRN_TEST_EMBED_GATE", "")
        self.gate = Path(gate) if gate else None
        self.free_calls = int(os.environ.get("CAIRN_TEST_EMBED_FREE_CALLS", "0"))
        self._calls = 0
        self._calls_lock = threading.Lock()

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        with self._calls_lock:
            self._calls += 1
            call = self._calls
        if self.gate is not None and call > self.free_calls and self.gate.exists():
            self.gate.with_name(self.gate.name + ".held").write_text(str(len(texts)))
            while self.gate.exists():
                time.sleep(0.02)
        return super().embed_documents(texts)
