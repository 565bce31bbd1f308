"""Small text helpers shared by the extractors: words, slugs, sentences, spans."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from functools import lru_cache

from .types import Span


def word_set(text: str) -> frozenset[str]:
    """The white-space separated words of ``text``: how word lists are written here."""
    return frozenset(text.split())


# Apostrophes as typed on phones and desktops alike.
APOS = "['\u2019]"

_SLUG_JUNK = re.compile(r"[^\w]+")
# fmt: off
_IRREGULAR_PLURALS = {
    "people": "person", "men": "man", "women": "woman", "children": "child", "mice": "mouse",
    "geese": "goose", "teeth": "tooth", "feet": "foot",
}
# fmt: on
# Words ending in "s" that are not plurals, or whose singular the rules below would mangle.
_KEEP_AS_IS = word_set(
    """news series species physics mathematics maths economics politics chess glasses jeans
    pants shorts clothes sports bus gas yes this is was has his its us lens always
    tennis analysis basis thesis crisis status campus virus bonus plus"""
)
_IES_TO_IE = word_set(
    """movies cookies pies ties lies zombies calories smoothies rookies brownies selfies
    goalies hoodies aussies"""
)
_ES_PLURAL_ENDINGS = ("ches", "shes", "sses", "xes", "zes", "oes")
_OES_KEEP_E = frozenset(["shoes", "toes", "canoes", "horseshoes"])


def singularize(word: str) -> str:
    """The singular of an English noun, by rule; good enough for topic names.

    Deterministic and dictionary-free on purpose: "cryptos" -> "crypto", "candies" ->
    "candy", "pies" -> "pie", "boxes" -> "box"; unknown shapes are left alone.
    """
    lower = word.lower()
    if lower in _IRREGULAR_PLURALS:
        return _IRREGULAR_PLURALS[lower]
    if lower in _KEEP_AS_IS or len(lower) <= 3 or not lower.endswith("s"):
        return lower
    if lower.endswith("ies"):
        return lower[:-1] if lower in _IES_TO_IE else lower[:-3] + "y"
    if lower.endswith(_ES_PLURAL_ENDINGS) and lower not in _OES_KEEP_E:
        return lower[:-2]
    if lower.endswith(("ss", "us", "is")):
        return lower
    return lower[:-1]


def slugify(text: str) -> str:
    """Lower-case words joined by ``_``: the form used inside fact keys.

    Any script's letters and digits survive (``\\w``), so a key stays readable for
    non-English input; dots never appear, so keys split cleanly on ``.``.
    """
    return _SLUG_JUNK.sub("_", text.casefold()).strip("_")


def overlaps(span: Span, claimed: Iterable[Span]) -> bool:
    start, end = span
    return any(start < c_end and c_start < end for c_start, c_end in claimed)


class SpanIndex:
    """Spans already claimed by an earlier step, merged and sorted, so that checking a
    new span is a binary search: a 20,000-character message can hold thousands."""

    def __init__(self, spans: Iterable[Span] = ()) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []
        for span in spans:
            self.add(span)

    def add(self, span: Span) -> None:
        start, end = span
        if end <= start:
            return
        i = bisect_left(self._ends, start)  # first interval that ends at or after start
        j = i
        while j < len(self._starts) and self._starts[j] <= end:
            start, end = min(start, self._starts[j]), max(end, self._ends[j])
            j += 1
        self._starts[i:j] = [start]
        self._ends[i:j] = [end]

    def extend(self, spans: Iterable[Span]) -> None:
        for span in spans:
            self.add(span)

    def overlaps(self, span: Span) -> bool:
        start, end = span
        i = bisect_right(self._ends, start)  # first interval ending after start
        return i < len(self._starts) and self._starts[i] < end

    def __iter__(self) -> Iterator[Span]:
        return iter(zip(self._starts, self._ends, strict=True))


# A sentence ends at ! ? or newline, or at a full stop followed by white space or the end
# (so "3.5", "node.js" and "x@y.io" do not end one).
_SENTENCE_END = re.compile(r"[!?\n]|\.(?=\s|$)")


_SENTENCE_REACH = 400


# A full stop after these ends no sentence ("Dr. Smith", "e.g. BTC").
_ABBREVIATIONS = word_set("dr mr mrs ms prof st jr sr vs etc e.g i.e approx dept no")
_WORD_BEFORE = re.compile(r"([\w.]{1,6})$")


@lru_cache(maxsize=8)
def _sentence_ends(text: str) -> list[int]:
    # Computed once per text (extraction asks for many sentences of the same message).
    ends = []
    for match in _SENTENCE_END.finditer(text):
        pos = match.start()
        if text[pos] == ".":
            before = _WORD_BEFORE.search(text, max(0, pos - 6), pos)
            if before and before.group(1).casefold() in _ABBREVIATIONS:
                continue
        ends.append(pos)
    return ends


def sentence_bounds(text: str, start: int, end: int | None = None) -> Span:
    """The sentence around ``text[start:end]``: from after the previous end mark to the
    next, looking at most ``_SENTENCE_REACH`` characters either way (a text without
    punctuation must not make every look-up read all of it)."""
    end = start if end is None else end
    ends = _sentence_ends(text)
    i = bisect_left(ends, start)
    before = ends[i - 1] + 1 if i > 0 else 0
    j = bisect_left(ends, end)
    after = ends[j] if j < len(ends) else len(text)
    return max(before, start - _SENTENCE_REACH), min(after, end + _SENTENCE_REACH)


_CONDITIONAL = re.compile(
    r"\b(?:if|whether|unless|suppose|supposing|imagine|assuming|hypothetically|what\s+if)\b",
    re.IGNORECASE,
)


def is_assertion(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is stated, not asked or supposed.

    A question ("is my #1 BTC?") or a condition ("if my #1 were BTC …") asserts nothing,
    so no fact should come of it.
    """
    s_start, s_end = sentence_bounds(text, start, end)
    if s_end < len(text) and text[s_end] == "?":
        return False
    return _CONDITIONAL.search(text, s_start, start) is None


def mask(text: str, spans: Iterable[Span]) -> str:
    """``text`` with each span blanked out by spaces, so offsets stay valid."""
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)
