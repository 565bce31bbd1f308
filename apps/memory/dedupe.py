"""New memories are de-duplicated against existing ones (issue 7 item 6).

The same statement once normalised (case, spaces, final punctuation), or a claim whose
embedding is within cosine 0.92 of the new statement's, is *reinforced* (counted again,
a little more confident) instead of stored twice.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

from pgvector.django import CosineDistance

from apps.claims.models import Claim
from apps.claims.selectors import claims_duplicate_candidates
from apps.claims.services import claim_create, claim_reinforce

if TYPE_CHECKING:
    from apps.accounts.models import User

logger = logging.getLogger(__name__)
DUPLICATE_COSINE = 0.92
_SPACE = re.compile(r"\s+")


def normalise_statement(statement: str) -> str:
    return _SPACE.sub(" ", statement.strip().lower()).rstrip(".!?;: ")


def find_duplicate(*, user: User, statement: str) -> Claim | None:
    candidates = claims_duplicate_candidates(user=user)
    wanted = normalise_statement(statement)
    for claim in candidates.filter(statement__iexact=statement.strip())[:5]:
        if normalise_statement(claim.statement) == wanted:
            return claim
    # Statements differing only in punctuation or spacing miss the exact match above.
    for claim in candidates.filter(statement__istartswith=statement.strip()[:20])[:20]:
        if normalise_statement(claim.statement) == wanted:
            return claim
    try:
        from apps.indexing.embeddings import get_embedding_provider

        vector = get_embedding_provider().embed_query(statement)
    except Exception:  # no model: the exact comparison above still de-duplicates
        logger.exception("could not embed a new memory for de-duplication")
        return None
    nearest = (
        candidates.exclude(embedding=None)
        .annotate(distance=CosineDistance("embedding", vector.tolist()))
        .order_by("distance")
        .first()
    )
    if nearest is not None and 1 - nearest.distance >= DUPLICATE_COSINE:  # type: ignore[attr-defined]
        return nearest
    return None


def claim_add_or_reinforce(*, user: User, statement: str, **fields: Any) -> tuple[Claim, bool]:
    """(claim, created): a new claim, or the existing one it duplicates, reinforced."""
    duplicate = find_duplicate(user=user, statement=statement)
    if duplicate is not None:
        return claim_reinforce(claim=duplicate), False
    return claim_create(user=user, statement=statement, **fields), True
