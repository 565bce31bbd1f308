"""Which stored facts a question needs, and how many topics that is (Facts-R).

The rule, deliberately narrow (seeds/001 §5.1.5: Facts-R counted irrelevant facts):

1. **Query terms** are the question's words, lower-cased and singular, with synonyms
   folded (``e-mail`` -> ``email``, ``born`` -> ``birthday``, ``colour`` -> ``color``),
   minus stop words, rank phrases (``#1``, ``number one``, ``top 3``, ``second``) and
   the structural words ``favorite`` / ``top`` / ``list`` / ``rank`` — "what's my
   favorite crypto" asks about crypto, not about every favourite.
2. **Topic terms** of a fact are the words of its topic (``fact_topic``: a ranked list's
   key without the rank), split on ``. _ - @ / :``, minus ``user``, ``favorites``,
   ``mentioned`` and bare numbers.
3. A fact is **relevant** when a query term is one of its topic terms, or when its whole
   value (a letter in it, not a stop word) appears in the question as a phrase ("where
   does BTC rank?" finds ``user.favorites.crypto.1 = BTC``).
4. A ranked list is relevant **as a whole**: one relevant item brings every item of the
   list, because an answer about a ranking needs the ranking.
5. **Count** = distinct topics among the relevant facts: a list of ten items is one;
   facts that matched nothing never count, whatever the project holds; an empty
   question, or one of stop words only ("what do you know?"), selects nothing.

Pure and linear in the number of facts; topic terms are cached per key.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from .keys import fact_topic
from .ranked_patterns import NUMBER_WORDS, ORDINAL_WORDS
from .text import singularize, word_set
from .topics import WORD_ALIASES

_QUERY_WORD = re.compile(r"[^\W_]+(?:['\u2019-][^\W_]+)*")
_RANK_PHRASE = re.compile(
    r"#\d+|\bnumber\s+(?:\d+|" + "|".join(NUMBER_WORDS) + r")\b|\bno\.\s?\d+|\btop\s+\d+\b"
    r"|\b(?:" + "|".join(ORDINAL_WORDS) + r"|\d+(?:st|nd|rd|th))\b",
    re.IGNORECASE,
)
_STRUCTURAL = word_set(
    """favorite favourite fave fav top list rank ranking ranked user mentioned mention"""
)
_STOP = word_set(
    """a about above after again all also am an and any are as at be been before being
    below between both but by can could did do does doing done down during each else
    ever few for from further get got had has have having he her here hers herself him
    himself his how i if in into is it its itself just know let like me mine more most
    much must my myself no nor not now of off on once one only or other our ours
    ourselves out over own please really remember said same say she should show so some
    such tell than that the their theirs them themselves then there these they thing
    things think this those through to too under until up us very want was we were what
    when where which while who whom why will with would you your yours yourself
    yourselves right whats what's up ok okay thanks"""
)
# fmt: off
_SYNONYMS = {
    "e-mail": "email", "mail": "email", "site": "website", "homepage": "website",
    "webpage": "website", "born": "birthday", "birth": "birthday", "live": "location",
    "lives": "location", "living": "location", "weigh": "weight", "tall": "height",
    "old": "age", "job": "employer", "cryptocurrency": "crypto",
}
# fmt: on
_KEY_SPLIT = re.compile(r"[._@/:\-]+")
_KEY_STRUCTURAL = frozenset({"user", "favorite", "mentioned"})


@dataclass(frozen=True, slots=True)
class RelevanceResult:
    """``indices``: positions of the relevant facts in the input, ascending; ``topics``:
    their distinct topics (``fact_topic``), sorted; ``topic_count`` is Facts-R."""

    indices: tuple[int, ...]
    topics: tuple[str, ...]

    @property
    def topic_count(self) -> int:
        return len(self.topics)


def _norm(word: str) -> str:
    word = word.casefold().replace("\u2019", "'")
    word = _SYNONYMS.get(word, word)
    word = singularize(word) if word.isalpha() else word
    return WORD_ALIASES.get(word, _SYNONYMS.get(word, word))


def query_terms(query: str) -> frozenset[str]:
    stripped = _RANK_PHRASE.sub(" ", query)
    terms = set()
    for match in _QUERY_WORD.finditer(stripped):
        raw = match.group().casefold().replace("\u2019", "'")
        if raw in _STOP or raw in _STRUCTURAL:
            continue
        term = _norm(raw)
        if term not in _STOP and term not in _STRUCTURAL and len(term) > 1:
            terms.add(term)
    return frozenset(terms)


@lru_cache(maxsize=16384)
def topic_terms(key: str) -> frozenset[str]:
    words = (_norm(part) for part in _KEY_SPLIT.split(fact_topic(key)) for part in part.split("_"))
    return frozenset(
        w for w in words if w and not w.isdigit() and w not in _KEY_STRUCTURAL and len(w) > 1
    )


def _value_in_query(value: str, query_folded: str) -> bool:
    folded = value.casefold().strip()
    if len(folded) < 2 or folded in _STOP or not any(c.isalpha() for c in folded):
        return False
    if folded not in query_folded:
        return False
    return re.search(rf"(?<!\w){re.escape(folded)}(?!\w)", query_folded) is not None


def select_relevant_facts(query: str, facts: Sequence[tuple[str, str]]) -> RelevanceResult:
    """The facts (given as ``(key, value)``) relevant to ``query``, by the rule above."""
    terms = query_terms(query)
    folded = query.casefold()
    topics = [_topic_of(key) for key, _ in facts]
    relevant_topics: set[str] = set()
    for (key, value), topic in zip(facts, topics, strict=True):
        if topic in relevant_topics:
            continue  # one item already brought its whole list
        if (terms and not terms.isdisjoint(topic_terms(key))) or _value_in_query(value, folded):
            relevant_topics.add(topic)
    indices = tuple(i for i, topic in enumerate(topics) if topic in relevant_topics)
    return RelevanceResult(indices=indices, topics=tuple(sorted(relevant_topics)))


@lru_cache(maxsize=16384)
def _topic_of(key: str) -> str:
    return fact_topic(key)
