"""Step 5: gather memory by priority, de-duplicate by claim, and fit a token budget.

Priorities (seeds/000): REFERENCED @id (0) › ATTACHED (1) › GLOBAL PINNED (2) ›
CONV PINNED (3) › AUTO (4). A claim appears once, under the highest label it earns. The
budget drops the lowest priority first and never a referenced claim: the user asked for
those by name, so they go in even when they alone exceed it.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.conf import settings

from apps.chat.models import Conversation
from apps.chat.pipeline.prompt import format_memory_line
from apps.claims.selectors import (
    LeanClaim,
    claims_pinned,
    claims_usable,
    claims_usable_lean,
    claims_waiting_in_conversation,
    lean_claims,
)
from apps.contexts.references import ReferenceResolution
from apps.indexing import search as index_search
from apps.indexing.embeddings import Vector

from .types import WAITING_LABEL, MemoryItem

if TYPE_CHECKING:
    from apps.accounts.models import User

logger = logging.getLogger(__name__)

DEFAULT_MEMORY_TOKEN_BUDGET = 3000
AUTO_LIMIT = 8


def estimate_tokens(text: str) -> int:
    """About four characters a token for English: cheap, and the budget is approximate."""
    return max(1, len(text) // 4)


def auto_claims(
    user: User, query: str, vector: Vector | None = None
) -> list[tuple[LeanClaim, float | None]]:
    """Claims the hybrid search finds for the message, best first."""
    if not query.strip():
        return []
    try:
        hits = index_search.hybrid_search(
            user=user, query=query, kinds=("claim",), k=AUTO_LIMIT * 2, vector=vector
        )
    except Exception:  # search down: the turn goes on with the memory it was given
        logger.exception("claim search failed")
        return []
    # Relevant as any source is (issue 28): a clear word match, or a close meaning.
    relevant = [
        hit
        for hit in index_search.relevant(
            hits, question=query, threshold=settings.CAIRN_CITE_THRESHOLD
        )
        if hit.claim_id
    ]
    claims = claims_usable_lean(user=user, ids=[hit.claim_id for hit in relevant])  # type: ignore[misc]
    scores = {hit.claim_id: hit.vector_similarity for hit in relevant}
    return [(claim, scores.get(claim.id)) for claim in claims[:AUTO_LIMIT]]


def waiting_claims(
    *, user: User, conversation: Conversation, query: str, query_vector: Vector | None
) -> list[tuple[LeanClaim, float | None]]:
    """What the user said in this conversation that waits for their review (suggest mode)
    and bears on the question — by its words or its meaning, the rule of every source: it
    is the user's own turn, so the conversation uses it (issue 28), and says so."""
    claims = claims_waiting_in_conversation(
        user=user,
        conversation_id=conversation.pk,
        vector=None if query_vector is None else [float(x) for x in query_vector],
    )
    wanted = index_search.content_words(query)
    return [
        (claim, similarity)
        for claim, similarity in claims
        if (similarity is not None and similarity >= settings.CAIRN_CITE_THRESHOLD)
        or index_search.covers(wanted, claim.statement) >= index_search.WORD_COVER_SHARE
    ]


@dataclass(frozen=True)
class StandingMemory:
    """The claims a turn brings in whatever the search finds: attached, pinned globally and
    in the conversation (newest first), and the user's own claims waiting for review."""

    attached: list[LeanClaim]
    pinned: list[LeanClaim]
    conversation_pinned: list[LeanClaim]
    waiting: list[tuple[LeanClaim, float | None]]


def standing_memory(
    *,
    user: User,
    conversation: Conversation,
    attached_claim_ids: Sequence[uuid.UUID],
    query: str,
    query_vector: Vector | None = None,
) -> StandingMemory:
    return StandingMemory(
        attached=claims_usable_lean(user=user, ids=list(attached_claim_ids)),
        pinned=lean_claims(claims_pinned(user=user).order_by("-updated_at"), limit=50),
        conversation_pinned=lean_claims(
            claims_usable(user=user)
            .filter(pinned_in_conversations=conversation)
            .order_by("-updated_at"),
            limit=50,
        ),
        waiting=waiting_claims(
            user=user, conversation=conversation, query=query, query_vector=query_vector
        ),
    )


def gather_memory(
    *,
    user: User,
    conversation: Conversation,
    resolutions: Sequence[ReferenceResolution],
    attached_claim_ids: Sequence[uuid.UUID],
    query: str,
    token_budget: int = DEFAULT_MEMORY_TOKEN_BUDGET,
    query_vector: Vector | None = None,
) -> list[MemoryItem]:
    auto = auto_claims(user, query, query_vector)
    standing = standing_memory(
        user=user,
        conversation=conversation,
        attached_claim_ids=attached_claim_ids,
        query=query,
        query_vector=query_vector,
    )
    return memory_items(resolutions, auto, standing, token_budget)


def memory_items(
    resolutions: Sequence[ReferenceResolution],
    auto: Sequence[tuple[LeanClaim, float | None]],
    standing: StandingMemory,
    token_budget: int = DEFAULT_MEMORY_TOKEN_BUDGET,
) -> list[MemoryItem]:
    """The turn's memory by priority, each claim once, within the budget (a turn fetches
    ``auto`` and ``standing`` side by side: ``gather_memory`` fetches them in turn)."""
    items: list[MemoryItem] = []
    seen: set[uuid.UUID] = set()

    def add(
        claims: Iterable[LeanClaim],
        label: str,
        priority: int,
        scores: dict[uuid.UUID, float | None] | None = None,
    ) -> None:
        for claim in claims:
            if claim.id not in seen:
                seen.add(claim.id)
                items.append(
                    MemoryItem(
                        claim=claim,
                        label=label,
                        priority=priority,
                        score=(scores or {}).get(claim.id),
                    )
                )

    for resolution in resolutions:
        add(resolution.claims, resolution.label, 0)
    add(standing.attached, "ATTACHED", 1)
    scores = {claim.id: score for claim, score in auto}
    add(standing.pinned, "GLOBAL PINNED", 2, scores)
    add(standing.conversation_pinned, "CONV PINNED", 3, scores)
    add([claim for claim, _ in auto], "AUTO", 4, scores)
    add(
        [claim for claim, _ in standing.waiting],
        WAITING_LABEL,
        5,
        {claim.id: score for claim, score in standing.waiting},
    )
    # Pinned means background (issue 28): a pinned claim the question is not about is
    # standing context for the model, not a source of this answer.
    for item in items:
        if item.priority in (2, 3) and item.claim.id not in scores:
            item.background = True
    return fit_budget(items, token_budget)


def fit_budget(items: list[MemoryItem], token_budget: int) -> list[MemoryItem]:
    """Keep items in priority order until the budget is spent; referenced ones always."""
    kept: list[MemoryItem] = []
    spent = 0
    for item in sorted(items, key=lambda item: item.priority):  # stable within a priority
        cost = estimate_tokens(
            format_memory_line(
                item.label,
                item.claim.claim_types,
                item.claim.number,
                item.claim.statement,
                item.claim.possible_questions,
            )
        )
        if item.is_referenced or spent + cost <= token_budget:
            kept.append(item)
            spent += cost
    return kept
