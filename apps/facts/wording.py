"""Fact keys in words and back (issue 18): people read and type "crypto list, #1", not
``user.favorites.crypto.1``. The keys themselves (extraction/keys.py) do not change; this
module is only how the page, the chat's notices and the "Set a fact" form say them."""

from __future__ import annotations

import json
import re
from typing import Any

from django.core.exceptions import ValidationError

from .extraction.keys import parse_ranked_key, ranked_key
from .extraction.text import slugify
from .models import FactValueType, ProjectFact

# The typed namespaces under "user." whose name adds nothing a person would say.
_QUIET_NAMESPACES = ("dates", "quantities", "relations")
# A few words people use for the fixed keys (keys.py's table).
_WORD_KEYS = {
    "birthday": "user.dates.birthday",
    "email": "user.email",
    "e-mail": "user.email",
    "home": "user.location",
    "city": "user.location",
    "location": "user.location",
    "name": "user.name",
    "employer": "user.employer",
    "website": "user.website",
    "weight": "user.quantities.weight",
    "height": "user.quantities.height",
    "age": "user.quantities.age",
}
_LIST_AND_RANK = re.compile(r"^(?:my\s+)?(?P<topic>.+?)\s+list\s*,?\s*#\s*(?P<rank>\d{1,3})$", re.I)
_RANK_FIRST = re.compile(r"^(?:my\s+)?#\s*(?P<rank>\d{1,3})\s+(?P<topic>.+)$", re.I)
_RAW_KEY = re.compile(r"^[a-z0-9_]+(?:\.[a-z0-9_@:/%+~-]+)+$")


def _words(slug: str) -> str:
    return slug.replace("_", " ")


def key_words(key: str) -> str:
    """How a key reads on the page: "crypto list, #1", "email (work)", "birthday"."""
    ranked = parse_ranked_key(key)
    if ranked:
        return f"{_words(ranked[0])} list, #{ranked[1]}"
    parts = key.split(".")
    if parts[0] == "user":
        parts = parts[1:]
    if parts and parts[0] in _QUIET_NAMESPACES and len(parts) > 1:
        parts = parts[1:]  # "lena birthday", not "dates (lena birthday)"
    elif parts[0] == "mentioned" and len(parts) >= 3:
        return f"mentioned {parts[1]}: {'.'.join(parts[2:])}"
    if not parts:
        return key
    head, rest = _words(parts[0]), [_words(part) for part in parts[1:]]
    return f"{head} ({', '.join(rest)})" if rest else head


def key_short_label(key: str) -> str:
    """The shortest way to name a key in a sentence: "#1 crypto", or its words."""
    ranked = parse_ranked_key(key)
    return f"#{ranked[1]} {_words(ranked[0])}" if ranked else key_words(key)


def key_from_words(text: str) -> str:
    """The key a person means by "crypto list, #1", "#2 book", "email" or "favourite
    colour"; a dotted key typed as such is taken as it is (the API's and power users'
    spelling). A ValidationError on ``key`` when nothing can be read."""
    words = " ".join(text.split()).strip()
    if not words:
        raise ValidationError({"key": "Say what the fact is about, e.g. “crypto list, #1”."})
    if _RAW_KEY.match(words):
        return words
    match = _LIST_AND_RANK.match(words) or _RANK_FIRST.match(words)
    if match:
        topic = slugify(match.group("topic"))
        rank = int(match.group("rank"))
        if not topic or rank < 1:
            raise ValidationError({"key": "Name the list and a rank from 1, e.g. “books, #2”."})
        return ranked_key(topic, rank)
    lowered = words.lower().removeprefix("my ").strip()
    if lowered in _WORD_KEYS:
        return _WORD_KEYS[lowered]
    slug = slugify(lowered)
    if not slug:
        raise ValidationError({"key": "Use letters or digits to name the fact."})
    return f"user.{slug}"


def display_value(fact: ProjectFact) -> str:
    """A value as a person reads it: 70 kg rather than {"amount":70,"unit":"kg"}."""
    if fact.value_type == FactValueType.BOOL:
        return "yes" if fact.value_text == "true" else "no"
    if fact.value_type == FactValueType.JSON:
        try:
            data: Any = json.loads(fact.value_text)
        except ValueError:
            return fact.value_text
        if isinstance(data, dict) and set(data) == {"amount", "unit"}:
            return f"{data['amount']} {data['unit']}"
    return fact.value_text


def fact_change_text(fact: ProjectFact) -> str:
    """What writing ``fact`` did, in words: "Saved #1 crypto = BTC", or "Updated #1
    crypto: BTC → SOL" when it replaced a value (a retracted one counts as none)."""
    label = key_short_label(fact.fact_key)
    old = fact.supersedes
    if old is not None and old.retracted_at is None:
        return f"Updated {label}: {display_value(old)} → {display_value(fact)}"
    return f"Saved {label} = {display_value(fact)}"
