"""Memory units (issue 31): the statements a chat turn makes, one sentence each, told in
the third person of whoever said them — "Ingrid: I took my two to the pottery class, they
loved it." gives "Ingrid took Ingrid's two to the pottery class, they loved it." Search
ranks them beside the turns, each counted for the turn it came from (``search._units``):
the benchmark paper's "observations", read by rules, with no model but the embedder.

A unit is a sentence that states something: not a question, not a greeting or a filler
("Good for you!", "Same here, honestly."), which hold fewer than ``MIN_CONTENT_WORDS``
words that are not everyday ones. First-person words are rewritten to the speaker's name
only where a transcript says who speaks (``mentions.speaker_of``); the user's own turns
keep theirs, as the user asks of them ("what did I …").
"""

from __future__ import annotations

import re
import threading
from typing import TYPE_CHECKING

from apps.core.words import name_stop_words

from .mentions import unheaded

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Span

MIN_CONTENT_WORDS = 3
MAX_UNITS = 12  # of one passage: a pasted page is a document, not a turn's statements
MAX_UNIT_CHARS = 400

# First-person words and what they become, the speaker's name standing for "{}".
_FIRST_PERSON = {
    "i": "{}",
    "me": "{}",
    "myself": "{}",
    "my": "{}'s",
    "mine": "{}'s",
}
# The verb after "I" as it agrees with a name.
_AGREEING = {"am": "is", "'m": "is", "’m": "is", "'ve": "has", "’ve": "has", "have": "has"}
_CONTENT = re.compile(r"[^\W\d_]{2,}")

_load_lock = threading.Lock()
_call_lock = threading.Lock()  # a pipeline's tokenizer keeps a cache: one caller at a time
_nlp: Language | None = None


def _pipeline() -> Language:
    """A blank English pipeline with the rule-based sentencizer: tokens and sentences,
    nothing statistical, loaded once per process."""
    global _nlp
    if _nlp is None:
        with _load_lock:
            if _nlp is None:
                import spacy  # on first use: importing spaCy costs seconds (``core.words``)

                nlp = spacy.blank("en")
                nlp.add_pipe("sentencizer")
                _nlp = nlp
    return _nlp


def units_of(text: str, *, speaker: str | None) -> list[str]:
    """The statements of a chat passage, in order, each rewritten to ``speaker`` (who said
    it, a transcript's ``speaker_of``) when given."""
    body = unheaded(text) if speaker else text
    with _call_lock:
        doc = _pipeline()(body[: MAX_UNITS * MAX_UNIT_CHARS])
    units: list[str] = []
    for sentence in doc.sents:
        said = sentence.text.strip()
        if not _states(said):
            continue
        unit = _told_by(sentence, speaker) if speaker else said
        units.append(unit[:MAX_UNIT_CHARS])
        if len(units) == MAX_UNITS:
            break
    return units


def _states(sentence: str) -> bool:
    """Whether a sentence states something: not a question, and enough of its words are
    not everyday ones."""
    if not sentence or sentence.rstrip("\"'”’) ").endswith("?"):
        return False
    content = [w for w in _CONTENT.findall(sentence) if w.casefold() not in name_stop_words()]
    return len(content) >= MIN_CONTENT_WORDS


def _told_by(sentence: Span, speaker: str) -> str:
    """``sentence`` with its first-person words replaced by ``speaker``'s name."""
    parts: list[str] = []
    after_i = False
    for token in sentence:
        lower = token.lower_
        if lower in _FIRST_PERSON:
            word = _FIRST_PERSON[lower].format(speaker)
            after_i = lower == "i"
        elif after_i and lower in _AGREEING:
            word = _AGREEING[lower]
            after_i = False
            if not parts or not token.text[:1].isalpha():
                parts.append(" ")  # "I'm" is two tokens with no space between
        else:
            word = token.text
            after_i = False
        parts.append(word + token.whitespace_)
    return "".join(parts).strip()
