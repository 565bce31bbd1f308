"""Packed postings (``PostingPack``): BM25 rankings are the same packed or not, as rows
are added, rewritten and deleted after a packing, and a write that lands while a packing
runs is not lost."""

from __future__ import annotations

import importlib
import io
import random
import threading
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import override_settings

from apps.accounts.models import User
from apps.indexing.models import Chunk, ChunkPosting, PostingPack, PostingPackState, PostingStale
from apps.indexing.search._bm25 import _summed
from apps.indexing.services.postings import PackingAbandoned, postings_pack, postings_pack_due
from apps.projects.models import Project
from apps.projects.services import project_create
from tests.indexing.test_bm25 import (
    add_passages,
    agreement,
    cairn_ranking,
    queries,
    vocabulary,
    zipf_text,
)

pytestmark = pytest.mark.django_db


def corpus(user: User, rng: random.Random) -> tuple[list[str], Project, list[Chunk]]:
    words = vocabulary(300, rng)
    project = project_create(owner=user, name="Notes")
    chunks = add_passages(project, [zipf_text(words, rng, rng.randint(5, 80)) for _ in range(200)])
    return words, project, chunks


def rankings(user: User, asked: list[str], project: Project | None = None) -> list[list[Any]]:
    return [
        [(pk, round(score, 9)) for pk, score in cairn_ranking(user, query, project)]
        for query in asked
    ]


def test_a_packing_copies_every_posting_and_leaves_rankings_unchanged(user: User) -> None:
    # Given a user's passages, ranked from the posting rows alone
    rng = random.Random(5)
    words, project, _ = corpus(user, rng)
    asked = queries(words, rng, 40)
    unpacked = rankings(user, asked)

    # When the postings are packed
    packed = postings_pack(user_id=user.pk)

    # Then the packs hold exactly the posting rows, entry by entry, and every ranking is the
    # same as before, across the account and within the project
    assert packed is not None
    assert packed.postings == ChunkPosting.objects.filter(user_id=user.pk).count()
    assert unpacked_postings(user) == set(
        ChunkPosting.objects.filter(user_id=user.pk).values_list(
            "term", "kind", "chunk_id", "tf", "length"
        )
    )
    assert PostingPackState.objects.get(user_id=user.pk).through >= max(
        Chunk.objects.filter(user=user).values_list("id", flat=True)
    )
    assert rankings(user, asked) == unpacked
    assert agreement(user, asked) >= 0.95
    assert agreement(user, asked, project=project) >= 0.95


def unpacked_postings(user: User) -> set[tuple[str, int, int, int, int]]:
    found = set()
    for pack in PostingPack.objects.filter(user_id=user.pk):
        ids = np.frombuffer(bytes(pack.chunk_ids), ">i8").tolist()
        tfs = np.frombuffer(bytes(pack.tfs), ">i2").tolist()
        lengths = np.frombuffer(bytes(pack.lengths), ">i4").tolist()
        found |= {
            (pack.term, pack.kind, pk, tf, length)
            for pk, tf, length in zip(ids, tfs, lengths, strict=True)
        }
    return found


def test_rows_added_rewritten_and_deleted_after_a_packing_rank_as_they_are_now(
    user: User, other_user: User
) -> None:
    # Given packed postings
    rng = random.Random(8)
    words, project, chunks = corpus(user, rng)
    postings_pack(user_id=user.pk)
    asked = [*queries(words, rng, 40), "zanzibar", f"zanzibar {words[0]}"]

    # When passages are deleted, others rewritten and new ones added (and another account
    # writes the same words)
    Chunk.objects.filter(pk__in=[c.pk for c in chunks[:40]]).delete()
    Chunk.objects.filter(pk__in=[c.pk for c in chunks[40:50]]).update(text="zanzibar zanzibar")
    add_passages(project, [zipf_text(words[100:], rng, 30) for _ in range(60)])
    add_passages(project_create(owner=other_user, name="Theirs"), ["zanzibar"] * 50)

    # Then the changed packed rows are marked, and the rankings are those of the rows as
    # they are now: equal to the reference, and to a packing done afresh
    marks = list(PostingStale.objects.filter(user_id=user.pk).values_list("chunk_id", "gone"))
    assert (
        sorted(marks)
        == sorted(  # once each; the deleted ones have nothing more to read
            [(c.pk, True) for c in chunks[:40]] + [(c.pk, False) for c in chunks[40:50]]
        )
    )
    assert agreement(user, asked) >= 0.95
    zanzibar = cairn_ranking(user, "zanzibar")
    assert {pk for pk, _ in zanzibar} == {c.pk for c in chunks[40:50]}
    now = rankings(user, asked)
    postings_pack(user_id=user.pk)
    assert rankings(user, asked) == now
    assert not PostingStale.objects.filter(user_id=user.pk).exists()


@override_settings(CAIRN_POSTINGS_PACK_MIN_ROWS=50)
def test_packing_is_due_once_enough_changed(user: User, project: Project) -> None:
    rng = random.Random(2)
    words = vocabulary(50, rng)
    assert not postings_pack_due(user_id=user.pk)
    add_passages(project, [zipf_text(words, rng, 10) for _ in range(60)])
    assert postings_pack_due(user_id=user.pk)
    postings_pack(user_id=user.pk)
    assert not postings_pack_due(user_id=user.pk)
    add_passages(project, [zipf_text(words, rng, 10) for _ in range(49)])
    assert not postings_pack_due(user_id=user.pk)
    add_passages(project, [zipf_text(words, rng, 10)])
    assert postings_pack_due(user_id=user.pk)


@override_settings(CAIRN_POSTINGS_PACK_MIN_ROWS=3)
def test_indexing_queues_the_packing_when_due(
    user: User,
    project: Project,
    django_capture_on_commit_callbacks: Callable[..., Any],
    fake_provider: object,
) -> None:
    # Given a conversation imported in one batch (the worker runs jobs inline in tests)
    from apps.indexing.services import messages_index
    from tests.indexing.conftest import conversation_with

    _, messages = conversation_with(
        user, project, [("user", f"Turn {n} about zanzibar") for n in range(6)]
    )

    # When it is indexed and the transaction commits
    with django_capture_on_commit_callbacks(execute=True):
        messages_index(message_ids=[m.pk for m in messages])

    # Then the user's postings were packed
    state = PostingPackState.objects.get(user_id=user.pk)
    assert state.through > 0
    assert state.packed_at is not None
    assert PostingPack.objects.filter(user_id=user.pk, term="zanzibar").exists()


@pytest.mark.django_db(transaction=True)
def test_a_write_committed_while_a_packing_runs_is_not_lost(user: User) -> None:
    # Given packed passages
    rng = random.Random(13)
    _, project, chunks = corpus(user, rng)
    postings_pack(user_id=user.pk)
    rewritten, deleted = chunks[0], chunks[1]

    # When, after a second packing has taken its snapshot, another connection rewrites one
    # packed passage, deletes another and adds one, and commits before the packing ends
    def concurrent_writes() -> None:
        try:
            Chunk.objects.filter(pk=rewritten.pk).update(text="quokka sightings on rottnest")
            Chunk.objects.filter(pk=deleted.pk).delete()
            add_passages(project, ["quokka selfies and more quokka"])
        finally:
            connection.close()

    def after_snapshot(
        execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any
    ):
        # After the packs are written from the snapshot, before the marks it saw go
        if sql.startswith("DELETE FROM indexing_posting_stale"):
            writer = threading.Thread(target=concurrent_writes)
            writer.start()
            writer.join()
        return execute(sql, params, many, context)

    with connection.execute_wrapper(after_snapshot):
        postings_pack(user_id=user.pk)

    # Then search sees the writes: the packs missed them, the marks they left did not
    found = {pk for pk, _ in cairn_ranking(user, "quokka")}
    assert rewritten.pk in found
    assert len(found) == 2
    assert deleted.pk not in {pk for pk, _ in cairn_ranking(user, deleted.text)}
    assert rankings(user, ["quokka", deleted.text]) == fresh_rankings(
        user, ["quokka", deleted.text]
    )


def fresh_rankings(user: User, asked: list[str]) -> list[list[Any]]:
    """The rankings after packing again from nothing missed."""
    postings_pack(user_id=user.pk)
    return rankings(user, asked)


def test_packs_never_mix_accounts(user: User, other_user: User) -> None:
    rng = random.Random(21)
    words, _, _ = corpus(user, rng)
    add_passages(project_create(owner=other_user, name="Theirs"), [" ".join(words[:5])] * 30)
    postings_pack(user_id=other_user.pk)
    asked = queries(words, rng, 20)
    before = rankings(user, asked)

    postings_pack(user_id=user.pk)

    assert rankings(user, asked) == before
    for owner in (user, other_user):
        packed = {pk for _, _, pk, _, _ in unpacked_postings(owner)}
        assert packed == set(Chunk.objects.filter(user=owner).values_list("id", flat=True))


def test_the_command_packs_the_accounts_due(user: User, other_user: User) -> None:
    # Given one account with passages (due: nothing packed yet) and one without any
    rng = random.Random(4)
    corpus(user, rng)
    out, err = io.StringIO(), io.StringIO()

    # When the operator packs
    with override_settings(CAIRN_POSTINGS_PACK_MIN_ROWS=10):
        call_command("pack_postings", stdout=out, stderr=err)

    # Then the account's postings are packed, and the command says how many
    count = ChunkPosting.objects.filter(user_id=user.pk).count()
    assert f"Packed {count:,} postings of 1 user(s)." in out.getvalue()
    assert "1/1" in err.getvalue()
    assert unpacked_postings(user)
    assert not PostingPack.objects.filter(user_id=other_user.pk).exists()


def test_the_command_names_an_unknown_user() -> None:
    with pytest.raises(CommandError, match=r"No user with the e-mail address nobody@example\.com"):
        call_command("pack_postings", user="nobody@example.com")


def test_search_reads_the_packs(user: User) -> None:
    # Given packed postings
    rng = random.Random(17)
    words, _, _ = corpus(user, rng)
    asked = queries(words, rng, 20)
    postings_pack(user_id=user.pk)
    before = rankings(user, asked)

    # When the posting rows are removed behind the triggers' back (replica role)
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute("DELETE FROM indexing_chunk_posting WHERE user_id = %s", [user.pk])
        cursor.execute("SET LOCAL session_replication_role = origin")

    # Then the rankings are unchanged: they came from the packs
    assert rankings(user, asked) == before
    assert any(before)


def test_deleting_a_project_or_an_account_leaves_no_packed_words(
    user: User, other_user: User
) -> None:
    # Given an account with two projects, packed
    rng = random.Random(23)
    _, first, _ = corpus(user, rng)
    second = project_create(owner=user, name="Second")
    add_passages(second, ["zanzibar spice market"] * 5)
    add_passages(project_create(owner=other_user, name="Theirs"), ["zanzibar"] * 5)
    postings_pack(user_id=user.pk)
    postings_pack(user_id=other_user.pk)

    # When a project is deleted, then the account
    Chunk.objects.filter(project=second).delete()

    # Then the project's packs went with its last passage, and the account's with it
    assert not PostingPack.objects.filter(user_id=user.pk, project_id=second.pk).exists()
    assert PostingPack.objects.filter(user_id=user.pk, project_id=first.pk).exists()
    user.delete()
    assert not PostingPack.objects.filter(user_id=user.pk).exists()
    assert not PostingPackState.objects.filter(user_id=user.pk).exists()
    assert not PostingStale.objects.filter(user_id=user.pk).exists()
    assert PostingPack.objects.filter(user_id=other_user.pk, term="zanzibar").exists()


def test_the_upgrade_packs_accounts_already_large(user: User, other_user: User) -> None:
    # Given an account large enough to pack and a small one, as an upgrade finds them
    migration = importlib.import_module("apps.indexing.migrations.0010_pack_large_accounts")
    rng = random.Random(29)
    words, _, _ = corpus(user, rng)
    add_passages(project_create(owner=other_user, name="Small"), ["a few words"] * 10)
    asked = queries(words, rng, 20)
    unpacked = rankings(user, asked)

    # When the migration's packing runs (twice: it may be run again)
    with override_settings(CAIRN_POSTINGS_PACK_MIN_ROWS=100):
        migration.pack_large_accounts(None, SimpleNamespace(connection=connection))
        migration.pack_large_accounts(None, SimpleNamespace(connection=connection))

    # Then the large account is packed as the worker would pack it, the small one is not
    assert unpacked_postings(user) == set(
        ChunkPosting.objects.filter(user_id=user.pk).values_list(
            "term", "kind", "chunk_id", "tf", "length"
        )
    )
    assert rankings(user, asked) == unpacked
    assert not postings_pack_due(user_id=user.pk)
    assert not PostingPackState.objects.filter(user_id=other_user.pk).exists()


def test_a_packing_of_an_account_emptied_meanwhile_writes_nothing(user: User) -> None:
    # Given passages never packed, and an account emptied while the packing reads (its
    # state removed by the deletion's trigger)
    rng = random.Random(31)
    words, _, _ = corpus(user, rng)
    asked = queries(words, rng, 10)
    before = rankings(user, asked)

    def state_removed(execute: Callable[..., Any], sql: str, *rest: Any) -> Any:
        if sql.startswith("DELETE FROM indexing_posting_stale"):
            PostingPackState.objects.filter(user_id=user.pk).delete()
        return execute(sql, *rest)

    # When the packing goes on
    with connection.execute_wrapper(state_removed), pytest.raises(PackingAbandoned):
        postings_pack(user_id=user.pk)

    # Then it wrote no packs (packs without their state would count twice)
    assert not PostingPack.objects.filter(user_id=user.pk).exists()
    assert rankings(user, asked) == before


def test_packs_without_their_state_are_not_read(user: User) -> None:
    rng = random.Random(37)
    words, _, _ = corpus(user, rng)
    asked = queries(words, rng, 10)
    before = rankings(user, asked)
    postings_pack(user_id=user.pk)

    PostingPackState.objects.filter(user_id=user.pk).delete()

    assert rankings(user, asked) == before


@override_settings(CAIRN_POSTINGS_PACK_MIN_ROWS=10)
def test_packing_is_due_after_few_changes_to_packed_rows(user: User) -> None:
    # Given a packed account of 200 passages (a tenth of it: 20)
    rng = random.Random(41)
    _, _, chunks = corpus(user, rng)
    postings_pack(user_id=user.pk)

    # When packed passages are rewritten (each then read term by term)
    Chunk.objects.filter(pk__in=[c.pk for c in chunks[:9]]).update(text="rewritten")
    assert not postings_pack_due(user_id=user.pk)
    Chunk.objects.filter(pk=chunks[9].pk).update(text="rewritten too")

    # Then packing is due at the least count, not at a tenth of the account
    assert postings_pack_due(user_id=user.pk)


@pytest.mark.parametrize("far", [7, 10**12])  # dense ids, and a range too wide to count over
def test_stale_chunks_lose_their_packed_weights_only(far: int) -> None:
    packed = [(np.array([1, 2, far]), np.array([1.0, 2.0, 4.0]))]
    read_now = [(np.array([2, 3]), np.array([0.5, 0.25]))]

    scores = _summed(packed, read_now, stale=np.array([2, far]))

    assert dict(zip(scores.ids.tolist(), scores.values.tolist(), strict=True)) == {
        1: 1.0,
        2: 0.5,
        3: 0.25,
    }
