"""Questions that ask for several things (issue 31): "which places has Ilse been to?",
"what activities does she do with the kids?", "how many times did we …?". Their answer is
told in parts, often in sessions months apart, and each part only moderately like the
question: such a question reads its rankings deeper (``several_depth``), so that the
normalised scores of ``fuse_scores`` are scaled against a lower floor and a part ranked
40th by one list and 20th by another can still rise into the first ten.

The test is English grammar, not any corpus's phrasings: a question word followed closely by
a plural ("which places", "what activities", "what are"), a perfect tense that gathers over
time ("where has she worked?"), or words that ask for a count or a list ("how many", "all
the", "every"). A false positive only reads deeper lists (which on the quality corpus moved
no other family).
"""

from __future__ import annotations

import re
from dataclasses import replace

from ._fusion import Fusion

# Ask for a count, a list or every instance, whatever follows.
_GATHERING = re.compile(
    r"\b(how many|how often|all the|all of the|every|each time|what kinds|what sorts|"
    r"what types|which kinds|which sorts|which types|list|name all)\b",
    re.IGNORECASE,
)
_QUESTION_WORDS = frozenset({"which", "what", "where", "who"})
# Only these are followed by the noun they ask about ("which places"); after "who" or
# "where" a word in -s is a verb ("who teaches …").
_DETERMINERS = frozenset({"which", "what"})
# A question word followed at once by one of these asks about several, or about what
# built up over time: "what are …", "who were …", "where has she been", "what have I …".
_PLURAL_OR_PERFECT = frozenset({"are", "were", "have", "has"})
# An auxiliary ends the question word's phrase: "what does …" asks about one thing unless
# a plural came first ("what activities does …").
_AUXILIARIES = frozenset(
    {"do", "does", "did", "is", "was", "will", "would", "can", "could", "should", "might"}
)
_IRREGULAR_PLURALS = frozenset({"children", "people", "men", "women", "feet", "teeth", "mice"})
# Words ending in -s that are no plurals.
_NOT_PLURALS = frozenset(
    {"this", "his", "its", "us", "yes", "as", "thus", "always", "sometimes", "perhaps",
     "news", "series", "species", "whereas", "lens", "bus", "gas", "less", "unless",
     "across", "process", "business"}
)  # fmt: skip
_TOKEN = re.compile(r"[A-Za-z][A-Za-z'’-]*")
# How many words after the question word its phrase may run: "which European cities".
_PHRASE_WORDS = 3


def asks_for_several(query: str) -> bool:
    """Whether ``query`` asks for several things (a list, a count, all the times)."""
    if _GATHERING.search(query):
        return True
    tokens = _TOKEN.findall(query)
    lowered = [token.lower() for token in tokens]
    start = next((i for i, word in enumerate(lowered) if word in _QUESTION_WORDS), None)
    if start is None:
        return False
    phrase = list(zip(tokens, lowered, strict=True))[start + 1 : start + 1 + _PHRASE_WORDS]
    if phrase and phrase[0][1] in _PLURAL_OR_PERFECT:
        return True
    if lowered[start] not in _DETERMINERS:
        return False
    for token, word in phrase:
        if word in _AUXILIARIES:
            return False
        # A capitalised word is a name ("Clemens", "Paris"), whatever its last letter.
        if _plural(word) and not token[:1].isupper():
            return True
    return False


def _plural(word: str) -> bool:
    if word in _IRREGULAR_PLURALS:
        return True
    if word in _NOT_PLURALS or "'" in word or "’" in word or len(word) < 4:
        return False
    return word.endswith("s") and not word.endswith(("ss", "us", "is"))


def fusion_for(query: str, fusion: Fusion) -> Fusion:
    """``fusion``, reading its lists ``several_depth`` deep when ``query`` asks for several
    things (and the fusion says to)."""
    if fusion.several_depth > fusion.min_depth and asks_for_several(query):
        return replace(fusion, min_depth=fusion.several_depth)
    return fusion
