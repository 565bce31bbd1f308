"""People, organisations and places: phrase rules first, then spaCy's recogniser.

Phrase rules ("my name is …", "I live in …", "I work at …", "my wife Anna") read the
capitalised words after the phrase, so they work with the rule-only fallback too. The
recogniser (``recogniser.py``) then finds bare PERSON / ORG / GPE mentions, skipping
anything already claimed (ranked lists first, seeds/001 §1.2.1).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from apps.core.words import name_stop_words

from .keys import mention_key
from .nlp import has_recogniser
from .recogniser import (
    CALENDAR_WORDS,
    NAME_WORD,
    NOT_NAMES,
    candidate_spans,
    recognise,
    sentence_start,
)
from .text import APOS, SpanIndex, is_assertion, overlaps, slugify
from .types import ExtractedFact, Span

if TYPE_CHECKING:
    from spacy.language import Language

_LABELS = {"PERSON": "person", "ORG": "org", "GPE": "place"}
# fmt: off
_RELATIONS = {
    "wife": "wife", "husband": "husband", "partner": "partner", "spouse": "spouse",
    "fiance": "fiance", "fiancé": "fiance", "fiancee": "fiancee", "fiancée": "fiancee",
    "boyfriend": "boyfriend", "girlfriend": "girlfriend", "mother": "mother", "mom": "mother",
    "mum": "mother", "father": "father", "dad": "father", "boss": "boss", "manager": "manager",
    "landlord": "landlord", "landlady": "landlady", "doctor": "doctor", "dentist": "dentist",
    "therapist": "therapist", "best friend": "best_friend",
}
# fmt: on
_REL = "|".join(sorted((r.replace(" ", r"\s+") for r in _RELATIONS), key=len, reverse=True))


@dataclass(frozen=True, slots=True)
class _Rule:
    pattern: re.Pattern[str]
    key: str  # "{rel}" is replaced by the relation's canonical name
    confirm: str | None = None  # a recogniser label the name must carry, when there is one


_I_AM = rf"(?:i{APOS}m|i\s+am)"


def _phrase(pattern: str) -> re.Pattern[str]:
    return re.compile(rf"\b(?:{pattern})\s+", re.IGNORECASE)


_RULES = (
    _Rule(_phrase(rf"my\s+name\s+is|my\s+name{APOS}s|call\s+me|{_I_AM}\s+called"), "user.name"),
    _Rule(
        _phrase(
            rf"i\s+(?:currently\s+|now\s+)?live\s+in|{_I_AM}\s+(?:currently\s+)?based\s+in"
            r"|i\s+(?:just\s+|recently\s+)?moved\s+to|i\s+reside\s+in"
        ),
        "user.location",
    ),
    _Rule(
        _phrase(
            rf"{_I_AM}\s+(?:originally\s+)?from|i\s+(?:originally\s+)?come\s+from"
            r"|i\s+grew\s+up\s+in"
        ),
        "user.origin",
    ),
    _Rule(
        _phrase(
            rf"i\s+(?:currently\s+|now\s+)?work\s+(?:at|for)"
            rf"|{_I_AM}\s+(?:working|employed)\s+(?:at|for|by)"
        ),
        "user.employer",
    ),
    _Rule(_phrase(rf"my\s+(?P<rel>{_REL}){APOS}s\s+name\s+is"), "user.relations.{rel}"),
    _Rule(
        _phrase(rf"my\s+(?P<rel>{_REL})\s+is(?:\s+called|\s+named)?"),
        "user.relations.{rel}",
        "PERSON",
    ),
    # The appositive "my wife Anna" / "my boss, Sarah," — the name must follow at once.
    _Rule(
        re.compile(rf"\bmy\s+(?P<rel>{_REL}),?\s+(?=[^\W\d_])", re.IGNORECASE),
        "user.relations.{rel}",
        "PERSON",
    ),
)
_PARTICLES = frozenset(
    ["de", "da", "del", "della", "der", "van", "von", "di", "du", "la", "le", "bin", "al", "y"]
)


def _read_name(text: str, start: int) -> Span | None:
    """Capitalised words from ``start``: "New York City", "the UK" -> "UK", "Anna," -> "Anna"."""
    pos, words = start, list[Span]()
    lead = re.match(r"the\s+", text[pos : pos + 4])
    if lead:
        pos += lead.end()
    for match in NAME_WORD.finditer(text, pos, min(len(text), pos + 80)):
        gap = text[(words[-1][1] if words else pos) : match.start()]
        if gap.strip() or len(words) >= 4:
            break
        word = match.group().rstrip(".")
        if not (word[:1].isupper() or (words and word in _PARTICLES)):
            break
        words.append((match.start(), match.start() + len(word)))
    while words and text[words[-1][0] : words[-1][1]] in _PARTICLES:
        words.pop()
    if not words or text[words[0][0] : words[-1][1]] in NOT_NAMES | CALENDAR_WORDS:
        return None
    return words[0][0], words[-1][1]


def _entity_fact(
    text: str, key: str, span: Span, statement: Span, confidence: float
) -> ExtractedFact:
    return ExtractedFact(
        key=key,
        value=text[span[0] : span[1]],
        value_type="string",
        kind="entity",
        topic=None,
        rank=None,
        span=statement,
        confidence=confidence,
        value_span=span,
    )


def find_entity_phrases(text: str, claimed: SpanIndex, nlp: Language) -> list[ExtractedFact]:
    facts: list[ExtractedFact] = []
    pending_confirm: list[tuple[ExtractedFact, str]] = []
    for rule in _RULES:
        for match in rule.pattern.finditer(text):
            span = _read_name(text, match.end())
            if (
                span is None
                or claimed.overlaps(span)
                or not is_assertion(text, match.start(), span[1])
            ):
                continue
            rel = match.groupdict().get("rel")
            key = rule.key.format(
                rel=_RELATIONS.get(re.sub(r"\s+", " ", rel.lower()), "") if rel else ""
            )
            fact = _entity_fact(text, key, span, (match.start(), span[1]), 0.9)
            if overlaps(fact.span, [f.span for f in facts]):
                continue
            if rule.confirm and has_recogniser(nlp):
                pending_confirm.append((fact, rule.confirm))
            else:
                facts.append(fact)
    if pending_confirm:
        # "my dad is American" must not make "American" his name: where a recogniser is
        # available, the name has to be one of its PERSONs.
        found = recognise(text, [f.value_span for f, _ in pending_confirm], claimed, nlp)
        for fact, label in pending_confirm:
            if any(lab == label and overlaps(fact.value_span, [s]) for s, lab in found):
                facts.append(fact)
    return facts


def find_named_entities(text: str, claimed: SpanIndex, nlp: Language) -> list[ExtractedFact]:
    """Bare PERSON / ORG / GPE mentions: ``mentioned.person|org|place.<slug>``."""
    facts = []
    for span, label in recognise(text, candidate_spans(text, claimed), claimed, nlp):
        kind = _LABELS.get(label)
        start, end = span
        if text[start:end].lower().startswith("the "):
            start += 4
        while end > start and not text[end - 1].isalnum():
            end -= 1
        value = text[start:end]
        if kind is None or not _plausible(value):
            continue
        if kind == "org" and " " not in value and sentence_start(text, start):
            # Capitals carry no signal at a sentence's start, and the small model reads
            # many an opening noun ("Budget is …") as an organisation.
            continue
        facts.append(
            _entity_fact(text, mention_key(kind, slugify(value)), (start, end), (start, end), 0.7)
        )
    return facts


def _plausible(value: str) -> bool:
    """Drop what the small model sometimes tags: lower-case words, references, numbers."""
    if not value or not any(c.isupper() for c in value) or any(c in value for c in "@#_/"):
        return False
    return value.casefold() not in name_stop_words() and value not in CALENDAR_WORDS
