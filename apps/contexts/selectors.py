"""Reads of the context tree. Every function is scoped to the requesting user."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from django.db import connection
from django.db.models import QuerySet
from django.db.models.expressions import RawSQL
from django.http import Http404

from apps.claims.models import USABLE_STATUSES, Claim
from apps.claims.selectors import LeanClaim

from .models import MAX_CONTEXT_DEPTH, Context, ContextAlias, ContextClaim

if TYPE_CHECKING:
    from apps.accounts.models import User

CTX = Context._meta.db_table
LINK = ContextClaim._meta.db_table
CLAIM = Claim._meta.db_table


def context_list(*, user: User) -> QuerySet[Context]:
    return Context.objects.filter(user=user)


def context_get(*, user: User, context_id: uuid.UUID | str) -> Context:
    try:
        return Context.objects.get(user=user, id=uuid.UUID(str(context_id)))
    except (ValueError, Context.DoesNotExist) as exc:
        raise Http404("No such context.") from exc


def context_find(*, user: User, friendly_id: str) -> Context | None:
    return Context.objects.filter(user=user, friendly_id=friendly_id).first()


def context_find_by_alias(*, user: User, friendly_id: str) -> Context | None:
    """The context once called ``friendly_id`` (renamed by hand or by the migration that
    dropped random hashes)."""
    alias = ContextAlias.objects.filter(user=user, friendly_id=friendly_id).first()
    return Context.objects.get(pk=alias.context_id) if alias else None


def context_find_by_name(*, user: User, name: str) -> Context | None:
    """The fallback of DESIGN §5: ``@my_health_goals`` finds the context "My Health Goals"."""
    wanted = name.strip().lower().replace(" ", "_")
    if not wanted:
        return None
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id FROM {CTX} WHERE user_id = %s "  # noqa: S608 - table names from the models, values as parameters
            f"AND lower(replace(name, ' ', '_')) = %s ORDER BY updated_at DESC LIMIT 1",
            [user.pk, wanted],
        )
        row = cursor.fetchone()
    return Context.objects.get(pk=row[0]) if row else None


def _tree_sql(levels: int) -> str:
    """The one recursive query of the tree: ``tree(id, depth)``, a context (depth 1) and
    its descendants, ``levels`` deep at most; its parameters are the context's id and its
    owner's (every context below it is the same user's)."""
    return f"""
    WITH RECURSIVE tree AS (
        SELECT id, 1 AS depth FROM {CTX} WHERE id = %s AND user_id = %s
        UNION ALL
        SELECT c.id, tree.depth + 1 FROM {CTX} c JOIN tree ON c.parent_id = tree.id
        WHERE tree.depth < {int(levels)}
    )
"""  # noqa: S608 - table names from the models, values as parameters


_TREE_CTE = _tree_sql(MAX_CONTEXT_DEPTH)
# One level deeper than a tree may be: what checks a move against the depth limit reads.
_TREE_CHECKED = _tree_sql(MAX_CONTEXT_DEPTH + 1)
# `= ANY(ARRAY(...))` rather than joins, twice: the planner cannot estimate a recursive
# CTE, and guessing ~100 contexts it would hash-join against every claim of the user. An
# array is evaluated first and probed by index, so a leaf costs a few dozen probes (0.5
# ms instead of 2 ms with 10,000 claims) and a root no more than the hash join did.
_LINKED_IDS = f"""
    SELECT link.claim_id FROM {LINK} link
    WHERE link.context_id = ANY(ARRAY(SELECT id FROM tree))
"""  # noqa: S608 - table names from the models, values as parameters
_RESOLVE_SQL = f"""
    {_TREE_CTE}
    SELECT claim.id, claim.number, claim.friendly_id, claim.statement, claim.claim_types,
           claim.status, claim.possible_questions, claim.pinned
    FROM {CLAIM} claim
    WHERE claim.id = ANY(ARRAY({_LINKED_IDS})) AND claim.user_id = %s
      AND claim.status = ANY(%s)
    ORDER BY claim.updated_at DESC, claim.number DESC
"""  # noqa: S608 - table names from the models, values as parameters


def context_resolve_claims(*, user: User, context: Context) -> list[LeanClaim]:
    """Active and contested claims of ``context`` and all its descendants, de-duplicated,
    newest first — one recursive query (DESIGN §4)."""
    statuses = [str(status) for status in USABLE_STATUSES]
    with connection.cursor() as cursor:
        cursor.execute(_RESOLVE_SQL, [context.pk, user.pk, user.pk, statuses])
        return [LeanClaim(*row) for row in cursor.fetchall()]


def context_resolved_queryset(*, user: User, context: Context) -> QuerySet[Claim]:
    """The same claims as a queryset (one query when evaluated) for pages and the API,
    which paginate and need whole rows."""
    linked = RawSQL(f"{_TREE_CTE} {_LINKED_IDS}", [context.pk, user.pk])  # noqa: S611
    return Claim.objects.filter(user=user, status__in=USABLE_STATUSES, id__in=linked).order_by(
        "-updated_at", "-number"
    )


def context_descendant_ids(*, context: Context) -> list[uuid.UUID]:
    with connection.cursor() as cursor:
        tree = f"{_TREE_CHECKED} SELECT id FROM tree"  # noqa: S608 - SQL from code, values as parameters
        cursor.execute(tree, [context.pk, context.user_id])
        return [row[0] for row in cursor.fetchall()]


def context_depth(*, context: Context) -> int:
    """1 for a root context, 2 for its children, and so on."""
    return len(context_ancestors(context=context)) + 1


def context_subtree_height(*, context: Context) -> int:
    """Levels in the subtree rooted at ``context``: 1 for a leaf."""
    with connection.cursor() as cursor:
        deepest = f"{_TREE_CHECKED} SELECT max(depth) FROM tree"  # noqa: S608 - SQL from code, values as parameters
        cursor.execute(deepest, [context.pk, context.user_id])
        row = cursor.fetchone()
    return int(row[0]) if row and row[0] else 1


def context_ancestors(*, context: Context) -> list[Context]:
    """Root first, excluding ``context`` itself: the breadcrumb."""
    chain: list[Context] = []
    parent_id = context.parent_id
    seen: set[uuid.UUID] = set()
    while parent_id is not None and parent_id not in seen and len(chain) <= MAX_CONTEXT_DEPTH:
        seen.add(parent_id)
        parent = Context.objects.only("id", "name", "friendly_id", "parent_id").get(pk=parent_id)
        chain.append(parent)
        parent_id = parent.parent_id
    return list(reversed(chain))


def context_tree(*, user: User) -> list[tuple[Context, int]]:
    """Every context of the user in tree order with its depth (0 for roots), for display."""
    contexts = list(Context.objects.filter(user=user).order_by("name"))
    children: dict[uuid.UUID | None, list[Context]] = {}
    for context in contexts:
        children.setdefault(context.parent_id, []).append(context)
    ordered: list[tuple[Context, int]] = []

    def walk(parent_id: uuid.UUID | None, depth: int) -> None:
        for child in children.get(parent_id, []):
            ordered.append((child, depth))
            if depth < MAX_CONTEXT_DEPTH:
                walk(child.pk, depth + 1)

    walk(None, 0)
    return ordered


@dataclass(frozen=True, slots=True)
class Membership:
    """One claim in one context (not its subtree), and since when."""

    context_id: uuid.UUID
    claim_id: uuid.UUID
    added_at: datetime


def context_memberships(*, user: User, usable_only: bool = False) -> list[Membership]:
    """Every direct membership among the user's contexts and claims, oldest first (claims
    in their number order within a moment); with ``usable_only``, only those of active or
    contested claims."""
    links = ContextClaim.objects.filter(context__user=user, claim__user=user)
    if usable_only:
        links = links.filter(claim__status__in=USABLE_STATUSES)
    rows = links.order_by("added_at", "claim__number").values_list(
        "context_id", "claim_id", "added_at"
    )
    return [Membership(*row) for row in rows]


def claims_in_context(*, user: User, context: Context, recursive: bool = True) -> QuerySet[Claim]:
    """All of the user's claims linked to the context (and, by default, its subtree),
    whatever their status, as a queryset that filters compose with."""
    ids = context_descendant_ids(context=context) if recursive else [context.pk]
    return Claim.objects.filter(user=user, context_memberships__context_id__in=ids).distinct()
