"""Cutting text into chunks with character offsets (DESIGN §6).

Files are cut into about ``size`` characters overlapping by about ``overlap``, at a
paragraph break where one falls near the cut, else at a sentence end, else at a space.
Chat messages are one chunk up to about 1,000 tokens, else windows of 512 tokens
overlapping by 64. Every chunk satisfies ``text[chunk.start:chunk.end] == chunk.text``,
chunks never begin or end with whitespace, and together they cover every non-whitespace
character of the text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime

TokenOffsets = Callable[[str], Sequence[tuple[int, int]]]
"""Returns the ``(start, end)`` character offsets of each token of a text, in order
(``EmbeddingProvider.token_offsets``)."""

FILE_CHUNK_SIZE = 2048
FILE_CHUNK_OVERLAP = 256
MESSAGE_MAX_TOKENS = 1000
MESSAGE_WINDOW_TOKENS = 512
MESSAGE_WINDOW_OVERLAP = 64

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
# A sentence ends at . ! ? or an ellipsis, possibly followed by closing quotes or brackets,
# then whitespace; or at a CJK full stop, exclamation or question mark, which need none.
_SENTENCE_END = re.compile("[.!?\u2026][\"'\u201d\u2019\u00bb)\\]]*\\s+|[\u3002\uff01\uff1f]+\\s*")
_WHITESPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class TextChunk:
    text: str
    start: int
    end: int
    index: int


def chunk_file_text(
    text: str, size: int = FILE_CHUNK_SIZE, overlap: int = FILE_CHUNK_OVERLAP
) -> list[TextChunk]:
    """Cut ``text`` into chunks of at most ``size`` characters, each starting about
    ``overlap`` characters before the previous one ended.

    A cut is made at the last paragraph break, else sentence end, else whitespace in the
    final quarter of the chunk, and hard at ``size`` when there is none (a long token).
    The next chunk starts at the sentence or word start nearest to ``overlap`` characters
    before the cut.
    """
    if size < 1:
        raise ValueError("size must be positive")
    if not 0 <= overlap <= size // 2:
        raise ValueError("overlap must be between 0 and half the size")
    spans: list[tuple[int, int]] = []
    start = _skip_whitespace(text, 0)
    while start < len(text):
        end = _cut_point(text, start, size)
        spans.append((start, end))
        if end >= len(text):
            break
        next_start = _restart_point(text, start, end, overlap) if overlap else end
        start = _skip_whitespace(text, next_start)
    return _chunks(text, spans)


def chunk_message_text(
    text: str,
    token_offsets: TokenOffsets,
    *,
    max_tokens: int = MESSAGE_MAX_TOKENS,
    window: int = MESSAGE_WINDOW_TOKENS,
    overlap: int = MESSAGE_WINDOW_OVERLAP,
) -> list[TextChunk]:
    """One chunk if ``text`` has at most ``max_tokens`` tokens, else windows of ``window``
    tokens, each starting ``overlap`` tokens before the previous one ended.

    ``token_offsets`` is the embedding provider's tokenizer (``provider.token_offsets``),
    so windows are measured in the tokens the model sees; character offsets come from it.
    """
    if not 0 <= overlap < window:
        raise ValueError("overlap must be at least 0 and less than the window")
    if not text.strip():
        return []
    offsets = [(start, end) for start, end in token_offsets(text) if end > start]
    if len(offsets) <= max_tokens:
        start = _skip_whitespace(text, 0)
        return _chunks(text, [(start, len(text.rstrip()))])
    spans: list[tuple[int, int]] = []
    step = window - overlap
    for first in range(0, len(offsets), step):
        last = min(first + window, len(offsets)) - 1
        spans.append((offsets[first][0], offsets[last][1]))
        if last == len(offsets) - 1:
            break
    return _chunks(text, spans)


def message_index_text(
    *,
    speaker: str,
    created_at: datetime | date,
    content: str,
    previous: str | None = None,
    following: str | None = None,
    context_chars: int = 300,
) -> str:
    """The text to embed and full-text index for (a chunk of) a chat message.

    The message is headed by its speaker and date, and followed by the turn it answers and
    the turn that answers it, each cut to about ``context_chars`` characters, so that a
    short reply ("Yes, last May!") is still found by what it was about. ``previous`` and
    ``following`` are the neighbouring turns as the caller wants them shown, typically
    ``"assistant: <text>"``. The message comes before the context because the model only
    reads the first 256 tokens of a text. Example::

        user, 2025-05-03: Yes, last May!
        In reply to: assistant: Have you ever been to Lisbon?
        Followed by: assistant: How was the weather?
    """
    day = created_at.date() if isinstance(created_at, datetime) else created_at
    lines = [f"{speaker}, {day.isoformat()}: {content.strip()}"]
    if previous and previous.strip():
        lines.append(f"In reply to: {_shorten(previous, context_chars)}")
    if following and following.strip():
        lines.append(f"Followed by: {_shorten(following, context_chars)}")
    return "\n".join(lines)


def message_window_context(
    *,
    speaker: str,
    created_at: datetime | date,
    previous: str | None,
    following: str | None,
) -> str:
    """What a message's window adds to it (``Chunk.context``), full-text indexed with it:
    its speaker and day (written out, so that "May" or "2024" find it), the turn it
    answers and the turn that answers it, whole. Example::

        user, Saturday 3 May 2025
        assistant: Have you ever been to Lisbon?
        assistant: How was the weather?
    """
    day = created_at.date() if isinstance(created_at, datetime) else created_at
    heading = f"{speaker}, {day:%A} {day.day} {day:%B %Y}"
    turns = [turn.strip() for turn in (previous, following) if turn and turn.strip()]
    return "\n".join([heading, *turns])


def _cut_point(text: str, start: int, size: int) -> int:
    limit = start + size
    if limit >= len(text):
        return len(text)
    window_start = limit - size // 4
    # One character past the limit is looked at, so that a sentence or word ending exactly
    # at the limit is recognised; the cut itself never passes the limit.
    region = text[window_start : limit + 1]
    for pattern in (_PARAGRAPH_BREAK, _SENTENCE_END, _WHITESPACE):
        cuts = [window_start + _cut_offset(match) for match in pattern.finditer(region)]
        cuts = [cut for cut in cuts if start < cut <= limit]
        if cuts:
            return cuts[-1]
    return limit


def _cut_offset(match: re.Match[str]) -> int:
    # After a sentence's punctuation and closing quotes; before any whitespace.
    return match.start() + len(match.group().rstrip())


def _restart_point(text: str, start: int, end: int, overlap: int) -> int:
    target = end - overlap
    radius = overlap // 4
    low, high = max(start + 1, target - radius), min(end, target + radius)
    region = text[low:high]
    for pattern in (_PARAGRAPH_BREAK, _SENTENCE_END, _WHITESPACE):
        starts = [low + m.end() for m in pattern.finditer(region) if low + m.end() < end]
        if starts:
            return min(starts, key=lambda position: abs(position - target))
    return max(start + 1, target)


def _skip_whitespace(text: str, position: int) -> int:
    while position < len(text) and text[position].isspace():
        position += 1
    return position


def _chunks(text: str, spans: Sequence[tuple[int, int]]) -> list[TextChunk]:
    chunks: list[TextChunk] = []
    for start, end in spans:
        trimmed_end = start + len(text[start:end].rstrip())
        if trimmed_end > start:
            chunk = TextChunk(text[start:trimmed_end], start, trimmed_end, len(chunks))
            chunks.append(chunk)
    return chunks


def _shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit] + " …"
