"""Reads of the knowledge model. Every function takes the requesting user and filters by it."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.contrib.postgres.search import SearchQuery, SearchRank
from django.db.models import F, Q, QuerySet
from django.http import Http404
from pgvector.django import CosineDistance

from .models import USABLE_STATUSES, Claim, ClaimOrigin, ClaimStatus, Domain, Entity, Tag
from .resolve import claim_found_by_friendly_id, claim_found_by_number

if TYPE_CHECKING:
    from apps.accounts.models import User

_NUMBER = re.compile(r"^(?:#|claim_)?(\d{1,9})$")
LEAN_CLAIM_FIELDS = (
    "id",
    "number",
    "friendly_id",
    "statement",
    "claim_types",
    "status",
    "possible_questions",
    "pinned",
)


@dataclass(frozen=True, slots=True)
class LeanClaim:
    """What a chat turn needs of a claim (a resolved reference, a pin, a search hit), and
    nothing that is slow to load.

    Resolution sits on the chat path and may return thousands of claims; building model
    instances (and parsing their timestamps) would cost several times the query itself.
    """

    id: uuid.UUID
    number: int
    friendly_id: str
    statement: str
    claim_types: list[str]
    status: str
    possible_questions: list[str]
    pinned: bool

    @property
    def primary_type(self) -> str:
        return self.claim_types[0] if self.claim_types else "other"


def lean_claims(claims: QuerySet[Claim], *, limit: int | None = None) -> list[LeanClaim]:
    """``claims`` (already scoped by the caller's selector) as LeanClaims, in their order."""
    rows = claims.values_list(*LEAN_CLAIM_FIELDS)
    return [LeanClaim(*row) for row in (rows[:limit] if limit is not None else rows)]


def lean_claim(claim: Claim) -> LeanClaim:
    return LeanClaim(*(getattr(claim, name) for name in LEAN_CLAIM_FIELDS))


def claims_waiting_in_conversation(
    *, user: User, conversation_id: uuid.UUID, vector: Sequence[float] | None, limit: int = 20
) -> list[tuple[LeanClaim, float | None]]:
    """The user's pending claims taken from turns of one conversation, newest first, each
    with its cosine similarity to ``vector`` (None without one, or without an embedding)."""
    claims = Claim.objects.filter(
        user=user,
        status=ClaimStatus.PENDING,
        source_message__conversation_id=conversation_id,
    ).order_by("-created_at")
    if vector is None:
        return [(claim, None) for claim in lean_claims(claims, limit=limit)]
    rows = claims.annotate(distance=CosineDistance("embedding", list(vector))).values_list(
        *LEAN_CLAIM_FIELDS, "distance"
    )[:limit]
    return [
        (LeanClaim(*row[:-1]), None if row[-1] is None else 1.0 - float(row[-1])) for row in rows
    ]


def claims_usable_lean(*, user: User, ids: Sequence[uuid.UUID]) -> list[LeanClaim]:
    """The user's active or contested claims among ``ids``, in the order of ``ids``."""
    if not ids:
        return []
    found = {c.id: c for c in lean_claims(claims_usable(user=user).filter(id__in=list(ids)))}
    return [found[i] for i in ids if i in found]


def claim_list(
    *,
    user: User,
    statuses: Sequence[str] | None = None,
    claim_types: Sequence[str] | None = None,
    domains: Sequence[str] | None = None,
    pinned: bool | None = None,
    tag_ids: Sequence[uuid.UUID] | None = None,
    entity_ids: Sequence[uuid.UUID] | None = None,
    query: str | None = None,
) -> QuerySet[Claim]:
    claims = Claim.objects.filter(user=user)
    if statuses:
        claims = claims.filter(status__in=statuses)
    if claim_types:
        claims = claims.filter(claim_types__overlap=list(claim_types))
    if domains:
        claims = claims.filter(domains__overlap=list(domains))
    if pinned is not None:
        claims = claims.filter(pinned=pinned)
    if tag_ids:
        claims = claims.filter(tags__id__in=tag_ids).distinct()
    if entity_ids:
        claims = claims.filter(entities__id__in=entity_ids).distinct()
    if query and query.strip():
        claims = claim_text_filter(claims, query)
    return claims


def claim_text_filter(claims: QuerySet[Claim], query: str) -> QuerySet[Claim]:
    """Full-text match on statement and friendly ID, best first; a number finds ``#N``."""
    query = query.strip()[:500]
    number = _NUMBER.match(query)
    search = SearchQuery(query, search_type="websearch", config="english")
    condition = Q(search_vector=search) | Q(friendly_id__istartswith=query)
    if number:
        condition |= Q(number=int(number.group(1)))
    return (
        claims.filter(condition)
        .annotate(rank=SearchRank(F("search_vector"), search))
        .order_by("-rank", "-updated_at")
    )


def claim_get(*, user: User, claim_id: uuid.UUID | str) -> Claim:
    """The user's claim, or 404: another user's claim is indistinguishable from none."""
    claim: Claim = _get_owned(Claim.objects.filter(user=user), claim_id, "claim")
    return claim


def claim_find(*, user: User, key: str) -> Claim | None:
    """A claim by UUID, number (``42``, ``#42``, ``claim_42``) or friendly ID; None if absent."""
    key = (key or "").strip()
    if not key or len(key) > 100:
        return None
    number = _NUMBER.match(key)
    if number:
        return claim_by_number(user=user, number=int(number.group(1)))
    try:
        # An id names one exact version (the history links use them).
        return Claim.objects.filter(user=user, id=uuid.UUID(key)).first()
    except ValueError:
        found = claim_found_by_friendly_id(user=user, friendly_id=key)
        return found.claim if found else None


def claim_by_number(*, user: User, number: int) -> Claim | None:
    """The current version of the memory numbered ``number`` (apps.claims.resolve)."""
    found = claim_found_by_number(user=user, number=number)
    return found.claim if found else None


def claim_by_friendly_id(*, user: User, friendly_id: str) -> Claim | None:
    return Claim.objects.filter(user=user, friendly_id=friendly_id).first()


def claims_by_id(*, user: User, ids: Iterable[uuid.UUID]) -> dict[uuid.UUID, Claim]:
    """The user's claims among ``ids``, in one query; another user's id is simply absent."""
    return {claim.id: claim for claim in Claim.objects.filter(user=user, id__in=list(ids))}


def claims_duplicate_candidates(*, user: User) -> QuerySet[Claim]:
    """Claims a new memory may repeat: usable ones and those still waiting for review."""
    return Claim.objects.filter(user=user, status__in=[*USABLE_STATUSES, ClaimStatus.PENDING])


def claim_lookup(*, user: User, key: str) -> Claim:
    claim = claim_find(user=user, key=key)
    if claim is None:
        raise Http404("No such claim.")
    return claim


def claims_usable(*, user: User) -> QuerySet[Claim]:
    return Claim.objects.filter(user=user, status__in=USABLE_STATUSES)


def claims_pending(*, user: User) -> QuerySet[Claim]:
    return Claim.objects.filter(user=user, status=ClaimStatus.PENDING).order_by("-created_at")


def claims_from_messages(*, user: User, message_ids: Iterable[uuid.UUID]) -> QuerySet[Claim]:
    """The user's claims taken from ``message_ids`` — extracted after the answer, or added
    by the model's memory tool during it — pending or kept (retracted and superseded ones
    are history), oldest first: what a chat turn suggested or saved."""
    return Claim.objects.filter(
        user=user,
        source_message_id__in=list(message_ids),
        origin__in=[ClaimOrigin.EXTRACTED, ClaimOrigin.CHAT],
        status__in=[*USABLE_STATUSES, ClaimStatus.PENDING],
    ).order_by("number")


def claims_pinned(*, user: User) -> QuerySet[Claim]:
    return claims_usable(user=user).filter(pinned=True)


def claims_for_domain(*, user: User, domain: str) -> QuerySet[Claim]:
    if domain not in Domain.values:
        return Claim.objects.none()
    return claims_usable(user=user).filter(domains__contains=[domain]).order_by("-updated_at")


def claims_for_entity(*, user: User, entity: Entity) -> QuerySet[Claim]:
    return claims_usable(user=user).filter(entities=entity).order_by("-updated_at")


def tag_descendant_ids(*, user: User, tag: Tag) -> list[uuid.UUID]:
    """The tag and every tag below it, in one recursive query."""
    table = Tag._meta.db_table
    rows = Tag.objects.raw(
        f"""
        WITH RECURSIVE tree AS (
            SELECT id, 0 AS depth FROM {table} WHERE id = %s AND user_id = %s
            UNION ALL
            SELECT t.id, tree.depth + 1 FROM {table} t JOIN tree ON t.parent_id = tree.id
            WHERE tree.depth < 10 AND t.user_id = %s
        )
        SELECT id FROM tree
        """,  # noqa: S608 - table name from the model, values as parameters
        [tag.pk, user.pk, user.pk],
    )
    return [row.pk for row in rows]


def claims_for_tag(*, user: User, tag: Tag) -> QuerySet[Claim]:
    ids = tag_descendant_ids(user=user, tag=tag)
    return claims_usable(user=user).filter(tags__id__in=ids).distinct().order_by("-updated_at")


def entity_list(*, user: User) -> QuerySet[Entity]:
    return Entity.objects.filter(user=user)


def entity_get(*, user: User, entity_id: uuid.UUID | str) -> Entity:
    return _get_owned(Entity.objects.filter(user=user), entity_id, "entity")


def tag_list(*, user: User) -> QuerySet[Tag]:
    return Tag.objects.filter(user=user)


def tag_get(*, user: User, tag_id: uuid.UUID | str) -> Tag:
    return _get_owned(Tag.objects.filter(user=user), tag_id, "tag")


def _get_owned(queryset: QuerySet, object_id: uuid.UUID | str, noun: str):  # type: ignore[no-untyped-def]
    try:
        return queryset.get(id=uuid.UUID(str(object_id)))
    except (ValueError, queryset.model.DoesNotExist) as exc:
        raise Http404(f"No such {noun}.") from exc


# The typed lists a person keeps (issue 17): what each holds, in the words of the pages.
LIST_TYPES = {"goal": "Goals", "task": "Tasks", "shopping_item": "Shopping list"}
LIST_STATUSES: dict[str, tuple[str, ...]] = {
    "current": tuple(USABLE_STATUSES),
    "done": (ClaimStatus.DONE,),
    "any": (*USABLE_STATUSES, ClaimStatus.DONE),
}


def claims_on_list(*, user: User, claim_type: str, status: str = "current") -> QuerySet[Claim]:
    """The user's claims of one type (any of their types) in a list status, oldest first
    so each keeps its place and its #N; ``status`` is a key of ``LIST_STATUSES``."""
    return claim_list(user=user, statuses=LIST_STATUSES[status], claim_types=[claim_type]).order_by(
        "number"
    )
