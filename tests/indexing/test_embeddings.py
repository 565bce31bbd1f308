"""The real embedding model (no database): shape, normalisation, meaning, consistency."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from apps.indexing import embeddings
from apps.indexing.chunking import chunk_message_text
from apps.indexing.embeddings import (
    EmbeddingModelMissing,
    EmbeddingProvider,
    MiniLMOnnxProvider,
    build_provider,
    get_embedding_provider,
    padded_batches,
    reset_embedding_provider,
)
from tests.indexing.fakes import HashEmbeddingProvider
from tests.indexing.minilm_reference import ReferenceMiniLM

TEXTS = [
    "I take my coffee black, no sugar.",
    "Project Alpha's deadline moved to the 14th of March.",
    "def add(a, b):\n    return a + b",
    "Réunion à Paris le 3 mai — café et croissants.",
    "ok",
    "",
    "The quarterly report shows revenue grew by 12 percent. " * 40,
]


@pytest.fixture(scope="module")
def provider() -> MiniLMOnnxProvider:
    return MiniLMOnnxProvider()


@pytest.fixture
def fresh_singleton(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No provider built yet, and no Django setting overriding the environment."""
    monkeypatch.setattr(embeddings, "_django_setting", lambda name: None)
    reset_embedding_provider()
    yield
    reset_embedding_provider()


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_vectors_are_384_unit_length_float32(provider: MiniLMOnnxProvider) -> None:
    vectors = provider.embed_documents(TEXTS)

    assert provider.dimensions == 384
    assert provider.name == "all-MiniLM-L6-v2-int8"
    assert vectors.shape == (len(TEXTS), 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    query = provider.embed_query("coffee")
    assert query.shape == (384,)
    assert query.dtype == np.float32
    assert np.linalg.norm(query) == pytest.approx(1.0, abs=1e-5)


def test_no_texts_give_an_empty_matrix(provider: MiniLMOnnxProvider) -> None:
    assert provider.embed_documents([]).shape == (0, 384)


@pytest.mark.parametrize(
    ("anchor", "close", "unrelated"),
    [
        ("How do I reset my password?", "I forgot my login password", "The cat sat on the mat"),
        ("I prefer meetings in the morning", "Schedule my calls before noon", "Paris is in France"),
        ("The invoice is overdue", "The bill has not been paid yet", "Tomatoes need sunlight"),
        ("A dog is playing in the park", "A puppy runs on the grass", "Interest rates rose"),
    ],
)
def test_similar_sentences_score_higher_than_unrelated(
    provider: MiniLMOnnxProvider, anchor: str, close: str, unrelated: str
) -> None:
    query = provider.embed_query(anchor)
    close_vector, unrelated_vector = provider.embed_documents([close, unrelated])

    assert float(query @ close_vector) > float(query @ unrelated_vector) + 0.2


def test_batched_documents_equal_single_queries(provider: MiniLMOnnxProvider) -> None:
    texts = TEXTS * 7  # more than one batch, lengths mixed, so order must be restored
    batched = provider.embed_documents(texts)
    single = np.stack([provider.embed_query(text) for text in texts])

    np.testing.assert_allclose(batched, single, atol=1e-4)


def test_batches_keep_within_the_token_budget() -> None:
    # Given texts of mixed lengths, sorted as embed_documents sorts them
    lengths = [3, 5, 5, 40, 41, 90, 100, 256, 256, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7]
    order = sorted(range(len(lengths)), key=lengths.__getitem__)

    # When they are cut into batches of at most 64 padded word pieces and 4 texts
    batches = list(padded_batches(order, lengths, batch_tokens=64, max_batch=4))

    # Then every text is in exactly one batch, in the sorted order
    assert [index for batch in batches for index in batch] == order
    for batch in batches:
        padded = len(batch) * max(lengths[index] for index in batch)
        # and a batch is over the budget only when it is one text too long on its own
        assert padded <= 64 or len(batch) == 1
        assert len(batch) <= 4
    assert [lengths[i] for i in batches[-1]] == [256]


def test_vectors_do_not_depend_on_the_batching(provider: MiniLMOnnxProvider) -> None:
    texts = TEXTS * 7
    by_count = MiniLMOnnxProvider(batch_tokens=None, max_batch=32).embed_documents(texts)

    np.testing.assert_allclose(provider.embed_documents(texts), by_count, atol=1e-4)


def test_a_batch_budget_below_one_is_rejected() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        MiniLMOnnxProvider(batch_tokens=0)


def test_embedding_is_deterministic(provider: MiniLMOnnxProvider) -> None:
    first = provider.embed_documents(TEXTS)
    second = provider.embed_documents(TEXTS)

    np.testing.assert_array_equal(first, second)


def test_int8_model_agrees_with_the_full_precision_weights(provider: MiniLMOnnxProvider) -> None:
    texts = [text for text in TEXTS if text][:5]
    reference = ReferenceMiniLM().embed(texts)
    ours = provider.embed_documents(texts)

    similarities = [cosine(a, b) for a, b in zip(reference, ours, strict=True)]
    assert min(similarities) > 0.99


def test_text_longer_than_the_model_window_is_truncated(provider: MiniLMOnnxProvider) -> None:
    long_text = "word " * 5000
    head = "word " * 300

    assert cosine(provider.embed_query(long_text), provider.embed_query(head)) > 0.999


def test_token_offsets_point_into_the_text(provider: MiniLMOnnxProvider) -> None:
    text = "Réunion à Paris — naïve café, 2025!"
    offsets = provider.token_offsets(text)

    pieces = [text[start:end] for start, end in offsets]
    assert pieces[:2] == ["Réunion", "à"]
    assert "".join(pieces) == text.replace(" ", "")
    assert len(provider.token_offsets("word " * 600)) == 600  # no truncation here


def test_missing_model_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingModelMissing, match="does not exist"):
        MiniLMOnnxProvider(model_file=tmp_path / "missing.onnx")


def test_damaged_model_file_is_a_clear_error(tmp_path: Path) -> None:
    broken = tmp_path / "model.onnx"
    broken.write_bytes(b"not an onnx graph")

    with pytest.raises(EmbeddingModelMissing, match="could not be loaded"):
        MiniLMOnnxProvider(model_file=broken)


def test_provider_satisfies_the_interface(provider: MiniLMOnnxProvider) -> None:
    assert isinstance(provider, EmbeddingProvider)
    assert isinstance(HashEmbeddingProvider(), EmbeddingProvider)


def test_singleton_is_built_once_from_the_environment(
    fresh_singleton: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CAIRN_EMBEDDING_PROVIDER", "tests.indexing.fakes.HashEmbeddingProvider")
    seen: list[EmbeddingProvider] = []

    def fetch() -> None:
        seen.append(get_embedding_provider())

    threads = [threading.Thread(target=fetch) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert isinstance(seen[0], HashEmbeddingProvider)
    assert all(provider is seen[0] for provider in seen)


def test_default_provider_is_the_onnx_model(
    fresh_singleton: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CAIRN_EMBEDDING_PROVIDER", raising=False)

    assert embeddings.configured_provider_name() == "minilm-onnx"
    assert isinstance(get_embedding_provider(), MiniLMOnnxProvider)


def test_unknown_provider_name_is_rejected() -> None:
    with pytest.raises(ValueError, match="Unknown embedding provider"):
        build_provider("no-such-model")


def test_message_windows_with_the_model_tokenizer(provider: MiniLMOnnxProvider) -> None:
    text = "The migration plan covers the chunks table and its HNSW index. " * 150

    chunks = chunk_message_text(text, provider.token_offsets)

    assert len(chunks) > 1
    assert all(text[chunk.start : chunk.end] == chunk.text for chunk in chunks)
    assert all(len(provider.token_offsets(chunk.text)) <= 512 for chunk in chunks)


def test_the_django_setting_chooses_the_provider(settings: Any) -> None:
    """The setting README documents (``CAIRN_EMBEDDING_PROVIDER``) is the one read."""
    settings.CAIRN_EMBEDDING_PROVIDER = "tests.indexing.fakes.HashEmbeddingProvider"

    assert embeddings.configured_provider_name() == "tests.indexing.fakes.HashEmbeddingProvider"


def _e5_or_skip() -> Any:
    from apps.indexing.embeddings import EmbeddingModelMissing, build_provider

    try:
        return build_provider("e5-small")
    except EmbeddingModelMissing as missing:
        pytest.skip(f"multilingual-e5-small is an option this machine cannot run: {missing}")


def test_the_e5_option_embeds_questions_and_passages_in_the_same_space() -> None:
    provider = _e5_or_skip()
    question = provider.embed_query("how much protein should I eat per day")
    passages = provider.embed_documents(
        ["Eat about fifty grams of protein a day.", "Lisbon's trams are yellow."]
    )

    assert provider.dimensions == question.shape[0] == passages.shape[1] == 384
    assert passages.dtype == question.dtype == np.float32
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-4)
    similarity = passages @ question
    assert similarity[0] > similarity[1]


def test_the_e5_options_token_offsets_count_its_own_tokens_and_stay_in_the_text() -> None:
    provider = _e5_or_skip()
    text = "Antidisestablishmentarianism, said she, is long."
    offsets = provider.token_offsets(text)

    assert len(offsets) > len(text.split())  # the long word is several pieces
    assert all(0 <= start < end <= len(text) for start, end in offsets)
    assert offsets == sorted(offsets)
    assert text[offsets[0][0] : offsets[-1][1]] == text


def test_the_e5_option_says_where_it_cannot_run(monkeypatch: pytest.MonkeyPatch) -> None:
    from apps.indexing.embeddings import EmbeddingModelMissing, build_provider

    monkeypatch.setattr("platform.machine", lambda: "arm64")
    with pytest.raises(EmbeddingModelMissing, match=r"Linux x86-64 only.*minilm-onnx"):
        build_provider("e5-small")
