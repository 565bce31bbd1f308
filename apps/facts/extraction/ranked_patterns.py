"""The regular expressions behind the ranked-list patterns of seeds/001 §1.2.1.

Each head pattern matches only up to where the value starts (or, for "value before",
from where it ends), so heads never swallow the next statement; values are cut by
``values.py``. Every repetition is bounded, so hostile input stays linear.
"""

from __future__ import annotations

import re

from .text import APOS
from .topics import WORDS

# fmt: off
NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10,
}
# fmt: on
# fmt: off
ORDINAL_WORDS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10,
}
# fmt: on
# A bare "#N" with no "my" around it is a rank only up to here; "#42" is a claim.
MAX_BARE_RANK = 20

_NUMWORD = "|".join(NUMBER_WORDS)
_ORDWORD = "|".join(ORDINAL_WORDS)
HASH = rf"(?:#\s?\d{{1,2}}(?!\d)|number\s+(?:\d{{1,2}}(?!\d)|{_NUMWORD})\b|no\.\s?\d{{1,2}}(?!\d))"
ORD = rf"(?:(?:{_ORDWORD})\b|\d{{1,2}}(?:st|nd|rd|th)\b)"
FAV = r"(?:favou?rites?|faves?|favs?)"
_MODIFIER = r"(?:(?:new|current|all[- ]time|absolute|very)\s+)?"
_COPULA = (
    rf"(?:\s+(?:is|are|would\s+be|has\s+to\s+be|will\s+be|remains)\b|\s*[:=]|{APOS}s\b|{APOS}re\b)"
)
_VERB_FILLER = (
    r"(?:(?:now|still|actually|definitely|officially|easily|clearly|probably|currently|also|"
    r"totally|really|always|officially)\s+){0,2}"
)
_TOPIC = rf"(?P<topic>{WORDS})"
_TOPIC_LAZY = r"(?P<topic>[^\W\d_][\w'\u2019-]*(?:\s+[^\W\d_][\w'\u2019-]*){0,3}?)"

# "my #1 crypto is", "my #1 favorite crypto is", "my favorite #1 is", "my #4 is",
# "my second favorite crypto is", "my number one crypto is".
VALUE_AFTER = re.compile(
    rf"\bmy\s+{_MODIFIER}(?:(?P<fav1>{FAV}|top)\s+)?(?P<rank>{HASH}|{ORD})"
    rf"(?:\s+(?P<fav2>{FAV}|pick|choice|one))?(?:\s+{_TOPIC_LAZY})??{_COPULA}",
    re.IGNORECASE,
)
# "#2 on my list is ETH", "#2 on my crypto list is ETH".
ON_LIST_AFTER = re.compile(
    rf"(?<![\w&/])(?P<rank>{HASH})\s+(?:on|in)\s+my\s+(?:{_TOPIC_LAZY}\s+)?"
    rf"(?:list|ranking|rankings)\b{_COPULA}",
    re.IGNORECASE,
)
# "BTC is my #1 (favorite) (crypto)", "Paris is my favorite city", "ETH is my second
# favorite". The value is read backwards from the start of the match.
VALUE_BEFORE = re.compile(
    rf"(?:\bis|{APOS}s|\bare)\s+{_VERB_FILLER}my\s+{_MODIFIER}(?P<fav1>{FAV}\b)?"
    rf"(?:\s*(?P<rank>{HASH}|{ORD}))?(?:\s+(?P<fav2>{FAV}|pick|choice))?(?:\s+{_TOPIC})?",
    re.IGNORECASE,
)
# "ETH is #2 on my list".
ON_LIST_BEFORE = re.compile(
    rf"(?:\bis|{APOS}s)\s+{_VERB_FILLER}(?P<rank>{HASH})\s+(?:on|in)\s+my\s+"
    rf"(?:{_TOPIC_LAZY}\s+)?(?:list|ranking|rankings)\b",
    re.IGNORECASE,
)
# "Make BTC my #1", "put ETH at #2", "move SOL to #3 on my list". The value holds none of
# the linking words, so "make sure to put BTC as my #1" reads "BTC", not "sure to put BTC".
_NOT_IN_MADE_VALUE = (
    r"\s(?:make|making|made|put|putting|set|move|moving|as|at|to|into|my|is|are|i)\b"
)
MAKE = re.compile(
    rf"\b(?:make|making|made|put|putting|set|move|moving)\s+"
    rf"(?P<value>[^\s#@.,;:!?()\[\]{{}}](?:(?!{_NOT_IN_MADE_VALUE})[^#@\n.,;:!?()\[\]{{}}]){{0,60}}?)"
    r"\s+(?:(?:as|at|to|into)\s+)?"
    rf"(?P<my>my\s+)?{_MODIFIER}(?:(?P<fav1>{FAV}|top)\s+)?(?P<rank>{HASH}|{ORD})"
    rf"(?:\s+(?P<fav2>{FAV}|pick|choice|one))?(?:\s+(?:on\s+my\s+)?{_TOPIC})?",
    re.IGNORECASE,
)
# "My favorite cryptos are XMR, BTC, XLM", "my top 3 X are A, B and C", "my favorite X
# is Y", "my favorites: A, B".
LIST_HEAD = re.compile(
    rf"\bmy\s+{_MODIFIER}(?:(?P<fav>{FAV})|top\s+(?P<count>\d{{1,2}}|{_NUMWORD})"
    rf"(?:\s+(?P<fav2>{FAV}))?|(?P<top>top))(?:\s+(?P<topic>[^\W\d_][\w'\u2019-]*"
    rf"(?:\s+[^\W\d_][\w'\u2019-]*){{0,4}}?))?"
    rf"(?:\s+(?:are|is|include|would\s+be|will\s+be|remain)\b|\s*[:=]|{APOS}s\b|{APOS}re\b)",
    re.IGNORECASE,
)
# "1) Blue, 2) Green", "#1: Blue", "3 - Red", and on a line's start "1. Blue". The
# number must open the text or a line or follow , ; : ( or "and", so "Chapter 1: Intro"
# is not an item. ``lead`` is that opening context.
ENUMERATED = re.compile(
    r"(?P<lead>^|[\n,;:(\u2014\u2013]|\band)[ \t]*(?P<rank>#?\d{1,2})(?!\d)"
    r"(?P<sep>\)|:(?=\s)|[ \t]+[-\u2013][ \t]|\.(?=[ \t]))",
    re.IGNORECASE,
)
# "first: Blue, second: Green", "first is Blue, second is Green".
ORDINAL_ENUMERATED = re.compile(
    rf"(?P<lead>^|[\n,;:(\u2014\u2013]|\band|\bthen)[ \t]*(?P<rank>{ORD})"
    rf"(?P<sep>[ \t]*(?::|[-\u2013=])|[ \t]+(?:is|would\s+be)\b)",
    re.IGNORECASE,
)
# "set my #1 to SOL", "change my #2 crypto to ADA".
SET_TO = re.compile(
    rf"\b(?:set|setting|change|changing|update|updating|switch|switching)\s+my\s+{_MODIFIER}"
    rf"(?:(?P<fav1>{FAV}|top)\s+)?(?P<rank>{HASH}|{ORD})(?:\s+(?P<fav2>{FAV}|pick|choice|one))?"
    rf"(?:\s+{_TOPIC_LAZY})??\s+(?:to|into|as)\b",
    re.IGNORECASE,
)
# "#1 XMR" — value must look like a ticker (seeds/001 Pattern 2b), case-sensitive.
BARE_HASH_TICKER = re.compile(
    r"(?<![\w&#/])(?P<rank>#\d{1,2})(?!\d)\s*[-:=]?\s*(?P<value>[A-Z][A-Z0-9]{1,5})(?![\w@])"
)
_NOT_TICKERS = frozenset(
    ["IS", "ARE", "THE", "AND", "OR", "ON", "IN", "MY", "OK", "TO", "OF", "AT", "IT", "AM", "BE"]
)
# "#2 is ETH" — only after a ranking cue (below), since "#3 is outdated" is a claim.
BARE_HASH_COPULA = re.compile(
    rf"(?<![\w&#/])(?P<rank>#\d{{1,2}})(?!\d)(?:\s+(?:is|will\s+be|would\s+be)\b|\s*[:=]|{APOS}s\b)",
    re.IGNORECASE,
)
RANKING_CUE = re.compile(
    rf"\b(?:{FAV}|top|rank(?:ing|ings|ed|s)?|preferences?|preferred)\b|\bmy\s+list\b",
    re.IGNORECASE,
)
# "BTC is no longer my #1": a ranked statement that denies; no fact comes of it, and its
# words are not read again (a refused value after a head is handled in ranked.py).
_NEGATION = rf"(?:not|no\s+longer|never|isn{APOS}t|aren{APOS}t)"
NEGATED_BEFORE = re.compile(
    rf"(?:\b(?:is|are)\s+{_NEGATION}|\b(?:isn|aren){APOS}t)\s+(?:my\s+)?{_MODIFIER}"
    rf"(?:{FAV}|top|{HASH}|{ORD})[^.!?,;\n]{{0,30}}",
    re.IGNORECASE,
)
# Rank markers that are ranks even where no fact comes of them ("what is my #1?").
RANK_CONTEXT = re.compile(
    rf"\bmy\s+{_MODIFIER}(?:{FAV}\s+|top\s+)?(?P<a>#\d{{1,2}})(?!\d)"
    rf"|(?<![\w&#/])(?P<b>#\d{{1,2}})(?!\d)\s+(?:(?:on|in)\s+my\b|{FAV}\b)",
    re.IGNORECASE,
)


def is_ticker(value: str) -> bool:
    return value not in _NOT_TICKERS


def parse_rank(marker: str) -> int | None:
    """1 for "#1", "# 1", "number one", "No. 1", "first", "1st", "1)"; else ``None``."""
    lowered = marker.casefold().strip()
    lowered = re.sub(r"^(?:#|number|no\.)\s*", "", lowered).rstrip(").:-\u2013 ")
    if lowered in NUMBER_WORDS:
        return NUMBER_WORDS[lowered]
    if lowered in ORDINAL_WORDS:
        return ORDINAL_WORDS[lowered]
    digits = re.match(r"^(\d{1,2})(?:st|nd|rd|th)?$", lowered)
    if digits:
        rank = int(digits.group(1))
        return rank if rank >= 1 else None
    return None


def is_ordinal(marker: str) -> bool:
    return re.fullmatch(ORD, marker.strip(), re.IGNORECASE) is not None
