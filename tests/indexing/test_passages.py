"""File passages cut to the embedding model's window (issue 19): counted with MiniLM's own
tokenizer, exact offsets, overlap, and a fact at the end of a long paragraph found by
meaning."""

from __future__ import annotations

from itertools import pairwise

import pytest

from apps.accounts.models import User
from apps.indexing.chunking import (
    TextChunk,
    chunk_document_text,
    chunk_file_text,
    document_window_tokens,
)
from apps.indexing.embeddings import EmbeddingProvider
from apps.indexing.models import Chunk
from apps.indexing.search import vector_search
from apps.projects.models import Project
from tests.indexing.conftest import Committed
from tests.indexing.fakes import HashEmbeddingProvider, whitespace_token_offsets
from tests.indexing.test_chunking import assert_covers_every_character, make_prose
from tests.indexing.test_search import index_files

GARDEN_SENTENCES = (
    "The tomatoes along the south fence need watering every morning before the sun is high.",
    "Basil grows best beside the wall, where the bricks keep the warmth of the afternoon.",
    "Slugs came back after the rain, so the lettuce bed has a ring of crushed eggshells now.",
    "The compost heap is turned every second Sunday and covered with an old carpet.",
    "Runner beans climb the hazel poles that were cut from the hedge in February.",
    "The rhubarb crown was divided last autumn and both halves survived the frost.",
    "Courgettes produce far more than we can eat, so the neighbours get a box each week.",
    "The greenhouse vent opener sticks when it is cold and has to be pushed by hand.",
)
FACT = "The spare key to the garden shed is hidden inside the hollow stone frog by the pond."


def long_paragraph() -> str:
    """About 1,900 characters of one paragraph (one old chunk), the fact as its last
    sentence."""
    return " ".join([*(GARDEN_SENTENCES * 3)[:21], FACT])


@pytest.fixture
def minilm(real_provider: EmbeddingProvider) -> EmbeddingProvider:
    return real_provider


def token_count(provider: EmbeddingProvider, chunk: TextChunk) -> int:
    return len(provider.token_offsets(chunk.text))


@pytest.mark.parametrize("seed", range(3))
def test_passages_of_a_long_document_fit_the_model_window(
    minilm: EmbeddingProvider, seed: int
) -> None:
    # Given a long document of paragraphs, sentences and a few numbers
    text = make_prose(seed, paragraphs=60) + "\n\n" + long_paragraph()
    window = document_window_tokens(minilm)

    # When it is cut into passages with the model's own tokens
    chunks = chunk_document_text(text, minilm.token_offsets, max_tokens=window)

    # Then each passage, re-tokenised alone, fits the window with [CLS] and [SEP]
    assert window == 254
    assert len(chunks) > 10
    assert all(token_count(minilm, chunk) + 2 <= 256 for chunk in chunks)
    # and its offsets open exactly its text, passages in order, nothing left out
    for position, chunk in enumerate(chunks):
        assert chunk.index == position
        assert text[chunk.start : chunk.end] == chunk.text
        assert chunk.text == chunk.text.strip()
    assert_covers_every_character(text, chunks)
    # and neighbours overlap, by about an eighth of the window
    overlaps = [
        len(minilm.token_offsets(text[after.start : before.end]))
        for before, after in pairwise(chunks)
    ]
    assert all(overlap > 0 for overlap in overlaps), overlaps
    assert 0.5 * window / 8 <= sum(overlaps) / len(overlaps) <= 2 * window / 8, overlaps
    assert all(after.start > before.start for before, after in pairwise(chunks))


def test_a_passage_ends_at_a_sentence_and_the_next_starts_at_one(
    minilm: EmbeddingProvider,
) -> None:
    text = " ".join(f"Sentence number {i} says something short." for i in range(400))

    chunks = chunk_document_text(text, minilm.token_offsets, max_tokens=254)

    assert len(chunks) > 3
    for chunk in chunks[:-1]:
        assert chunk.text.endswith(".")
    for chunk in chunks[1:]:
        assert chunk.text.startswith("Sentence number")


def test_passages_end_at_paragraph_breaks_when_one_is_near() -> None:
    paragraphs = [f"Paragraph {i} " + "word " * 20 + "end." for i in range(60)]
    text = "\n\n".join(paragraphs)

    chunks = chunk_document_text(text, whitespace_token_offsets, max_tokens=120)

    assert all(len(chunk.text.split()) <= 120 for chunk in chunks)
    for chunk in chunks[:-1]:
        assert text[chunk.end : chunk.end + 2] == "\n\n"


def test_a_text_without_boundaries_is_cut_after_the_windows_last_token() -> None:
    text = "x" * 1000

    def characters(text: str) -> list[tuple[int, int]]:
        return [(i, i + 1) for i in range(len(text))]

    chunks = chunk_document_text(text, characters, max_tokens=100, overlap=10)

    assert [len(chunk.text) for chunk in chunks[:3]] == [100, 100, 100]
    assert [chunk.start for chunk in chunks[:3]] == [0, 90, 180]
    assert_covers_every_character(text, chunks)


def test_short_and_empty_documents(minilm: EmbeddingProvider) -> None:
    assert chunk_document_text("", minilm.token_offsets) == []
    assert chunk_document_text(" \n\n ", minilm.token_offsets) == []
    assert chunk_document_text("  Hello there.\n", minilm.token_offsets) == [
        TextChunk("Hello there.", 2, 14, 0)
    ]


def test_the_window_comes_from_the_provider_with_a_default() -> None:
    assert document_window_tokens(HashEmbeddingProvider()) == 254  # says nothing: 256 - 2

    class LongWindow(HashEmbeddingProvider):
        max_seq_length = 512

    assert document_window_tokens(LongWindow()) == 510


@pytest.mark.parametrize(("max_tokens", "overlap"), [(2, 0), (100, 51), (100, -1)])
def test_invalid_passage_settings_are_rejected(max_tokens: int, overlap: int) -> None:
    with pytest.raises(ValueError, match="must be"):
        chunk_document_text("some text", whitespace_token_offsets, max_tokens=max_tokens,
                            overlap=overlap)  # fmt: skip


@pytest.mark.django_db
@pytest.mark.usefixtures("media_root")
def test_a_fact_at_the_end_of_a_long_paragraph_is_found_by_meaning(
    minilm: EmbeddingProvider, user: User, project: Project, committed: Committed
) -> None:
    # Given a fact closing a paragraph of about 2,000 characters, past what the model reads
    # of a 2,048-character chunk (the old cut), and other notes beside it
    paragraph = long_paragraph()
    old = chunk_file_text(paragraph)
    assert len(old) == 1
    assert FACT not in paragraph[: old[0].start + minilm.token_offsets(old[0].text)[253][1]]
    other = "\n\n".join(make_prose(seed, paragraphs=8) for seed in range(3))
    index_files(project, committed, **{"garden.md": paragraph, "other.md": other})

    # When the question is asked by meaning alone, in other words than the fact's
    hits = vector_search(
        user=user, query="where is the shed key kept hidden?", kinds=("document",), k=3
    )

    # Then the passage holding the fact is found first, and it opens exactly that span
    assert hits
    assert hits[0].document_path == "garden.md"
    assert FACT in hits[0].text
    passage = Chunk.objects.get(pk=hits[0].chunk_id)
    assert paragraph[passage.start : passage.end] == passage.text
