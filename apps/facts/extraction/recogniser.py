"""spaCy's recogniser, run only where a name could be.

The recogniser is the dearest step of extraction (about 1.5 ms fixed plus 0.1 ms a
token on a small server, see bench/), so it reads only windows of ``_WINDOW_WORDS``
words around words that could start a name — capitalised, not claimed by an earlier
step, in a stated sentence, and not a lone capital opening a sentence — and at most
``MAX_NER_CHARS`` characters of them. A message with no such word never calls it.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import TYPE_CHECKING

from apps.core.dates import MONTHS, WEEKDAYS

from .nlp import exclusive, has_recogniser
from .text import APOS, SpanIndex, is_assertion, sentence_bounds
from .types import Span

if TYPE_CHECKING:
    from spacy.language import Language

MAX_NER_CHARS = 1_000
_WINDOW_WORDS = 5
NAME_WORD = re.compile(rf"[^\W\d_][\w{APOS[1:-1]}.&-]*")
NOT_NAMES = frozenset({"I", "I'm", "I\u2019m", "The", "A", "An", "My", "It", "This", "That"})
CALENDAR_WORDS = frozenset(w.capitalize() for w in (*MONTHS, *WEEKDAYS))


def sentence_start(text: str, pos: int) -> bool:
    before = text[max(0, pos - 3) : pos].rstrip(" \t\"'\u201c\u2018(")
    return not before or before[-1] in ".!?\n:"


def candidate_spans(text: str, claimed: SpanIndex) -> list[Span]:
    """Words that could start a name, outside claimed spans."""
    spans = []
    for match in NAME_WORD.finditer(text):
        word = match.group()
        if not word[:1].isupper() or word in NOT_NAMES or word in CALENDAR_WORDS:
            continue
        if claimed.overlaps(match.span()) or not is_assertion(text, *match.span()):
            continue  # claimed, or in a question whose facts would be dropped anyway
        if sentence_start(text, match.start()) and not _name_follows(text, match.end()):
            # A lone capital opening a sentence is usually an ordinary word ("Budget is
            # …"); reading every one would double the recogniser's work. It is still
            # read when a name-like word near it brings it into a window.
            continue
        spans.append(match.span())
    return spans


def _name_follows(text: str, end: int) -> bool:
    following = NAME_WORD.match(text, end + 1) if text[end : end + 1] == " " else None
    return (
        following is not None
        and following.group()[:1].isupper()
        and following.group() not in NOT_NAMES
    )


def _windows(text: str, focus: list[Span]) -> list[Span]:
    """Character ranges of ``_WINDOW_WORDS`` words either side of each focus span, within
    its sentence, merged. The recogniser's features reach about four tokens either
    side, so a wider window would cost time without changing what it finds."""
    words = [m.span() for m in re.finditer(r"\S+", text)]
    starts = [w[0] for w in words]
    ranges: list[Span] = []
    used = 0
    for f_start, f_end in focus:
        index = max(0, bisect_right(starts, f_start) - 1)
        s_start, s_end = sentence_bounds(text, f_start, f_end)
        first = max(words[max(0, index - _WINDOW_WORDS)][0], s_start)
        last = min(words[min(len(words) - 1, index + _WINDOW_WORDS)][1], s_end + 1)
        last = max(last, f_end)
        if ranges and first <= ranges[-1][1]:
            previous = ranges[-1]
            merged = (previous[0], max(last, previous[1]))
            extra = (merged[1] - merged[0]) - (previous[1] - previous[0])
            if used + extra > MAX_NER_CHARS:
                break
            ranges[-1], used = merged, used + extra
        else:
            if used + (last - first) > MAX_NER_CHARS:
                break
            ranges.append((first, last))
            used += last - first
    return ranges


def recognise(
    text: str, focus: list[Span], claimed: SpanIndex, nlp: Language
) -> list[tuple[Span, str]]:
    """Entities (span in ``text``, label) the recogniser finds in windows around ``focus``."""
    if not focus or not has_recogniser(nlp):
        return []
    ranges = _windows(text, focus)
    if not ranges:
        return []
    # One call over the windows joined by blank lines; entities crossing a join are dropped.
    joiner = "\n\n"
    pieces, offsets, cursor = [], [], 0
    for start, end in ranges:
        offsets.append((cursor, start))
        pieces.append(text[start:end])
        cursor += end - start + len(joiner)
    with exclusive(nlp) as pipeline:
        doc = pipeline(joiner.join(pieces))
    found = []
    for ent in doc.ents:
        for (piece_start, text_start), piece in zip(offsets, pieces, strict=True):
            if piece_start <= ent.start_char and ent.end_char <= piece_start + len(piece):
                span = (
                    text_start + ent.start_char - piece_start,
                    text_start + ent.end_char - piece_start,
                )
                if not claimed.overlaps(span):
                    found.append((span, ent.label_))
                break
    return found
