"""``@`` autocomplete: the best matches for a prefix across every kind of reference.

Ranking (DESIGN §5, issue 4): an exact prefix of the friendly ID, name or number first,
then trigram similarity, then recency. All four tables are searched in one round trip (a
UNION ALL of per-kind top-N queries, each served by the trigram and full-text indexes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from django.db import connection

from apps.claims.models import Claim, Domain, Entity, Tag

from .models import Context

if TYPE_CHECKING:
    from apps.accounts.models import User

MAX_QUERY_LENGTH = 60
PREVIEW_LENGTH = 120
_KEEP = re.compile(r"[^a-z0-9_\- ]")


@dataclass(frozen=True)
class Suggestion:
    kind: str
    friendly_id: str
    insert: str
    label: str
    preview: str
    tier: int
    similarity: float
    group: str = ""  # for a bare "@": "pinned" or "recent"


def normalise_query(raw: str) -> str:
    """Lower-case letters, digits, ``_``, ``-`` and spaces only: everything else (control
    characters, SQL or regex metacharacters) is dropped rather than escaped."""
    query = (raw or "")[: MAX_QUERY_LENGTH * 4].strip().lower().lstrip("@#")
    return _KEEP.sub("", query)[:MAX_QUERY_LENGTH].strip()


# Each branch is a top-N served by an index: the GiST trigram indexes (user_id first)
# answer `<->` nearest-neighbour order directly, the unique (user, number) index the
# number (of current versions: earlier ones share it), and the full-text GIN index the
# words of statements. Python re-ranks the union.
_CANDIDATES = 12
_SQL = f"""
(SELECT 'claim' AS kind, c.friendly_id, c.number::text AS extra, c.statement AS text,
        0 AS distance, c.updated_at
   FROM {Claim._meta.db_table} c
  WHERE c.user_id = %(user)s AND c.status IN ('active', 'contested', 'pending')
    AND c.friendly_id LIKE %(prefix)s
  ORDER BY c.updated_at DESC LIMIT {_CANDIDATES})
UNION ALL
(SELECT 'claim', c.friendly_id, c.number::text, c.statement, 0, c.updated_at
   FROM {Claim._meta.db_table} c
  WHERE c.user_id = %(user)s AND c.number = %(number)s AND c.status <> 'superseded')
UNION ALL
(SELECT 'claim', c.friendly_id, c.number::text, c.statement, 0.8, c.updated_at
   FROM {Claim._meta.db_table} c
  WHERE c.user_id = %(user)s AND c.status IN ('active', 'contested')
    AND %(words)s <> '' AND c.search_vector @@ to_tsquery('english', %(words)s)
  ORDER BY c.updated_at DESC LIMIT 5)
UNION ALL
(SELECT 'context', x.friendly_id, x.name, x.description,
        upper(x.friendly_id) <-> upper(%(q)s), x.updated_at
   FROM {Context._meta.db_table} x WHERE x.user_id = %(user)s
  ORDER BY upper(x.friendly_id) <-> upper(%(q)s) LIMIT {_CANDIDATES})
UNION ALL
(SELECT 'context', x.friendly_id, x.name, x.description,
        upper(x.name) <-> upper(%(q)s), x.updated_at
   FROM {Context._meta.db_table} x WHERE x.user_id = %(user)s
  ORDER BY upper(x.name) <-> upper(%(q)s) LIMIT {_CANDIDATES})
UNION ALL
(SELECT 'entity', e.friendly_id, e.name, e.entity_type,
        upper(e.friendly_id) <-> upper(%(q)s), e.updated_at
   FROM {Entity._meta.db_table} e WHERE e.user_id = %(user)s
  ORDER BY upper(e.friendly_id) <-> upper(%(q)s) LIMIT {_CANDIDATES})
UNION ALL
(SELECT 'tag', t.friendly_id, t.name, '', upper(t.friendly_id) <-> upper(%(q)s), t.updated_at
   FROM {Tag._meta.db_table} t WHERE t.user_id = %(user)s
  ORDER BY upper(t.friendly_id) <-> upper(%(q)s) LIMIT {_CANDIDATES})
"""  # noqa: S608 - table and limits from code, values as parameters

# Typos: only when prefixes found too little, claim friendly IDs containing something
# close to the query (`<%`: trigram word similarity), among the user's most recently
# updated claims. Bounded on purpose: word similarity costs microseconds a row, and the
# trigram indexes span every user's rows, so over all of 10,000 claims this branch alone
# measured 30-40 ms; over the newest 1,000 it is a few. Older claims are still found by
# prefix, number and the words of their statements.
FUZZY_WINDOW = 1000
_FUZZY_SQL = f"""
SELECT 'claim', c.friendly_id, c.number::text, c.statement,
       1 - word_similarity(upper(%(q)s), upper(c.friendly_id)), c.updated_at
  FROM (SELECT friendly_id, number, statement, status, updated_at
          FROM {Claim._meta.db_table}
         WHERE user_id = %(user)s ORDER BY updated_at DESC LIMIT {FUZZY_WINDOW}) c
 WHERE c.status IN ('active', 'contested', 'pending')
   AND upper(%(q)s) <%% upper(c.friendly_id)
 ORDER BY 5, c.updated_at DESC LIMIT {_CANDIDATES}
"""  # noqa: S608 - table and limits from code, values as parameters

# A bare "@" (issue 18): the claims pinned everywhere first, then what the user touched
# last, claims waiting for review included (a new user's first memories are those), then
# contexts; the most a bare "@" can offer without knowing what they mean.
_RECENT_SQL = f"""
(SELECT 'claim' AS kind, friendly_id, number::text AS extra, statement AS text,
        'pinned' AS grp, 0 AS rank, updated_at
   FROM {Claim._meta.db_table}
  WHERE user_id = %(user)s AND pinned AND status IN ('active', 'contested')
  ORDER BY updated_at DESC LIMIT %(limit)s)
UNION ALL
(SELECT 'claim', friendly_id, number::text, statement, 'recent', 1, updated_at
   FROM {Claim._meta.db_table}
  WHERE user_id = %(user)s AND NOT pinned AND status IN ('active', 'contested', 'pending')
  ORDER BY updated_at DESC LIMIT %(limit)s)
UNION ALL
(SELECT 'context', friendly_id, name, description, 'recent', 2, updated_at
   FROM {Context._meta.db_table} WHERE user_id = %(user)s ORDER BY updated_at DESC LIMIT 3)
ORDER BY rank, updated_at DESC
LIMIT %(limit)s
"""  # noqa: S608 - table and limits from code, values as parameters


def _like_prefix(query: str) -> str:
    return query.replace("\\", "\\\\").replace("_", "\\_").replace("%", "\\%") + "%"


def _preview(text: str) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= PREVIEW_LENGTH else text[: PREVIEW_LENGTH - 1] + "…"


def _suggestion(
    kind: str, friendly_id: str, extra: str, text: str, tier: int, sim: float
) -> Suggestion:
    if kind == "claim":
        # The friendly ID the list shows is what goes into the message (issue 18); it is
        # unique per user and resolves to this claim just as ``claim_N`` would.
        return Suggestion(kind, friendly_id, friendly_id, f"#{extra}", _preview(text), tier, sim)
    if kind == "entity":
        return Suggestion(kind, friendly_id, friendly_id, extra, f"{text} entity", tier, sim)
    if kind == "tag":
        return Suggestion(kind, friendly_id, friendly_id, extra, "tag", tier, sim)
    return Suggestion(kind, friendly_id, friendly_id, extra, _preview(text) or "context", tier, sim)


def _tier(query: str, friendly_id: str, extra: str, kind: str) -> int:
    """0: the friendly ID (or a context's name, or a claim's number) starts with the query."""
    if friendly_id.startswith(query):
        return 0
    if kind == "context" and extra.lower().replace(" ", "_").startswith(query.replace(" ", "_")):
        return 0
    if kind == "claim" and query.removeprefix("claim_") == extra:
        return 0
    return 1


def reference_suggestions(*, user: User, query: str, limit: int = 10) -> list[Suggestion]:
    q = normalise_query(query)
    limit = max(1, min(limit, 25))
    with connection.cursor() as cursor:
        if not q:
            cursor.execute(_RECENT_SQL, {"user": user.pk, "limit": limit})
            return [
                replace(_suggestion(kind, fid, extra, text, 0, 0.0), group=group)
                for kind, fid, extra, text, group, _, _ in cursor.fetchall()
            ]
        number_match = re.fullmatch(r"(?:claim_)?(\d{1,9})", q)
        # Statement words only for word-like input ("morning run"), not an ID being typed
        # ("prefer_mor"): a short prefix query over every statement is the costly kind.
        words = (
            ""
            if "_" in q or len(q) < 4
            else " & ".join(f"{word}:*" for word in re.findall(r"[a-z0-9]+", q)[:5])
        )
        params: dict[str, Any] = {
            "user": user.pk,
            "q": q,
            "prefix": _like_prefix(q.replace(" ", "_")),
            "number": int(number_match.group(1)) if number_match else -1,
            "words": words,
        }
        cursor.execute(_SQL, params)
        rows = cursor.fetchall()
        prefix_hits = sum(1 for kind, fid, extra, *_ in rows if _tier(q, fid, extra, kind) == 0)
        prefix_hits += sum(1 for s in _domain_suggestions(q) if s.tier == 0)
        # A number being typed (#42, claim_42) is not a misspelt word.
        if prefix_hits < limit and len(q) >= 3 and not number_match:
            cursor.execute(_FUZZY_SQL, params)
            rows += cursor.fetchall()
    best: dict[tuple[str, str], tuple[tuple[int, float, float], Suggestion]] = {}
    for kind, fid, extra, text, distance, updated_at in rows:
        tier = _tier(q, fid, extra, kind)
        similarity = 1.0 - float(distance)
        suggestion = _suggestion(kind, fid, extra, text, tier, similarity)
        key = (tier, -similarity, -updated_at.timestamp())
        if (kind, fid) not in best or key < best[(kind, fid)][0]:
            best[(kind, fid)] = (key, suggestion)
    ranked = [item for _, item in sorted(best.values(), key=lambda pair: pair[0])]
    # A candidate sharing no trigram with the query (similarity 0) is noise, not a match.
    ranked = [s for s in ranked if s.tier == 0 or s.similarity > 0.05]
    merged = sorted(ranked + _domain_suggestions(q), key=lambda s: (s.tier, -s.similarity))
    return merged[:limit]


def _domain_suggestions(q: str) -> list[Suggestion]:
    found = []
    for value, label in Domain.choices:
        friendly_id = f"{value}_domain"
        if friendly_id.startswith(q) or (len(q) >= 3 and q in friendly_id):
            tier = 0 if friendly_id.startswith(q) else 1
            found.append(
                Suggestion(
                    "domain",
                    friendly_id,
                    friendly_id,
                    str(label),
                    f"every claim in {str(label).lower()}",
                    tier,
                    0.5,
                )
            )
    return found
