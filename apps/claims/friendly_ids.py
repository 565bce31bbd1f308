"""Friendly IDs: short, readable handles for claims, contexts, entities and tags (DESIGN §4).

"I prefer morning workouts" → ``prefer_morning_workouts_a3f2``: one to three meaningful
words (stop words removed), lower-case, joined by ``_``, then ``_`` and four random hex
characters, at most 60 characters. Contexts, entities and tags get a kind suffix so that
one ``@name`` can be told apart (``health_goals_3b2a_context``).
"""

from __future__ import annotations

import re
import secrets
import unicodedata

from apps.core.words import STOP_WORDS

MAX_LENGTH = 60
SUFFIX_HEX_CHARS = 4
MAX_WORDS = 3

# A friendly ID a user types: starts with a letter (so `@` parsing finds it), then
# letters, digits, `_` or `-`; three characters at least, like every reference.
FRIENDLY_ID_PATTERN = re.compile(r"^[a-z][a-z0-9_-]{1,58}[a-z0-9]$")
RESERVED = frozenset({"memory", "mem"})
KIND_SUFFIXES = {"claim": "", "context": "_context", "entity": "_entity", "tag": "_tag"}
_WORD = re.compile(r"[a-z0-9]+")


def meaningful_words(text: str, limit: int = MAX_WORDS) -> list[str]:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    folded = folded.replace("'", "")
    words = [w for w in _WORD.findall(folded) if w not in STOP_WORDS and len(w) > 1]
    return words[:limit]


def generate_friendly_id(text: str, *, kind: str = "claim", suffix: str | None = None) -> str:
    """A new candidate friendly ID for ``text``; callers retry on a collision."""
    kind_suffix = KIND_SUFFIXES[kind]
    random_part = suffix if suffix is not None else secrets.token_hex(SUFFIX_HEX_CHARS // 2)
    words = meaningful_words(text) or [kind if kind != "claim" else "memory"]
    # Identifiers must start with a letter for the reference parser.
    if not words[0][0].isalpha():
        words.insert(0, "n")
    budget = MAX_LENGTH - len(kind_suffix) - len(random_part) - 1
    stem = "_".join(words)[:budget].rstrip("_")
    candidate = f"{stem}_{random_part}{kind_suffix}"
    if validate_friendly_id(candidate, kind=kind) is not None:
        # e.g. "Claim" → "claim_1234", which would read as claim number 1234.
        candidate = f"{stem[: budget - 5]}_note_{random_part}{kind_suffix}"
    return candidate


def validate_friendly_id(value: str, *, kind: str = "claim") -> str | None:
    """An error message for a friendly ID a user chose, or None when it is acceptable."""
    if not FRIENDLY_ID_PATTERN.match(value):
        return (
            "Use 3 to 60 lower-case letters, digits, '_' or '-', starting with a letter "
            "and ending with a letter or digit."
        )
    if value in RESERVED:
        return f"'{value}' is reserved."
    if re.fullmatch(r"claim_\d+", value):
        return "'claim_<number>' is reserved for claim numbers."
    if kind == "claim":
        for other_kind, suffix in KIND_SUFFIXES.items():
            if suffix and value.endswith(suffix):
                return (
                    f"A claim's friendly ID cannot end in '{suffix}' (that marks a {other_kind})."
                )
    if value.endswith("_domain"):
        return "'_domain' is reserved for domains."
    return None
