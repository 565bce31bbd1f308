"""Friendly IDs: short, readable handles for claims, contexts, entities and tags (DESIGN §4).

"I prefer morning workouts" → ``prefer_morning_workouts``: one to three meaningful words
(stop words removed), lower-case, joined by ``_``, at most 60 characters. Only when that
is taken does ``_`` and four random hex characters follow (``prefer_morning_workouts_a3f2``).
Entities and tags get a kind suffix (``john_smith_entity``); contexts and claims share the
plain ``@name`` space (``@fitness``), so a new one avoids the other kind's names.
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from collections.abc import Iterator

from apps.core.words import STOP_WORDS

MAX_LENGTH = 60
SUFFIX_HEX_CHARS = 4
MAX_WORDS = 3

# A friendly ID a user types: starts with a letter (so `@` parsing finds it), then
# letters, digits, `_` or `-`; three characters at least, like every reference.
FRIENDLY_ID_PATTERN = re.compile(r"^[a-z][a-z0-9_-]{1,58}[a-z0-9]$")
RESERVED = frozenset({"memory", "mem"})
KIND_SUFFIXES = {"claim": "", "context": "", "entity": "_entity", "tag": "_tag"}
# Endings a claim's ID may not take: they mark the other kinds (contexts were generated
# with ``_context`` before the plain form, and keep it where the migration could not drop it).
MARKED_SUFFIXES = {"context": "_context", "entity": "_entity", "tag": "_tag"}
_WORD = re.compile(r"[a-z0-9]+")


def meaningful_words(text: str, limit: int = MAX_WORDS) -> list[str]:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    folded = folded.replace("'", "")
    words = [w for w in _WORD.findall(folded) if w not in STOP_WORDS and len(w) > 1]
    return words[:limit]


def random_suffix() -> str:
    return secrets.token_hex(SUFFIX_HEX_CHARS // 2)


def generate_friendly_id(text: str, *, kind: str = "claim", suffix: str | None = None) -> str:
    """The friendly ID for ``text``: its words alone, or with ``suffix`` (a short random
    hash, used only when the plain form is taken; see ``friendly_id_candidates``)."""
    kind_suffix = KIND_SUFFIXES[kind]
    words = meaningful_words(text) or [kind if kind != "claim" else "memory"]
    # Identifiers must start with a letter for the reference parser.
    if not words[0][0].isalpha():
        words.insert(0, "n")
    tail = f"_{suffix}" if suffix else ""
    budget = MAX_LENGTH - len(kind_suffix) - len(tail)
    stem = "_".join(words)[:budget].rstrip("_")
    candidate = f"{stem}{tail}{kind_suffix}"
    if validate_friendly_id(candidate, kind=kind) is not None:
        # e.g. "Claim 12" → "claim_12", which would read as claim number 12; or "memory",
        # which is reserved.
        candidate = f"{stem[: budget - 5].rstrip('_')}_note{tail}{kind_suffix}"
    return candidate


def friendly_id_candidates(text: str, *, kind: str, attempts: int) -> Iterator[str]:
    """The plain form first, then ``attempts`` forms with a random hash for a collision."""
    yield generate_friendly_id(text, kind=kind)
    for _ in range(attempts):
        yield generate_friendly_id(text, kind=kind, suffix=random_suffix())


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
        for other_kind, suffix in MARKED_SUFFIXES.items():
            if value.endswith(suffix):
                return (
                    f"A claim's friendly ID cannot end in '{suffix}' (that marks a {other_kind})."
                )
    if value.endswith("_domain"):
        return "'_domain' is reserved for domains."
    return None
