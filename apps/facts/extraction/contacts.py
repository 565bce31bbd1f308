"""E-mail addresses and URLs (keys: see ``keys.py``)."""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

from .keys import mention_key
from .text import APOS, SpanIndex, is_assertion, slugify, word_set
from .types import ExtractedFact, FactKind, Span

# Bounded repetitions keep this linear on hostile input; the look-behind makes a long
# run of letters without "@" fail at once instead of at every position.
EMAIL = re.compile(
    r"(?<![\w.%+-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@"
    r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}"
    r"[A-Za-z0-9])?){0,8}\.[A-Za-z]{2,24}(?![\w@-])"
)
_EMAIL_LABEL = re.compile(
    rf"(?:\bmy\s+(?:(?P<q>[^\W\d_][\w-]{{1,20}})\s+)?e-?mail(?:\s+address)?"
    rf"(?:\s+(?:is|=|:)|{APOS}s|\s*[:=])\s*(?:(?:now|actually|still|currently|just)\s+)*"
    r"|\b(?:e-?mail|reach|contact|write\s+to|ping)\s+me\s+(?:at|on|via)\s+)$",
    re.IGNORECASE,
)
# "my new email is …" is the user's address; "my old email is …" is not any more.
_NEUTRAL_QUALIFIERS = word_set(
    """new current main primary actual real updated correct usual preferred own"""
)
_PAST_QUALIFIERS = frozenset(["old", "previous", "former", "ex", "earlier"])

URL = re.compile(r"(?<![\w@/.])(?:https?://|www\.)[^\s<>\"'`{}|\\^\[\]]{1,2000}", re.IGNORECASE)
_URL_TRAILING = ".,;:!?)'\"*_"
_URL_SERVICES = word_set(
    """github gitlab linkedin twitter mastodon youtube instagram facebook bluesky"""
)
# fmt: off
_URL_NOUNS = {
    "website": "website", "web site": "website", "site": "website", "homepage": "website",
    "home page": "website", "webpage": "website", "web page": "website", "page": "website",
    "url": "website", "link": "website", "blog": "blog", "portfolio": "portfolio",
    "resume": "resume", "cv": "resume", "repo": "repo", "repository": "repo",
    "channel": "channel", "profile": "profile",
}
# fmt: on
_URL_NOUN_RE = "|".join(
    sorted((n.replace(" ", r"\s?") for n in (*_URL_NOUNS, *_URL_SERVICES)), key=len, reverse=True)
)
_URL_LABEL = re.compile(
    rf"\bmy\s+(?:(?P<q>[^\W\d_][\w-]{{1,20}})\s+)?(?P<noun>{_URL_NOUN_RE})"
    rf"(?:\s+(?:profile|page|url|link|account|channel))?"
    rf"(?:\s+(?:is|=|:)|{APOS}s|\s*[:=])\s*(?:(?:now|actually|still|currently|at)\s+)*$",
    re.IGNORECASE,
)
_LOOKBACK = 80


def _qualified(base: str, qualifier: str | None) -> str | None:
    """``user.<base>[.<qualifier>]``, or ``None`` when the qualifier makes it not current."""
    if not qualifier:
        return f"user.{base}"
    q = qualifier.casefold()
    if q in _PAST_QUALIFIERS:
        return None
    if q in _NEUTRAL_QUALIFIERS or q == base:
        return f"user.{base}"
    return f"user.{base}.{slugify(q)}"


def _fact(
    text: str, key: str, value_span: Span, kind: FactKind, statement: Span, conf: float
) -> ExtractedFact:
    value = text[value_span[0] : value_span[1]]
    return ExtractedFact(
        key=key,
        value=value,
        value_type="string",
        kind=kind,
        topic=None,
        rank=None,
        span=statement,
        confidence=conf,
        value_span=value_span,
    )


def find_emails(text: str, claimed: SpanIndex) -> list[ExtractedFact]:
    if "@" not in text:
        return []
    facts = []
    for match in EMAIL.finditer(text):
        if claimed.overlaps(match.span()):
            continue
        label = _EMAIL_LABEL.search(text, max(0, match.start() - _LOOKBACK), match.start())
        key = None
        if label and is_assertion(text, label.start(), match.end()):
            key = _qualified("email", label.group("q"))
        if label and key:
            facts.append(
                _fact(text, key, match.span(), "email", (label.start(), match.end()), 0.95)
            )
        else:
            facts.append(
                _fact(
                    text,
                    mention_key("email", match.group().lower()),
                    match.span(),
                    "email",
                    match.span(),
                    0.8,
                )
            )
    return facts


def _url_span(text: str, match: re.Match[str]) -> Span | None:
    start, end = match.span()
    while end > start and text[end - 1] in _URL_TRAILING:
        # A closing bracket belongs to the URL only when it opened one inside it.
        if text[end - 1] == ")" and text.count("(", start, end) >= text.count(")", start, end):
            break
        end -= 1
    host = urlsplit(_with_scheme(text[start:end])).hostname or ""
    return (start, end) if "." in host else None


def _with_scheme(url: str) -> str:
    return url if "://" in url else f"http://{url}"


def normalise_url(url: str) -> str:
    """Scheme and host lower-cased, a trailing ``/`` dropped: how a mention key reads."""
    parts = urlsplit(_with_scheme(url))
    rebuilt = urlunsplit(
        (parts.scheme.lower(), parts.netloc.lower(), parts.path, parts.query, parts.fragment)
    )
    if "://" not in url:
        rebuilt = rebuilt.split("://", 1)[1]
    return rebuilt.rstrip("/")


def find_urls(text: str, claimed: SpanIndex) -> list[ExtractedFact]:
    if "://" not in text and "www." not in text.lower():
        return []
    facts = []
    for match in URL.finditer(text):
        span = _url_span(text, match)
        if span is None or claimed.overlaps(span):
            continue
        label = _URL_LABEL.search(text, max(0, span[0] - _LOOKBACK), span[0])
        key = None
        if label and is_assertion(text, label.start(), span[1]):
            noun = re.sub(r"\s+", " ", label.group("noun").casefold())
            qualifier = label.group("q")
            if qualifier and qualifier.casefold() in _URL_SERVICES:
                key = f"user.{qualifier.casefold()}"
            elif noun in _URL_SERVICES:
                key = _qualified(noun, qualifier)
            else:
                key = _qualified(
                    _URL_NOUNS.get(noun.replace(" ", ""), _URL_NOUNS.get(noun, "website")),
                    qualifier,
                )
        value = text[span[0] : span[1]]
        if label and key:
            facts.append(_fact(text, key, span, "url", (label.start(), span[1]), 0.95))
        else:
            facts.append(
                _fact(text, mention_key("url", normalise_url(value)), span, "url", span, 0.8)
            )
    return facts
