from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError

from apps.accounts.models import User
from apps.claims.services import claim_create, claim_update
from apps.contexts.models import Context
from apps.contexts.selectors import (
    context_ancestors,
    context_find_by_name,
    context_resolve_claims,
    context_resolved_queryset,
    context_tree,
)
from apps.contexts.services import (
    context_add_claims,
    context_create,
    context_move,
    context_remove_claims,
    context_update,
)

pytestmark = pytest.mark.django_db


def _chain(user: User, length: int) -> list[Context]:
    nodes: list[Context] = []
    for level in range(length):
        nodes.append(
            context_create(
                user=user, name=f"Level {level + 1}", parent=nodes[-1] if nodes else None
            )
        )
    return nodes


def test_resolve_collects_the_subtree_deduplicated_newest_first_in_one_query(
    user: User, django_assert_num_queries: Any
) -> None:
    root = context_create(user=user, name="Project Alpha", friendly_id="ssdva")
    backend = context_create(user=user, name="Backend", parent=root)
    api = context_create(user=user, name="API Design", parent=backend)
    frontend = context_create(user=user, name="Frontend", parent=root)
    c1 = claim_create(user=user, statement="Alpha ships in May")
    c2 = claim_create(user=user, statement="REST over JSON")
    c3 = claim_create(user=user, statement="React front end")
    contested = claim_create(user=user, statement="Maybe GraphQL", status="contested")
    retracted = claim_create(user=user, statement="Use SOAP", status="retracted")
    pending = claim_create(user=user, statement="Use gRPC", status="pending")
    context_add_claims(context=root, claims=[c1])
    context_add_claims(context=api, claims=[c2, contested, retracted, pending, c1])
    context_add_claims(context=frontend, claims=[c3, c2])
    claim_update(claim=c1, statement="Alpha ships in June")  # c1 becomes the newest

    with django_assert_num_queries(1):
        resolved = context_resolve_claims(user=user, context=root)

    assert [claim.id for claim in resolved] == [c1.id, contested.id, c3.id, c2.id]
    assert resolved[0].statement == "Alpha ships in June"
    assert [c.id for c in context_resolve_claims(user=user, context=backend)] == [
        c1.id,
        contested.id,
        c2.id,
    ]
    with django_assert_num_queries(1):
        assert list(context_resolved_queryset(user=user, context=root)) == [c1, contested, c3, c2]


def test_resolve_never_crosses_users(user: User, other_user: User) -> None:
    mine = context_create(user=user, name="Mine")
    theirs = claim_create(user=other_user, statement="secret")
    with pytest.raises(ValidationError):
        context_add_claims(context=mine, claims=[theirs])

    assert context_resolve_claims(user=other_user, context=mine) == []


def test_move_refuses_cycles_and_keeps_the_tree(user: User) -> None:
    a, b, c = _chain(user, 3)

    for new_parent in (a, b, c):
        with pytest.raises(ValidationError, match="under itself"):
            context_move(context=a, parent=new_parent)
    a.refresh_from_db()
    assert a.parent is None


def test_move_refuses_to_exceed_ten_levels(user: User) -> None:
    deep = _chain(user, 10)
    other_root, other_child = _chain(user, 2)

    with pytest.raises(ValidationError, match="at most 10 levels"):
        context_create(user=user, name="Eleven", parent=deep[-1])
    with pytest.raises(ValidationError, match="at most 10 levels"):
        context_move(context=other_root, parent=deep[-2])  # 9 + a subtree of 2 = 11
    context_move(context=other_child, parent=deep[-2])  # 9 + 1 = 10 is fine
    other_child.refresh_from_db()
    assert other_child.parent == deep[-2]


def test_move_under_another_users_context_is_refused(user: User, other_user: User) -> None:
    mine = context_create(user=user, name="Mine")
    theirs = context_create(user=other_user, name="Theirs")

    with pytest.raises(ValidationError, match="No such context"):
        context_move(context=mine, parent=theirs)


def test_rename_friendly_id_and_remove_claims(user: User) -> None:
    ctx = context_create(user=user, name="Health Goals")
    claim = claim_create(user=user, statement="Walk 10k steps")
    context_add_claims(context=ctx, claims=[claim, claim])
    assert ctx.friendly_id == "health_goals"

    context_update(context=ctx, name="Fitness", friendly_id="fit")
    assert context_remove_claims(context=ctx, claims=[claim]) == 1
    ctx.refresh_from_db()
    assert (ctx.name, ctx.friendly_id) == ("Fitness", "fit")
    assert context_resolve_claims(user=user, context=ctx) == []
    with pytest.raises(ValidationError):
        context_update(context=ctx, friendly_id="no spaces")


def test_name_fallback_ancestors_and_tree(user: User, other_user: User) -> None:
    root = context_create(user=user, name="My Health Goals")
    child = context_create(user=user, name="Sleep", parent=root)
    context_create(user=other_user, name="My Health Goals")

    assert context_find_by_name(user=user, name="my_health_goals") == root
    assert context_find_by_name(user=user, name="nothing") is None
    assert context_ancestors(context=child) == [root]
    assert context_tree(user=user) == [(root, 0), (child, 1)]
