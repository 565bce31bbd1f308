"""Chunking: offsets, coverage, overlap and the boundaries cuts are made at."""

from __future__ import annotations

import random
import re
from datetime import UTC, date, datetime
from itertools import pairwise

import pytest

from apps.indexing.chunking import (
    TextChunk,
    chunk_file_text,
    chunk_message_text,
    message_index_text,
)
from tests.indexing.fakes import whitespace_token_offsets

WORDS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa")


def make_prose(seed: int, paragraphs: int = 30) -> str:
    rng = random.Random(seed)
    result = []
    for _ in range(paragraphs):
        sentences = []
        for _ in range(rng.randint(1, 9)):
            words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 25)))
            sentences.append(words.capitalize() + rng.choice([".", ".", "!", "?"]))
        result.append(" ".join(sentences))
    return "\n\n".join(result)


def assert_offsets_exact(text: str, chunks: list[TextChunk]) -> None:
    for position, chunk in enumerate(chunks):
        assert chunk.index == position
        assert text[chunk.start : chunk.end] == chunk.text
        assert chunk.text == chunk.text.strip()


def assert_covers_every_character(text: str, chunks: list[TextChunk]) -> None:
    covered = [False] * len(text)
    for chunk in chunks:
        covered[chunk.start : chunk.end] = [True] * (chunk.end - chunk.start)
    missed = [i for i, char in enumerate(text) if not char.isspace() and not covered[i]]
    assert missed == []


@pytest.mark.parametrize("seed", range(5))
def test_file_chunks_have_exact_offsets_and_cover_the_text(seed: int) -> None:
    text = make_prose(seed)

    chunks = chunk_file_text(text)

    assert len(chunks) > 3
    assert_offsets_exact(text, chunks)
    assert_covers_every_character(text, chunks)
    assert all(len(chunk.text) <= 2048 for chunk in chunks)
    assert all(len(chunk.text) >= 1536 for chunk in chunks[:-1])


@pytest.mark.parametrize("seed", range(5))
def test_consecutive_file_chunks_overlap_by_about_the_overlap(seed: int) -> None:
    text = make_prose(seed)

    chunks = chunk_file_text(text, size=2048, overlap=256)

    overlaps = [before.end - after.start for before, after in pairwise(chunks)]
    assert all(256 * 0.7 <= overlap <= 256 * 1.3 for overlap in overlaps), overlaps
    assert all(after.start > before.start for before, after in pairwise(chunks))


def test_file_chunks_end_at_paragraph_breaks_when_one_is_near() -> None:
    paragraphs = [f"Paragraph {i} " + "word " * 80 + "end." for i in range(40)]
    text = "\n\n".join(paragraphs)

    chunks = chunk_file_text(text)

    for chunk in chunks[:-1]:
        assert text[chunk.end : chunk.end + 2] == "\n\n"


def test_file_chunks_end_at_sentence_ends_without_paragraphs() -> None:
    text = " ".join(f"Sentence number {i} says something short." for i in range(600))

    chunks = chunk_file_text(text)

    for chunk in chunks[:-1]:
        assert chunk.text.endswith(".")
    for chunk in chunks[1:]:
        assert chunk.text.startswith("Sentence number")  # restarts at a sentence start


def test_file_chunks_end_at_whitespace_without_sentences() -> None:
    text = " ".join(f"token{i}" for i in range(3000))

    chunks = chunk_file_text(text)

    assert_covers_every_character(text, chunks)
    for chunk in chunks:
        assert re.fullmatch(r"token\d+( token\d+)*", chunk.text)


def test_text_without_any_boundary_is_cut_hard_at_the_size() -> None:
    text = "x" * 5000

    chunks = chunk_file_text(text, size=2048, overlap=256)

    assert [len(chunk.text) for chunk in chunks[:-1]] == [2048, 2048]
    assert_covers_every_character(text, chunks)


def test_short_and_empty_texts() -> None:
    assert chunk_file_text("") == []
    assert chunk_file_text(" \n\n\t ") == []
    assert chunk_file_text("  Hello there.\n") == [TextChunk("Hello there.", 2, 14, 0)]


def test_zero_overlap_makes_adjacent_chunks() -> None:
    text = make_prose(7)

    chunks = chunk_file_text(text, size=1000, overlap=0)

    assert all(after.start >= before.end for before, after in pairwise(chunks))
    assert_covers_every_character(text, chunks)


@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (100, 60), (100, -1)])
def test_invalid_chunk_settings_are_rejected(size: int, overlap: int) -> None:
    with pytest.raises(ValueError, match="must be"):
        chunk_file_text("text", size=size, overlap=overlap)


def test_short_message_is_one_chunk() -> None:
    text = "  Yes, last May! " + "word " * 900

    chunks = chunk_message_text(text, whitespace_token_offsets)

    assert len(chunks) == 1
    assert chunks[0].start == 2
    assert_offsets_exact(text, chunks)


def test_long_message_is_cut_into_overlapping_token_windows() -> None:
    words = [f"w{i}" for i in range(1500)]
    text = " ".join(words)

    chunks = chunk_message_text(text, whitespace_token_offsets)

    assert_offsets_exact(text, chunks)
    assert_covers_every_character(text, chunks)
    token_lists = [chunk.text.split() for chunk in chunks]
    assert [len(tokens) for tokens in token_lists] == [512, 512, 512, 156]
    for before, after in pairwise(token_lists):
        assert before[-64:] == after[:64]
    assert token_lists[0][0] == "w0"
    assert token_lists[-1][-1] == "w1499"


def test_message_windows_follow_the_tokenizer_offsets() -> None:
    text = "naïve café " * 600  # two tokens a repeat, 1,200 in all

    chunks = chunk_message_text(text, whitespace_token_offsets, window=100, overlap=10)

    assert_offsets_exact(text, chunks)
    assert all(len(chunk.text.split()) <= 100 for chunk in chunks)
    assert chunks[1].start == text.index("naïve", 0) + len("naïve café ") * 45


def test_empty_message_has_no_chunks() -> None:
    assert chunk_message_text("   ", whitespace_token_offsets) == []


def test_message_index_text_carries_speaker_date_and_neighbours() -> None:
    text = message_index_text(
        speaker="user",
        created_at=datetime(2025, 5, 3, 14, 30, tzinfo=UTC),
        content=" Yes, last May! ",
        previous="assistant: Have you ever been to Lisbon?",
        following="assistant: " + "How was the weather? " * 40,
        context_chars=60,
    )

    lines = text.split("\n")
    assert lines[0] == "user, 2025-05-03: Yes, last May!"
    assert lines[1] == "In reply to: assistant: Have you ever been to Lisbon?"
    assert lines[2].startswith("Followed by: assistant: How was the weather?")
    assert lines[2].endswith(" …")
    assert len(lines[2]) <= len("Followed by: ") + 62


def test_message_index_text_without_neighbours() -> None:
    text = message_index_text(speaker="assistant", created_at=date(2024, 1, 9), content="Hi")

    assert text == "assistant, 2024-01-09: Hi"
