"""Cutting a clean value out of free text: "my #4 is actually FIL" -> ``FIL``.

seeds/001 §5.1.2: values such as "is actually FIL" or "and FIL at" were stored because a
pattern captured whatever followed a rank. Here every value goes through one cleaner
that works on offsets, so the value's span in the message stays exact.
"""

from __future__ import annotations

import re
import unicodedata

from .text import APOS, word_set
from .types import Span, ValueType

MAX_VALUE_WORDS = 6
_SCAN_LIMIT = 160

_QUOTES = {'"': '"', "\u201c": "\u201d", "\u2018": "\u2019", "'": "'", "\u00ab": "\u00bb"}
# A value ends at clause punctuation. A full stop ends it only before white space or the
# end, so "3.14", "node.js" and "Dr.Pepper" survive.
_VALUE_END = re.compile(r"[,;!?()\[\]{}\n\u2014\u2013]|\.(?=\s|$)|\s-\s|\s@|\s\"")

_FILLERS = (
    r"actually|now|definitely|def|probably|prob|still|currently|really|totally|obviously|"
    r"honestly|clearly|surely|certainly|undoubtedly|absolutely|officially|easily|basically|"
    r"literally|always|also|then|tbh|imo|imho|by\s+far|for\s+sure|of\s+course|"
    r"without\s+a\s+doubt|hands\s+down|no\s+doubt"
)
_LEADING_FILLER = re.compile(rf"^(?:{_FILLERS})\b[\s,:]*", re.IGNORECASE)
_TRAILING_FILLER = re.compile(
    rf"[\s,]+(?:{_FILLERS}|too|though|anyway|instead|again|lol|haha|btw|i\s+think|i\s+guess|"
    rf"i\s+suppose|i\s+believe|i\s+reckon|for\s+now|right\s+now|these\s+days|nowadays|"
    rf"at\s+the\s+moment|atm|overall|of\s+all\s+time|ever|as\s+well|on\s+my\s+list|"
    rf"in\s+my\s+list|in\s+my\s+ranking)$",
    re.IGNORECASE,
)
# Lower-case articles go ("the apple pie" -> "apple pie"); a capitalised one is part of
# a name ("The Beatles") and stays.
_LEADING_ARTICLE = re.compile(r"^(?:a|an|the)\s+")
# Words that end a value when more words follow: "BTC because it is sound money".
_CLAUSE_CUT = re.compile(
    r"\s+(?:because|cause|cuz|since|though|although|while|whereas|unless|if|when|which|"
    r"who|where|so\s+that|but|until)\s+\S",
    re.IGNORECASE,
)
# Words that start a new clause: a value stops before them (or before the "and" that
# joins that clause): "BTC and ETH is my #2" -> "BTC".
_CLAUSE_MARKER = re.compile(
    rf"\b(?:my|i|i{APOS}(?:m|ve|d|ll)|it|it{APOS}s|is|are|was|were|will|would|we|you|he|she|"
    rf"they|make|put|set|move|then|also|plus)\b|#\d|\bnumber\s+(?:\d|one|two|three|four|five)\b",
    re.IGNORECASE,
)
_JOINER = re.compile(r"\s+(?:and|&|but)\s+", re.IGNORECASE)
_NOT_A_VALUE = word_set(
    """it this that these those mine yours his hers ours theirs one what which who whom
    whose why how something anything everything nothing none whatever whichever same
    unknown sure is are was were be i me my you we they he she him her them us there
    here not no never yes ok okay make put set move favorite favourite fave top"""
)
_NEGATION = re.compile(rf"^(?:not|no\s+longer|never|no|isn{APOS}t)\b", re.IGNORECASE)
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?$")
_KEEP_TRAILING = "+#"


def _is_symbol(char: str) -> bool:
    """Punctuation, emoji and joiners around a value are not part of it."""
    if char.isalnum():
        return False
    return unicodedata.category(char)[0] in "PSZC" or char in "\u200d\ufe0f"


def value_type_of(value: str) -> ValueType:
    return "number" if _NUMBER.match(value) else "string"


def quoted_value(text: str, start: int) -> tuple[str, Span] | None:
    """A value in quotes at ``text[start]``, taken verbatim (quotes protect "Now You See Me")."""
    if start >= len(text) or text[start] not in _QUOTES:
        return None
    close = text.find(_QUOTES[text[start]], start + 1, start + 120)
    if close == -1 or "\n" in text[start:close]:
        return None
    inner_start, inner_end = start + 1, close
    while inner_start < inner_end and text[inner_start].isspace():
        inner_start += 1
    while inner_end > inner_start and text[inner_end - 1].isspace():
        inner_end -= 1
    if inner_end == inner_start:
        return None
    return text[inner_start:inner_end], (inner_start, inner_end)


def value_region_end(text: str, start: int) -> int:
    """Where a free-text value starting at ``start`` must stop at the latest."""
    limit = min(len(text), start + _SCAN_LIMIT)
    match = _VALUE_END.search(text, start, limit)
    return match.start() if match else limit


def clean_span(text: str, start: int, end: int, *, allow_clause_cut: bool = True) -> Span | None:
    """Trim ``text[start:end]`` to the value it holds, or ``None`` if it holds none."""
    a, b = start, end
    for _ in range(8):  # bounded: each pass strips at least one thing or stops
        before = (a, b)
        while a < b and (text[a].isspace() or _is_symbol(text[a])):
            a += 1
        while b > a and (text[b - 1].isspace() or _is_symbol(text[b - 1])):
            if text[b - 1] in _KEEP_TRAILING and b - 2 >= a and text[b - 2].isalnum():
                break
            if text[b - 1] in _KEEP_TRAILING and b - 2 >= a and text[b - 2] in _KEEP_TRAILING:
                break
            b -= 1
        segment = text[a:b]
        if allow_clause_cut:
            cut = _CLAUSE_CUT.search(segment)
            if cut:
                b = a + cut.start()
                segment = text[a:b]
            first_word = re.match(r"\S+", segment)
            if first_word:
                marker = _CLAUSE_MARKER.search(segment, first_word.end())
                if marker:
                    joiners = list(_JOINER.finditer(segment, first_word.end(), marker.start()))
                    b = a + (joiners[-1].start() if joiners else marker.start())
                    segment = text[a:b]
        lead = _LEADING_FILLER.match(segment) or _LEADING_ARTICLE.match(segment)
        if lead and lead.end() < len(segment):
            a += lead.end()
            segment = text[a:b]
        trail = _TRAILING_FILLER.search(segment)
        if trail and trail.start() > 0:
            b = a + trail.start()
        if (a, b) == before:
            break
    if a >= b:
        return None
    return (a, b) if is_acceptable(text[a:b]) else None


_ONLY_FILLER = re.compile(rf"^(?:{_FILLERS})$", re.IGNORECASE)


def is_acceptable(value: str) -> bool:
    words = value.split()
    if _ONLY_FILLER.match(value) or value in ("a", "an", "the"):
        return False
    if not words or len(words) > MAX_VALUE_WORDS:
        return False
    # "it", "that one", "whatever": a pronoun typed in lower case names nothing; a
    # capitalised one may start a title ("It Follows").
    if words[0].casefold() in _NOT_A_VALUE and (len(words) == 1 or words[0].islower()):
        return False
    if words[0].casefold() in {"is", "are", "was", "were", "and", "or", "but", "at", "to"}:
        return False
    if _NEGATION.match(value) or re.search(r"\s(?:or)\s", value, re.IGNORECASE):
        return False
    return any(char.isalnum() for char in value)


def value_after(text: str, start: int) -> tuple[str, Span] | None:
    """The value that follows a head ending at ``start`` ("my #1 is| actually FIL.")."""
    pos = start
    while pos < len(text) and text[pos] in " \t":
        pos += 1
    quoted = quoted_value(text, pos)
    if quoted:
        return quoted
    span = clean_span(text, pos, value_region_end(text, pos))
    return (text[span[0] : span[1]], span) if span else None


_MAX_BACK_WORDS = 4
# Words that end a value read backwards: "I think |BTC| is my #1".
_BACK_STOP = word_set(
    """and or but so because then now i i'm im think guess believe say said says know feel
    reckon suppose mean bet agree that well ok okay yes no also honestly actually
    definitely probably clearly obviously what which who why how when where whatever if
    though although while since is are was were my your his her their our to for btw
    anyway hey hi lol plus it this these those"""
)
_CLOSING_QUOTES = {'"': '"', "\u201d": "\u201c", "\u2019": "\u2018", "'": "'", "\u00bb": "\u00ab"}


def value_before(text: str, end: int) -> Span | None:
    """The value that ends just before ``end`` ("Honestly, |dark chocolate| is my #1")."""
    pos = end
    while pos > 0 and text[pos - 1] in " \t":
        pos -= 1
    if pos > 0 and text[pos - 1] in _CLOSING_QUOTES:
        opening = text.rfind(_CLOSING_QUOTES[text[pos - 1]], max(0, pos - 120), pos - 1)
        if opening != -1:
            quoted = quoted_value(text, opening)
            if quoted:
                return quoted[1]
    words: list[Span] = []
    i = pos
    while i > 0 and len(words) < _MAX_BACK_WORDS:
        j = i
        while j > 0 and not text[j - 1].isspace():
            j -= 1
        token = text[j:i]
        if not token or token[-1] in ".,;:!?)]}\u2014\u2013" or "@" in token or "#" in token:
            break
        if token.strip("\"'()[]").casefold().replace("\u2019", "'") in _BACK_STOP:
            break
        words.append((j, i))
        k = j
        while k > 0 and text[k - 1] in " \t":
            k -= 1
        if token[0] in '([{"\u201c' or k == 0 or text[k - 1] == "\n":
            break
        i = k
    if not words:
        return None
    return clean_span(text, words[-1][0], words[0][1], allow_clause_cut=False)
