"""Packing a user's BM25 postings (``PostingPack``): a common term's tens of thousands of
``ChunkPosting`` rows become three packed values, which search reads and scores in NumPy
(``search._bm25.chunk_scores``) instead of summing row by row in SQL.

Packs are a derived copy, never the truth: search reads the packs for chunks up to the
user's ``through``, ``ChunkPosting`` for later chunks and for those marked stale since
(the chunk trigger marks every packed chunk that is written, changed or deleted), so a
ranking is the same packed or not. Packing runs in the worker when enough has changed
(``postings_pack_if_due``), in two steps so that no chat message waits on it:

1. A short transaction takes the user's statistics lock, which every writer of the
   user's chunks holds until it commits, and announces ``packing_through``: the last chunk
   id handed out. A writer that commits after this step marks its chunks up to it stale.
2. A repeatable-read transaction, whose snapshot starts after step 1, rewrites the packs
   from ``ChunkPosting`` up to that id, removes the stale marks *it* sees (those made
   later survive: they may be changes its snapshot missed) and publishes ``through``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Sum
from django.utils import timezone

from ..lexical_triggers import USER_LOCK_SQL
from ..models import LexicalCollection, PostingPackState, PostingStale
from ..posting_triggers import LAST_CHUNK_ID_SQL, PACK_SQL
from .queue import enqueue

logger = logging.getLogger(__name__)

PACK_LOCK_CLASS = 1920  # session advisory lock: one packing of a user at a time
STALLED_PACKING_SECONDS = 3600  # a packing announced this long ago is taken to have died


class PackingAbandoned(Exception):
    """The account emptied while it was being packed; nothing was written."""


@dataclass(frozen=True)
class Packed:
    through: int
    terms: int
    postings: int


def postings_pack(*, user_id: int) -> Packed | None:
    """Pack every posting of the user's chunks; None when a packing of the user is already
    under way elsewhere.

    Meant to run in its own transactions (the worker, the ``pack_postings`` command).
    Inside a caller's transaction (the tests) both steps run in it: correct, but the
    user's writers then wait for the caller to commit."""
    key = [PACK_LOCK_CLASS, user_id % 2147483647]
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", key)
        if not cursor.fetchone()[0]:
            return None
    try:
        through = _announce(user_id)
        try:
            packed = _write_packs(user_id, through)
        except Exception:
            _not_under_way(user_id)
            raise
        try:
            _drop_emptied(user_id)
        except Exception:  # the packing stands; a later deletion or packing drops them
            logger.exception("dropping emptied packs of user %s failed", user_id)
        return packed
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s, %s)", key)


def _not_under_way(user_id: int) -> None:
    """After a failed packing: the next write that finds packing due queues it again
    (else the due check would wait ``STALLED_PACKING_SECONDS`` for this one)."""
    try:
        PostingPackState.objects.filter(user_id=user_id).update(packing_since=None)
    except Exception:  # the connection that failed the packing may be gone: it stalls
        logger.exception("could not mark the packing of user %s as ended", user_id)


def _announce(user_id: int) -> int:
    """Step 1: wait for the user's writers under way, then announce the id the packs will
    cover (never below what they cover already: packed chunks stay marked when changed)."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(USER_LOCK_SQL, [user_id])
        cursor.execute(LAST_CHUNK_ID_SQL)
        (last_id,) = cursor.fetchone()
        cursor.execute(
            "INSERT INTO indexing_posting_pack_state AS s "
            "(user_id, through, packing_through, packing_since, packed_rows) "
            "VALUES (%s, 0, %s, now(), 0) ON CONFLICT (user_id) DO UPDATE "
            "SET packing_through = greatest(s.through, excluded.packing_through), "
            "packing_since = now() RETURNING s.packing_through",
            [user_id, last_id],
        )
        (through,) = cursor.fetchone()
    return int(through)


def _write_packs(user_id: int, through: int) -> Packed:
    """Step 2: the packs rewritten from one snapshot taken after the announcement."""
    nested = connection.in_atomic_block
    with transaction.atomic(), connection.cursor() as cursor:
        if not nested:  # the first statement of the transaction sets its isolation
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        cursor.execute("DELETE FROM indexing_posting_pack WHERE user_id = %s", [user_id])
        cursor.execute(PACK_SQL, [user_id, through])
        terms = cursor.rowcount
        cursor.execute(
            "SELECT coalesce(sum(length(chunk_ids)) / 8, 0) FROM indexing_posting_pack "
            "WHERE user_id = %s",
            [user_id],
        )
        (postings,) = cursor.fetchone()
        # Only the marks this snapshot sees: one made since may be a change it missed.
        cursor.execute("DELETE FROM indexing_posting_stale WHERE user_id = %s", [user_id])
        published = PostingPackState.objects.filter(user_id=user_id).update(
            through=through,
            packing_since=None,
            packed_rows=_chunk_rows(user_id),
            packed_at=timezone.now(),
        )
        if not published:
            # Every chunk of the user was deleted since the announcement (its trigger
            # removed the state): packs without a state would be read twice over.
            raise PackingAbandoned(f"user {user_id} has no chunks left to pack")
    return Packed(through=through, terms=terms, postings=int(postings))


def _drop_emptied(user_id: int) -> None:
    """The packs of a project (or an account) whose last chunk was deleted while the
    packing read its snapshot, which still held them: the deletion's trigger found no
    packs to drop then. Under the user's lock, so a deletion under way has committed."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(USER_LOCK_SQL, [user_id])
        cursor.execute(
            "WITH gone AS MATERIALIZED (SELECT p.project_id FROM (SELECT DISTINCT project_id "
            "FROM indexing_posting_pack WHERE user_id = %s) AS p WHERE NOT EXISTS "
            "(SELECT 1 FROM indexing_lexical_collection AS c WHERE c.user_id = %s "
            "AND c.kind IN ('document', 'message') AND c.project_key = p.project_id)) "
            "DELETE FROM indexing_posting_pack AS k USING gone "
            "WHERE k.user_id = %s AND k.project_id = gone.project_id",
            [user_id, user_id, user_id],
        )
        if not _chunk_rows(user_id):
            PostingStale.objects.filter(user_id=user_id).delete()
            PostingPackState.objects.filter(user_id=user_id).delete()


def _chunk_rows(user_id: int) -> int:
    total = LexicalCollection.objects.filter(
        user_id=user_id, kind__in=["document", "message"]
    ).aggregate(rows=Sum("rows"))["rows"]
    return int(total or 0)


def postings_pack_due(*, user_id: int) -> bool:
    """Whether enough of the user's chunks are outside the packs to pack again.

    New chunks: ``CAIRN_POSTINGS_PACK_MIN_ROWS`` or a tenth of those packed, whichever is
    more. Proportional, so that an import of many batches packs a few dozen times, not
    after each (a packing rewrites every pack of the user: 8 s for 100,000 chunks,
    bench/bench_search.py); what is not packed yet costs search about what reading it
    unpacked does. Packed chunks changed or deleted since (stale marks): the setting
    alone, whatever the account's size, because a changed one is looked up term by term
    (on the 100,000-chunk account, 10,000 such marks took BM25 from p95 14 to 40 ms)."""
    state = PostingPackState.objects.filter(user_id=user_id).first()
    packed = state.packed_rows if state else 0
    if state and state.packing_since is not None:
        age = (timezone.now() - state.packing_since).total_seconds()
        if age < STALLED_PACKING_SECONDS:
            return False  # one is under way
    least = int(settings.CAIRN_POSTINGS_PACK_MIN_ROWS)
    marked = 0
    if state:
        marks = PostingStale.objects.filter(user_id=user_id).values("chunk_id").distinct()
        marked = marks.count()
        if marked >= least:
            return True
    return abs(_chunk_rows(user_id) - packed) + marked >= max(least, packed // 10)


def postings_pack_if_due(*, user_id: int) -> None:
    """Owe a packing of the user's postings, when due (asked again while one waits, it
    adds nothing)."""
    if postings_pack_due(user_id=user_id):
        enqueue("pack_postings", user_id)
