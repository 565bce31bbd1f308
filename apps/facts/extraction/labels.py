"""Reading the label in front of a value: "my *exam* is on …", "the *budget* is …".

The label decides the key (``keys.py``); no label means a bare mention.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .text import APOS, is_assertion, slugify, word_set

_LOOKBACK = 80
_LABEL_WORD = rf"[^\W\d_][\w{APOS[1:-1]}-]*"
_LABEL_BEFORE = re.compile(
    rf"\b(?P<owner>my|our|the)\s+(?P<label>{_LABEL_WORD}(?:\s+{_LABEL_WORD}){{0,2}})\s*"
    rf"(?:\s(?:is|was|will\s+be|falls\s+on|is\s+set\s+for)\b|{APOS}s\b|[:=])\s*"
    r"(?:(?:now|currently|still|actually|about|around|roughly|approximately|nearly|almost|"
    r"exactly|only|just|on|at|set\s+for|~)\s*)*$",
    re.IGNORECASE,
)
# Words that make a phrase something other than a label ("my favorite …" is a ranked
# list; "my friend's …" is someone else's).
_NOT_LABEL_WORDS = word_set(
    """favorite favourite fave fav favorites top best worst it this that these those a an
    the my your his her their our which what who i you we they he she one ones thing
    things stuff"""
)


@dataclass(frozen=True, slots=True)
class Label:
    slug: str
    mine: bool
    start: int


def label_before(text: str, value_start: int) -> Label | None:
    """The label of the value starting at ``value_start``, if the text states one.

    Only an assertion yields a label: "is my exam tomorrow?" mentions a date but does
    not state the exam's.
    """
    window_start = max(0, value_start - _LOOKBACK)
    match = _LABEL_BEFORE.search(text, window_start, value_start)
    if not match:
        return None
    words = match.group("label").casefold().replace("\u2019", "'").split()
    if any(w in _NOT_LABEL_WORDS or w.endswith("'s") or w.startswith("#") for w in words):
        return None
    if not is_assertion(text, match.start(), value_start):
        return None
    return Label(slugify(" ".join(words)), match.group("owner").lower() == "my", match.start())
