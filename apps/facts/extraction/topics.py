"""Topic names and topic resolution for ranked lists (seeds/001 §1.2.2).

A topic is a slug (``crypto``, ``ice_cream_flavor``). It is never guessed from the
shape of a value: "BTC" says nothing about which list it belongs to.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence

from .text import APOS, SpanIndex, mask, singularize, word_set
from .types import Span, TopicResolution

_WORD = rf"[^\W\d_][\w{APOS[1:-1]}-]*"
WORDS = rf"{_WORD}(?:\s+{_WORD}){{0,4}}"
_WORD_RE = re.compile(_WORD)

# Words that end a topic phrase: "my favorite crypto *right now* is …",
# "my favorite city *in* Europe", "my favorite crypto *is* …".
_TOPIC_STOP = word_set(
    """is are was were be been being am 's s would will has have had to for from in on at
    by with about than as of and or but so because since though while right now
    currently today these days ever all time far overall at the a an this that my your
    our i you list lists ranking rankings pick picks choice choices one ones ever also
    too really definitely probably actually still just"""
)
# Leading words that qualify rather than name a topic ("my all-time favorite …").
_TOPIC_LEADING_NOISE = word_set(
    """favorite favourite favorites favourites fave faves fav favs top new current all-time
    absolute very personal own"""
)
# "kind of music" names music, not kind.
_OF_HEADS = frozenset(
    ["kind", "kinds", "type", "types", "sort", "sorts", "flavor", "flavors", "flavour", "flavours"]
)
# Too vague to be a list of their own ("my favorite thing about Paris …").
_VAGUE = word_set(
    """thing things stuff part parts bit way one kind type sort aspect moment item option
    choice pick answer reason example time lot"""
)
WORD_ALIASES = {"colour": "color", "cryptocurrency": "crypto", "cryptocoin": "crypto"}
# fmt: off
_PHRASE_ALIASES = {
    "crypto_currency": "crypto", "crypto_coin": "crypto", "tv_show": "tv", "tv_series": "tv",
    "television": "tv", "television_show": "tv",
}
# fmt: on
# seeds/001 §1.2.2 step 4: only obvious nouns, each mapped to its topic.
# fmt: off
KEYWORD_TOPICS = {
    "crypto": "crypto", "cryptos": "crypto", "cryptocurrency": "crypto",
    "cryptocurrencies": "crypto", "color": "color", "colors": "color", "colour": "color",
    "colours": "color", "candy": "candy", "candies": "candy", "pie": "pie", "pies": "pie",
    "tv": "tv", "food": "food", "foods": "food", "textile": "textile", "textiles": "textile",
}
# fmt: on
_KEYWORD_RE = re.compile(r"\b(" + "|".join(sorted(KEYWORD_TOPICS, key=len, reverse=True)) + r")\b")

MAX_TOPIC_WORDS = 3


_TOPICLESS = frozenset(["pick", "picks", "choice", "choices", "one", "ones"])


def read_topic(raw: str | None) -> tuple[bool, str | None, int]:
    """Read the topic a phrase names: ``(usable, topic, characters of raw it used)``.

    "cryptos right now" -> ``(True, "crypto", 7)``; "kind of music" -> ``(True, "music",
    13)``; "ice cream flavors" -> ``(True, "ice_cream_flavor", 17)``; "pick" -> ``(True,
    None, 4)`` (a rank without a topic); "thing about Paris" -> ``(False, None, 0)``: a
    vague topic makes the whole statement unusable ("my favorite thing about Paris is
    the food" is not a ranked list).
    """
    if not raw:
        return True, None, 0
    words = [(m.group().casefold().replace("\u2019", "'"), m.end()) for m in _WORD_RE.finditer(raw)]
    while words and words[0][0] in _TOPIC_LEADING_NOISE:
        words = words[1:]
    if len(words) >= 3 and words[0][0] in _OF_HEADS and words[1][0] == "of":
        words = words[2:]
    kept: list[tuple[str, int]] = []
    for word, end in words:
        if word in _TOPIC_STOP or word.endswith("'s"):
            break
        kept.append((word, end))
    if not kept:
        if words and words[0][0] in _TOPICLESS:
            return True, None, words[0][1]
        return (not words or words[0][0] in _TOPIC_STOP), None, 0
    if len(kept) > MAX_TOPIC_WORDS:
        return False, None, 0
    names = [w for w, _ in kept]
    names[-1] = singularize(names[-1])
    names = [WORD_ALIASES.get(w, w) for w in names]
    if names[-1] in _VAGUE or names[-1] in _TOPICLESS:
        return names[-1] in _TOPICLESS and len(names) == 1, None, kept[-1][1]
    slug = "_".join(w.replace("'", "").replace("-", "_") for w in names)
    return True, _PHRASE_ALIASES.get(slug, slug), kept[-1][1]


def normalize_topic(raw: str | None) -> str | None:
    """The topic slug a phrase names, or ``None`` ("colours" -> ``color``)."""
    return read_topic(raw)[1]


# The topic words are read in a look-ahead, so one phrase never swallows the next
# ("my favorite pies and my favorite candies" names two topics).
_FAV_PHRASE = re.compile(rf"\b(?:favou?rites?|faves?|favs?)\s+(?=(?P<words>{WORDS}))", re.I)
_TOP_PHRASE = re.compile(
    rf"\btop\s+(?:\d{{1,2}}\s+|(?:two|three|four|five|ten)\s+)?(?=(?P<words>{WORDS}))", re.I
)
_LIST_PHRASE = re.compile(
    rf"\b(?:my|the|our)\s+(?P<words>{_WORD}(?:\s+{_WORD}){{0,2}}?)\s+(?:list|ranking|rankings)\b",
    re.I,
)


def find_topic_phrases(text: str) -> list[tuple[str, Span]]:
    """Every phrase that names a list: "favorite X", "top 3 X", "my X list"."""
    found: list[tuple[str, Span]] = []
    for pattern in (_FAV_PHRASE, _TOP_PHRASE, _LIST_PHRASE):
        for match in pattern.finditer(text):
            usable, topic, used = read_topic(match.group("words"))
            if usable and topic:
                end = max(match.end(), match.start("words") + used)
                found.append((topic, (match.start(), end)))
    found.sort(key=lambda item: item[1])
    return found


# Topics are few per project but every message of a turn checks them all, and with
# hundreds of lists `re`'s own cache (512 patterns) would recompile them every time.
_TOPIC_CACHE_SIZE = 8192


@functools.lru_cache(maxsize=_TOPIC_CACHE_SIZE)
def _mention_pattern(topic: str) -> re.Pattern[str]:
    parts = [re.escape(p) for p in topic.split("_")]
    parts[-1] = parts[-1] + r"(?:s|es)?"
    if topic.endswith("y"):
        parts[-1] = f"(?:{parts[-1]}|{re.escape(topic.split('_')[-1][:-1])}ies)"
    return re.compile(r"\b" + r"[\s_-]+".join(parts) + r"\b", re.I)


def _mentions(text: str, topic: str) -> bool:
    """Whether ``text`` names ``topic`` as words, singular or plural ("tv_show" ~ "TV shows")."""
    return _mention_pattern(topic).search(text) is not None


def resolve_topic(
    text: str,
    *,
    explicit_topic: str | None = None,
    existing_topics: Sequence[str] = (),
    recent_topic: str | None = None,
    ignore_spans: Iterable[Span] = (),
) -> TopicResolution:
    """Which ranked list a message means, in the strict order of seeds/001 §1.2.2.

    1. **Explicit**: ``explicit_topic`` (the statement's own, or the user's answer to a
       clarifying question), else the one topic the message names with a phrase such as
       "favorite X" / "top 3 X" / "my X list". Two different named topics are ambiguous.
    2. **Anchored**: the one existing list the message mentions by name ("crypto",
       "cryptos"). Several mentioned lists are ambiguous between them.
    3. **Recent**: ``recent_topic``, the list the caller knows was updated last in this
       conversation; or the project's only list, which is trivially the recent one. With
       two or more lists and no ``recent_topic`` recency says nothing (the bug seeds/001
       §5.1.3 describes), so resolution goes on.
    4. **Keyword**: one of the obvious nouns of ``KEYWORD_TOPICS`` in the message.

    If none answers, the project's lists (two or more) are the ambiguous candidates; a
    project without lists leaves the topic unresolvable. ``ignore_spans`` are blanked
    first: other statements' values and heads, so that "pecan pie" as a value does not
    name the topic ``pie``.
    """
    # Stored topics are returned exactly as stored, so a manually created list
    # ("colors") keeps receiving its items; they are matched by their canonical form.
    by_canonical: dict[str, str] = {}
    for stored in existing_topics:
        if stored:
            by_canonical.setdefault(normalize_topic_slug(stored) or stored, stored)
    existing = sorted(by_canonical.values())

    def canonical(topic: str) -> str:
        return by_canonical.get(topic, topic)

    if explicit_topic:
        topic = normalize_topic_slug(explicit_topic)
        if topic:
            return TopicResolution(canonical(topic), (), "explicit")
    ignored = list(ignore_spans)
    masked = mask(text, ignored)
    # Phrases are read in the real text (blanking a value could glue the words around
    # it into a phrase) and dropped when they touch an ignored span.
    index = SpanIndex(ignored)
    named = sorted(
        {canonical(topic) for topic, span in find_topic_phrases(text) if not index.overlaps(span)}
    )
    if len(named) == 1:
        return TopicResolution(named[0], (), "explicit")
    if len(named) > 1:
        return TopicResolution(None, tuple(named))

    anchored = sorted(
        {
            stored
            for canonical_form, stored in by_canonical.items()
            if _mentions(masked, canonical_form) or _mentions(masked, stored)
        }
    )
    if len(anchored) == 1:
        return TopicResolution(anchored[0], (), "anchored")
    if len(anchored) > 1:
        return TopicResolution(None, tuple(anchored))

    recent = normalize_topic_slug(recent_topic) if recent_topic else None
    if recent:
        return TopicResolution(canonical(recent), (), "recent")
    if len(existing) == 1:
        return TopicResolution(existing[0], (), "recent")

    lowered = masked.lower()
    keywords = sorted(
        {canonical(KEYWORD_TOPICS[m.group(1)]) for m in _KEYWORD_RE.finditer(lowered)}
    )
    if len(keywords) == 1:
        return TopicResolution(keywords[0], (), "keyword")
    if len(keywords) > 1:
        return TopicResolution(None, tuple(keywords))

    if len(existing) > 1:
        return TopicResolution(None, tuple(existing))
    return TopicResolution(None)


@functools.lru_cache(maxsize=_TOPIC_CACHE_SIZE)
def normalize_topic_slug(topic: str | None) -> str | None:
    """A stored or user-given topic in canonical form ("Cryptos" -> ``crypto``); cached,
    as every stored topic of a project is normalised for each message."""
    if not topic:
        return None
    return normalize_topic(topic.replace("_", " "))
