"""BM25's tables (DESIGN §6, ``search._bm25``): each user's statistics per kind of row,
the terms, the postings of chunks and claims, their packed form and what changed since it
was packed. Kept current by database triggers (``lexical_triggers``, ``posting_triggers``),
never by Python; apart from the rows they describe by topic, and registered through
``indexing.models``, which imports them."""

from __future__ import annotations

from django.db import models


class LexicalCollection(models.Model):
    """BM25 statistics of one user's rows of one kind in one project (DESIGN §6): how
    many rows and how many tokens in all. ``kind`` is ``claim`` (project: the zero UUID;
    claims belong to the user), ``document``, ``message`` (a turn alone) or ``window`` (a
    turn with its neighbours). Kept current by triggers on the chunk and claim tables
    (migration 0002), so that statistics never mix users and never go stale."""

    user_id = models.BigIntegerField()
    project_key = models.UUIDField()
    kind = models.CharField(max_length=10)
    rows = models.BigIntegerField()
    tokens = models.BigIntegerField()

    class Meta:
        db_table = "indexing_lexical_collection"
        constraints = [
            models.UniqueConstraint(
                fields=["user_id", "kind", "project_key"], name="lexical_collection_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind} of user {self.user_id}: {self.rows} rows"


class LexicalTerm(models.Model):
    """Document frequency of one lexeme (as ``to_tsvector('english')`` stores it) among
    the rows of one ``LexicalCollection``."""

    user_id = models.BigIntegerField()
    project_key = models.UUIDField()
    kind = models.CharField(max_length=10)
    term = models.TextField()
    rows = models.BigIntegerField()

    class Meta:
        db_table = "indexing_lexical_term"
        constraints = [
            models.UniqueConstraint(
                fields=["user_id", "term", "kind", "project_key"], name="lexical_term_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.term!r} in {self.rows} {self.kind} rows of user {self.user_id}"


class ChunkPosting(models.Model):
    """One lexeme of one chunk, as BM25 reads it (DESIGN §6): of its text (``kind``
    ``DOCUMENT`` or ``MESSAGE``) or of a chat turn's window (``WINDOW``), with its term
    frequency and the vector's length in tokens. Kept by triggers on the chunk table
    (``posting_triggers``, migration 0007), never written by Python. Search reads a term's
    postings of one user from the primary key alone (it carries ``project_id``, ``tf`` and
    ``length``), instead of every matching row's ``tsvector``: the difference between a
    ranking in milliseconds and one in a tenth of a second on an account of 100,000 chunks
    (bench/bench_search.py)."""

    DOCUMENT, MESSAGE, WINDOW = 1, 2, 3

    pk = models.CompositePrimaryKey("user_id", "term", "kind", "chunk_id")
    user_id = models.BigIntegerField()
    term = models.TextField()
    kind = models.SmallIntegerField()
    chunk_id = models.BigIntegerField()
    project_id = models.UUIDField()
    tf = models.SmallIntegerField()
    length = models.IntegerField()

    class Meta:
        db_table = "indexing_chunk_posting"

    def __str__(self) -> str:
        return f"{self.term!r} in chunk {self.chunk_id}"


class ClaimPosting(models.Model):
    """One lexeme of one claim's statement (see ``ChunkPosting``)."""

    pk = models.CompositePrimaryKey("user_id", "term", "claim_id")
    user_id = models.BigIntegerField()
    term = models.TextField()
    claim_id = models.UUIDField()
    tf = models.SmallIntegerField()
    length = models.IntegerField()

    class Meta:
        db_table = "indexing_claim_posting"

    def __str__(self) -> str:
        return f"{self.term!r} in claim {self.claim_id}"


class PostingPack(models.Model):
    """A term's postings of one user, kind and project, packed: ``ChunkPosting`` rows of
    chunks up to the user's ``PostingPackState.through``, as big-endian arrays ordered by
    chunk (``chunk_ids`` int8, ``tfs`` int2, ``lengths`` int4, one entry per posting).
    Search reads a common term's 25,000 postings as three values instead of 25,000 index
    entries, and scores them in NumPy (``search._bm25.chunk_scores``); what changed since the pack
    was written is read from ``ChunkPosting`` (``PostingStale``). Written only by
    ``services.postings.postings_pack``."""

    pk = models.CompositePrimaryKey("user_id", "term", "kind", "project_id")
    user_id = models.BigIntegerField()
    term = models.TextField()
    kind = models.SmallIntegerField()
    project_id = models.UUIDField()
    chunk_ids = models.BinaryField()
    tfs = models.BinaryField()
    lengths = models.BinaryField()

    class Meta:
        db_table = "indexing_posting_pack"

    def __str__(self) -> str:
        return f"{self.term!r}: {len(self.chunk_ids) // 8} postings of user {self.user_id}"


class PostingPackState(models.Model):
    """How far a user's postings are packed: ``through``, the greatest chunk id the packs
    cover (later chunks are read from ``ChunkPosting``); ``packing_through``, the one a
    packing under way will cover (at least ``through``): the triggers mark a change to a
    chunk up to it stale, so a change the packing's snapshot misses is still read."""

    user_id = models.BigIntegerField(primary_key=True)
    through = models.BigIntegerField(default=0)
    packing_through = models.BigIntegerField(default=0)
    packing_since = models.DateTimeField(null=True)  # when the packing under way began
    packed_rows = models.BigIntegerField(default=0)  # the user's chunks when last packed
    packed_at = models.DateTimeField(null=True)

    class Meta:
        db_table = "indexing_posting_pack_state"

    def __str__(self) -> str:
        return f"user {self.user_id}: packed through chunk {self.through}"


class PostingStale(models.Model):
    """A packed chunk that changed (or was deleted, or written while a packing ran) since:
    its packed postings are ignored and its current ones read from ``ChunkPosting``. Not
    unique per chunk on purpose: a packing removes the marks its snapshot saw, and a mark
    written after it began must survive it."""

    user_id = models.BigIntegerField()
    chunk_id = models.BigIntegerField()
    # Deleted: its packed postings are only left out, it has no others to read.
    gone = models.BooleanField(default=False)

    class Meta:
        db_table = "indexing_posting_stale"
        indexes = [models.Index(fields=["user_id", "chunk_id"], name="posting_stale_user")]

    def __str__(self) -> str:
        return f"chunk {self.chunk_id} of user {self.user_id} changed since packed"
