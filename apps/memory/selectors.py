"""The user's claims narrowed by filters, built once for the Knowledge page and the REST
list (they were two copies)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db.models import QuerySet
from django.http import Http404

from apps.claims.models import Claim, ClaimStatus, Tag
from apps.claims.selectors import claim_list, tag_descendant_ids, tag_get
from apps.contexts.models import Context
from apps.contexts.selectors import claims_in_context, context_get

if TYPE_CHECKING:
    from apps.accounts.models import User


@dataclass(frozen=True)
class ClaimFilters:
    statuses: Sequence[str] | None = None
    claim_types: Sequence[str] | None = None
    domains: Sequence[str] | None = None
    pinned: bool | None = None
    # A tag or context by id, or the user's own row a page has already read.
    tag: Tag | uuid.UUID | str | None = None  # includes its child tags
    entity: uuid.UUID | str | None = None
    context: Context | uuid.UUID | str | None = None  # includes its sub-contexts
    q: str = ""  # words, a friendly ID (a leading @ is ignored) or #42
    origin: str = ""  # where it came from ("mcp": added over MCP)


def claims_filtered(*, user: User, filters: ClaimFilters) -> QuerySet[Claim]:
    """Search results best first; otherwise the most recently changed first, in a stable
    order for pages. Without a status asked for, earlier versions are left out. A tag or
    context that is not the user's matches nothing rather than answering 404 to a query."""
    tag, context = filters.tag or None, filters.context or None
    try:
        if tag is not None and not isinstance(tag, Tag):
            tag = tag_get(user=user, tag_id=tag)
        if context is not None and not isinstance(context, Context):
            context = context_get(user=user, context_id=context)
    except Http404:
        return Claim.objects.none()
    query = filters.q.strip().lstrip("@")
    claims = claim_list(
        user=user,
        statuses=filters.statuses or None,
        claim_types=filters.claim_types or None,
        domains=filters.domains or None,
        pinned=filters.pinned,
        tag_ids=tag_descendant_ids(user=user, tag=tag) if tag is not None else None,
        entity_ids=[filters.entity] if filters.entity else None,  # type: ignore[list-item]
        query=query,
    )
    if filters.origin:
        claims = claims.filter(origin=filters.origin)
    if not filters.statuses:
        # One row per memory: its earlier versions are in its history (and under the
        # "superseded" status), not beside it with the same number.
        claims = claims.exclude(status=ClaimStatus.SUPERSEDED)
    if context is not None:
        claims = claims.filter(pk__in=claims_in_context(user=user, context=context).values("pk"))
    if not query:
        claims = claims.order_by("-updated_at", "-number")
    return claims
