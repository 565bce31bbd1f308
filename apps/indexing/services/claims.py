"""Embedding claims when they are created or their statement changes.

A claim is embedded by its statement alone: the chat's de-duplication compares a new
statement's vector with these at cosine 0.92, which holds for the same statement only
if nothing else (possible questions) is mixed into the vector.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from apps.claims.models import Claim

from ..embeddings import EmbeddingProvider, get_embedding_provider
from .queue import enqueue

BATCH = 256


def claims_content_changed_receiver(sender: Any, claim_ids: Sequence[Any], **kwargs: Any) -> None:
    """``claims_content_changed`` (inside the writing transaction): embed these claims in
    the background."""
    ids = [str(claim_id) for claim_id in claim_ids]
    for first in range(0, len(ids), BATCH):
        enqueue("embed_claims", ids[first : first + BATCH])


def claims_embed(
    *, claim_ids: Sequence[uuid.UUID | str], provider: EmbeddingProvider | None = None
) -> int:
    """Embed and store; returns how many claims were updated. A claim whose statement
    changed meanwhile is left for the job that change queued."""
    provider = provider or get_embedding_provider()
    updated = 0
    ids = list(claim_ids)
    for first in range(0, len(ids), BATCH):
        claims = list(
            Claim.objects.filter(pk__in=ids[first : first + BATCH]).only("id", "statement")
        )
        if not claims:
            continue
        vectors = provider.embed_documents([claim.statement for claim in claims])
        for claim, vector in zip(claims, vectors, strict=True):
            # .update() leaves updated_at alone: embedding is not an edit by the user.
            updated += Claim.objects.filter(pk=claim.pk, statement=claim.statement).update(
                embedding=vector, embedding_model=provider.name
            )
    return updated
