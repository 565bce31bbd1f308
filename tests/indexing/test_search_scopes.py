"""A search's scopes (the rows each ranking may return) are compiled once per shape and
bound to each search's values: the statement and its parameters are exactly those of
compiling the search's own queryset, and they select the searcher's rows only."""

from __future__ import annotations

import itertools
import uuid
from datetime import UTC, datetime

import numpy as np
import pytest
from django.db import connection

from apps.accounts.models import User
from apps.indexing.models import Chunk
from apps.indexing.search._plans import VectorPlan
from apps.indexing.search._queries import (
    Scope,
    _padded,
    chunk_scope,
    claim_scope,
    compile_scopes,
    compile_window_scope,
    nearest,
    nearest_each,
    search_session,
    user_chunks,
    user_claims,
)
from apps.projects.models import Project
from apps.projects.services import project_ensure_personal
from tests.indexing.test_bm25 import add_passages

pytestmark = pytest.mark.django_db

KIND_CHOICES = [("document",), ("message",), ("document", "message"), ("message", "document")]
LEFT_OUT = [
    [],
    [uuid.uuid4()],
    [str(uuid.uuid4()), uuid.uuid4(), uuid.uuid4()],
    [uuid.uuid4() for _ in range(5)],
]
PERIODS = [None, (datetime(2024, 5, 1, tzinfo=UTC), datetime(2024, 6, 1, tzinfo=UTC))]


def compiled(
    user: User,
    project: Project | None,
    kinds: tuple[str, ...],
    left_out: list[uuid.UUID | str],
    period: tuple[datetime, datetime] | None,
    windows: bool,
) -> Scope:
    """The scope as compiling the search's own queryset makes it, the turns left out padded
    with an id no message has (as ``chunk_scope`` pads them)."""
    padded = _padded(tuple(uuid.UUID(str(pk)) for pk in left_out))
    chunks = user_chunks(user=user, project=project, kinds=kinds, exclude_message_ids=padded)
    if period is not None:
        chunks = chunks.filter(said_at__gte=period[0], said_at__lt=period[1])
    return compile_window_scope(chunks) if windows else compile_scopes(chunks, None)[0]


def test_every_shape_binds_to_the_statement_its_queryset_compiles_to(
    user: User, other_user: User, project: Project
) -> None:
    for searcher, in_project, kinds, left_out, period, windows in itertools.product(
        (user, other_user), (None, project), KIND_CHOICES, LEFT_OUT, PERIODS, (False, True)
    ):
        bound = chunk_scope(
            user_id=searcher.pk,
            project_id=in_project.pk if in_project else None,
            kinds=kinds,
            exclude_message_ids=left_out,
            said_between=period,
            windows=windows,
        )
        assert bound == compiled(searcher, in_project, kinds, left_out, period, windows)
    for searcher in (user, other_user):
        assert (
            claim_scope(user_id=searcher.pk) == compile_scopes(None, user_claims(user=searcher))[0]
        )


def test_a_chat_leaving_out_more_turns_each_turn_reuses_a_few_compiled_shapes(user: User) -> None:
    # A chat leaves out its own recent turns, one more each turn: every count compiled a
    # statement of its own; padded, counts up to 64 share seven.
    left_out = [uuid.uuid4() for _ in range(64)]
    statements = {
        chunk_scope(
            user_id=user.pk, project_id=None, kinds=("message",), exclude_message_ids=left_out[:n]
        ).sql
        for n in range(1, 65)
    }
    assert len(statements) == 7
    # The same turn twice is left out once.
    twice = chunk_scope(
        user_id=user.pk,
        project_id=None,
        kinds=("message",),
        exclude_message_ids=[left_out[0], str(left_out[0])],
    )
    assert (
        twice.sql
        == chunk_scope(
            user_id=user.pk, project_id=None, kinds=("message",), exclude_message_ids=left_out[:1]
        ).sql
    )


def test_a_bound_scope_selects_the_searchers_rows_only(
    user: User, other_user: User, project: Project
) -> None:
    mine = {chunk.pk for chunk in add_passages(project, ["mine one", "mine two"])}
    theirs = {chunk.pk for chunk in add_passages(project_ensure_personal(user=other_user), ["x"])}
    assert rows_of(chunk_scope(user_id=user.pk, project_id=None, kinds=("document",))) == mine
    assert rows_of(chunk_scope(user_id=other_user.pk, project_id=None, kinds=("document",))) == (
        theirs
    )


def rows_of(scope: Scope) -> set[int]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id FROM ({scope.sql}) AS s", scope.params)  # noqa: S608 - a scope from code
        return {row[0] for row in cursor.fetchall()}


def test_exact_search_returns_the_nearest_rows_of_each_search_in_order(
    user: User, other_user: User, project: Project
) -> None:
    """Every row of an exact plan is compared (each distance computed once) and the
    nearest come first, as comparing them here does; searches given together
    (``nearest_each``: a hybrid search's chunks and a period's turns) each get their own."""
    mine = add_passages(project, [f"passage {n}" for n in range(40)])
    add_passages(project_ensure_personal(user=other_user), [f"theirs {n}" for n in range(40)])
    query = np.random.default_rng(7).normal(size=384).astype(np.float32)
    query /= np.linalg.norm(query)
    vectors = {c.pk: np.asarray(c.embedding, dtype=np.float64) for c in mine}
    expected = sorted(vectors, key=lambda pk: -float(vectors[pk] @ query))
    scope = chunk_scope(user_id=user.pk, project_id=None, kinds=["document"])
    some = Chunk.objects.filter(pk__in=expected[::3])
    [part] = compile_scopes(some, None)
    exact = VectorPlan(exact=("chunk",))

    with search_session(["chunk"]):
        alone = nearest([scope], query, 5, exact)
        together = nearest_each([([scope], exact), ([part], exact)], query, 5)

    assert [c.id for c in alone] == expected[:5]
    assert [c.value for c in alone] == pytest.approx(
        [float(vectors[pk] @ query) for pk in expected[:5]], abs=1e-5
    )
    assert together[0] == alone
    assert [c.id for c in together[1]] == [pk for pk in expected if pk in expected[::3]][:5]
