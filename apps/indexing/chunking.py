"""Cutting text into chunks with character offsets (DESIGN §6).

Files are cut into passages of at most the embedding model's window, counted in the model's
own tokens (``chunk_document_text``), overlapping by a few sentences' worth of tokens, at a
paragraph break where one falls near the cut, else at a sentence end, else at a space.
``chunk_file_text`` is the earlier cut by characters (about 2,048 overlapping by 256),
kept for the benchmark that compares the two (bench/bench_passages.py).
Chat messages are one chunk up to about 1,000 tokens, else windows of 512 tokens
overlapping by 64. Every chunk satisfies ``text[chunk.start:chunk.end] == chunk.text``,
chunks never begin or end with whitespace, and together they cover every non-whitespace
character of the text.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime

TokenOffsets = Callable[[str], Sequence[tuple[int, int]]]
"""Returns the ``(start, end)`` character offsets of each token of a text, in order
(``EmbeddingProvider.token_offsets``)."""

FILE_CHUNK_SIZE = 2048
FILE_CHUNK_OVERLAP = 256
DOCUMENT_WINDOW_TOKENS = 256
"""A provider's window when it does not say (``max_seq_length``): BERT-sized models read
256 or 512 word pieces, and cutting to the smaller only makes more passages."""
SPECIAL_TOKENS = 2
"""The model adds [CLS] and [SEP] (or <s> and </s>) to every text it embeds."""
DOCUMENT_OVERLAP_FRACTION = 8
"""Passages overlap by an eighth of the window (32 of MiniLM's 254 tokens, about two
lines), so a sentence cut by one passage is read whole by its neighbour."""
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


def document_window_tokens(provider: object) -> int:
    """How many of a text's own tokens the provider's model reads: its ``max_seq_length``
    (or ``DOCUMENT_WINDOW_TOKENS``) less the special tokens it adds."""
    window = getattr(provider, "max_seq_length", None)
    if not isinstance(window, int) or window <= SPECIAL_TOKENS:
        window = DOCUMENT_WINDOW_TOKENS
    return window - SPECIAL_TOKENS


def chunk_document_text(
    text: str,
    token_offsets: TokenOffsets,
    *,
    max_tokens: int = DOCUMENT_WINDOW_TOKENS - SPECIAL_TOKENS,
    overlap: int | None = None,
) -> list[TextChunk]:
    """Cut a file's ``text`` into passages of at most ``max_tokens`` of the model's tokens,
    each starting about ``overlap`` tokens (default: an eighth of ``max_tokens``) before
    the previous one ended.

    Why tokens and not characters: MiniLM reads 254 word pieces, about 1,000 characters of
    English prose (fewer for numbers, code or other scripts), and silently drops the rest.
    With 2,048-character passages the second half of every passage could be found by its
    words only, never by meaning.

    Why cut rather than keep long passages and mean-pool their windows' vectors, measured
    by bench/bench_passages.py (60 files, 120 questions, hybrid_search on files; old
    truncated / pooled / this cut): reading the first 5,000 characters of results, the
    passage holding the fact is found for 0.708 / 0.700 / 0.800 of questions, reading
    10,000 for 0.867 / 0.900 / 0.925. Counting passages instead, long ones are favoured
    since each holds 1.6 times the text: at 5 all three find 0.800, at 10 0.983 / 0.992 /
    0.933. Pooling rescues facts past the old window (vectors @5: 0.606 truncated, 0.788
    pooled, 0.758 cut) but blurs the others (0.862, 0.793, 0.759). A reply's memory is
    filled to a token budget and quotes passages as short excerpts, and a citation should
    open the span that matched, so the text read is the fair measure, and there the cut
    wins.

    A cut is made at the last paragraph break, else sentence end, else whitespace in the
    final quarter of the window, and after the window's last token when there is none.
    The next passage starts at the sentence or word start nearest ``overlap`` tokens
    before the cut. ``token_offsets`` is the provider's tokenizer (``provider.token_offsets``).
    """
    if max_tokens < 4:
        raise ValueError("max_tokens must be at least 4")
    overlap = max_tokens // DOCUMENT_OVERLAP_FRACTION if overlap is None else overlap
    if not 0 <= overlap <= max_tokens // 2:
        raise ValueError("overlap must be between 0 and half of max_tokens")
    offsets = [(start, end) for start, end in token_offsets(text) if end > start]
    if not offsets:
        return []
    starts = [start for start, _ in offsets]
    spans: list[tuple[int, int]] = []
    first = 0
    while first < len(offsets):
        last = min(first + max_tokens, len(offsets))  # tokens first .. last-1 fit
        if last == len(offsets):
            spans.append((offsets[first][0], offsets[-1][1]))
            break
        # A cut anywhere up to the start of token ``last`` keeps every token before it
        # whole and leaves ``last`` out, so the passage stays within the window.
        low = offsets[first + max(1, (max_tokens * 3) // 4)][0]
        end = _token_cut(text, low, offsets[last][0], fallback=offsets[last - 1][1])
        spans.append((offsets[first][0], end))
        # The first token at or after the cut begins the part not yet covered.
        uncovered = bisect.bisect_left(starts, end)
        target = max(first + 1, uncovered - overlap)
        first = _token_restart(text, offsets, first + 1, uncovered, target, overlap)
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


def _token_cut(text: str, low: int, high: int, *, fallback: int) -> int:
    region = text[low:high]
    for pattern in (_PARAGRAPH_BREAK, _SENTENCE_END, _WHITESPACE):
        cuts = [low + _cut_offset(match) for match in pattern.finditer(region)]
        cuts = [cut for cut in cuts if low < cut <= high]
        if cuts:
            return cuts[-1]
    return fallback


def _token_restart(
    text: str,
    offsets: Sequence[tuple[int, int]],
    low: int,
    high: int,
    target: int,
    overlap: int,
) -> int:
    """The token to start the next passage at: the start of a paragraph, else of a
    sentence, else of a word, nearest ``target`` among tokens ``low`` .. ``high``, within
    half the overlap of it, so the overlap stays about what was asked."""
    radius = max(1, overlap // 2)
    candidates = range(max(low, target - radius), min(high, target + radius, len(offsets) - 1) + 1)
    for pattern in (_PARAGRAPH_BREAK, _SENTENCE_END, _WHITESPACE):
        found = [index for index in candidates if _follows(text, offsets[index][0], pattern)]
        if found:
            return min(found, key=lambda index: (abs(index - target), index))
    return min(max(low, target), len(offsets))


def _follows(text: str, position: int, pattern: re.Pattern[str]) -> bool:
    """``position`` is right after a match of ``pattern`` (a word start, say)."""
    if position == 0:
        return True
    before = text[max(0, position - 8) : position]
    return any(match.end() == len(before) for match in pattern.finditer(before))


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
