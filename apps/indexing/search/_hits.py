"""A search's hits as the doors read them: each ranked row fetched once with only the
columns a hit shows, and told apart — a claim, a file's passage, a chat turn (asked of the
chat through ``TurnSource``, quoted without another answer's markers, marked whether it is
evidence)."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np
from django.db import connection
from django.utils import timezone

from apps.claims.models import Claim

from ..embeddings import Vector
from ..models import Chunk, Document
from ..turns import TurnSaid, turn_source
from ._diversity import Key, cosines, unit_vector
from ._evidence import is_evidence, turn_title
from ._queries import Candidate, ids_array, vector_literal
from ._quoting import quotable

EXCERPT_CHARS = 300


@dataclass(frozen=True)
class SearchHit:
    """One result with its provenance. ``score`` is the fused score (hybrid) or the single
    ranking's value; ``vector_similarity`` (cosine) and ``text_rank`` are None when the hit
    was not in that ranking. ``text`` is the whole passage (what a prompt quotes),
    ``excerpt`` its first few hundred characters."""

    kind: str  # "claim" | "document" | "message"
    score: float
    vector_similarity: float | None
    text_rank: float | None
    claim_id: uuid.UUID | None = None
    claim_number: int | None = None
    chunk_id: int | None = None
    document_id: uuid.UUID | None = None
    document_path: str | None = None
    start: int | None = None
    end: int | None = None
    conversation_id: uuid.UUID | None = None
    message_id: uuid.UUID | None = None
    project_id: uuid.UUID | None = None
    title: str = ""
    excerpt: str = ""
    text: str = ""
    created_at: datetime | None = None
    # A chat turn said, or a file written, in the period the query names ("in May 2024").
    in_period: bool = False
    # What someone said or wrote (``evidence.is_evidence``); False for Cairn's answers.
    evidence: bool = True


def wording(hit: SearchHit) -> tuple[str, bool, str]:
    """What two hits share when one repeats the other (``diversity.repeats_last``): their
    kind, whether someone said it or Cairn did (``evidence``), and their words, whatever
    the case and the spacing."""
    return (hit.kind, hit.evidence, " ".join(hit.text.casefold().split()))


@dataclass(frozen=True)
class _ClaimRow:
    id: uuid.UUID
    number: int
    statement: str
    created_at: datetime


@dataclass(frozen=True)
class _ChunkRow:
    id: int
    message_id: uuid.UUID | None
    project_id: uuid.UUID | None
    chunk_index: int
    start: int
    end: int
    text: str
    created_at: datetime
    document_id: uuid.UUID | None
    document_path: str | None
    document_indexed_at: datetime | None
    document_chunk_count: int | None


# What a hit shows (``_claim_hit``, ``_passage_hit``, ``_turn_hit``), and no more: every
# search fetches its hits, claims and chunks (with their files) in one statement, as plain
# rows (building models and compiling querysets cost more than the statement itself:
# bench/bench_search.py). The same statement reads each row's embedding when the search
# diversifies (pgvector's binary form: ``diversity.unit_vector``) — a round trip of its
# own before — and otherwise the similarity to the query of those not ranked by it.
_HITS_SQL = (
    "SELECT 'claim', c.id::text, c.number, c.statement, c.created_at, NULL::uuid, NULL::uuid, "  # noqa: S608 - tables from code, values as parameters
    "  NULL::integer, NULL::integer, NULL::integer, NULL::uuid, NULL::text, NULL::timestamptz, "
    "  NULL::integer, CASE WHEN c.id = ANY(%s::uuid[]) AND c.embedding IS NOT NULL "
    "  THEN 1 - (c.embedding <=> %s::vector) END, "
    "  CASE WHEN %s::boolean THEN vector_send(c.embedding) END "
    f"FROM {Claim._meta.db_table} AS c WHERE c.id = ANY(%s::uuid[]) "
    "UNION ALL "
    "SELECT 'chunk', k.id::text, NULL, k.text, k.created_at, k.message_id, k.project_id, "
    '  k.chunk_index, k.start, k."end", d.id, d.path, d.indexed_at, d.chunk_count, '
    "  CASE WHEN k.id = ANY(%s::bigint[]) AND k.embedding IS NOT NULL "
    "  THEN 1 - (k.embedding <=> %s::vector) END, "
    "  CASE WHEN %s::boolean THEN vector_send(k.embedding) END "
    f"FROM {Chunk._meta.db_table} AS k "
    # Each hit's file looked up by its key: joined plainly, the planner hashed every file
    # of every account instead (4,000 on bench_search.py's data: 1.6 of the statement's
    # 1.9 ms, whether it read 10 hits or 30). OFFSET 0 keeps the lookup as it is written.
    "LEFT JOIN LATERAL (SELECT d.id, d.path, d.indexed_at, d.chunk_count "
    f"  FROM {Document._meta.db_table} AS d WHERE d.id = k.document_id OFFSET 0) AS d ON true "
    "WHERE k.id = ANY(%s::bigint[])"
)


@dataclass(frozen=True)
class Rows:
    """What ``read_rows`` read of a search's ranked candidates: their rows, the cosine
    similarity to the query of those no vector ranking gave one, and (when asked for)
    their unit-length embeddings."""

    claims: dict[uuid.UUID, _ClaimRow]
    chunks: dict[int, _ChunkRow]
    similarity: dict[Key, float]
    vectors: dict[Key, np.ndarray] | None = None


def _hits(
    fused: Sequence[tuple[Candidate, float]],
    by_vector: Iterable[Candidate],
    by_text: Iterable[Candidate],
    query_vector: Vector | None = None,
) -> list[SearchHit]:
    """The hits of ``fused``, best first (``read_rows``, then ``hits_of``)."""
    rows = read_rows([c for c, _ in fused], by_vector, query_vector)
    return hits_of(fused, rows, by_text)


def read_rows(
    candidates: Sequence[Candidate],
    by_vector: Iterable[Candidate],
    query_vector: Vector | None = None,
    *,
    vectors: bool = False,
) -> Rows:
    """The rows of ``candidates`` in one statement, each with its cosine similarity: from
    ``by_vector``, or else, when ``query_vector`` is given, computed from its row — every
    hit has one, so that a caller's cite threshold applies to all alike (issue 17) and a
    passage that only shares a word with the question is not cited for it. ``vectors``
    reads the rows' embeddings too (for ``diversity``), and the missing similarities are
    then computed from them."""
    similarity: dict[Key, float] = {(c.kind, c.id): c.value for c in by_vector}
    if not candidates:
        return Rows({}, {}, similarity, {} if vectors else None)
    missing = [c for c in candidates if (c.kind, c.id) not in similarity]
    literal = vector_literal(query_vector) if query_vector is not None and not vectors else None
    unknown = [] if literal is None else missing
    with connection.cursor() as cursor:
        cursor.execute(
            _HITS_SQL,
            [
                ids_array(c.id for c in unknown if c.kind == "claim"),
                literal,
                vectors,
                ids_array(c.id for c in candidates if c.kind == "claim"),
                ids_array(c.id for c in unknown if c.kind == "chunk"),
                literal,
                vectors,
                ids_array(c.id for c in candidates if c.kind == "chunk"),
            ],
        )
        fetched = cursor.fetchall()
    claims, chunks, read = {}, {}, {}
    for kind, pk, number, text, created_at, *chunk_columns, computed, binary in fetched:
        if kind == "claim":
            claim = _ClaimRow(uuid.UUID(pk), number, text, created_at)
            claims[claim.id] = claim
            key: Key = ("claim", claim.id)
        else:
            message_id, project_id, index, start, end, *document = chunk_columns
            chunk = _ChunkRow(
                int(pk), message_id, project_id, index, start, end, text, created_at, *document
            )
            chunks[chunk.id] = chunk
            key = ("chunk", chunk.id)
        if computed is not None:
            similarity[key] = float(computed)
        if binary is not None:
            read[key] = unit_vector(binary)
    if not vectors:
        return Rows(claims, chunks, similarity)
    if query_vector is not None:
        similarity.update({(c.kind, c.id): c.value for c in cosines(missing, read, query_vector)})
    return Rows(claims, chunks, similarity, read)


def hits_of(
    fused: Sequence[tuple[Candidate, float]], rows: Rows, by_text: Iterable[Candidate]
) -> list[SearchHit]:
    """The hits of ``fused`` (whose rows ``rows`` holds), best first, each with its
    similarity and its BM25 score from ``by_text``; a row gone since it was ranked is left
    out."""
    rank = {(c.kind, c.id): c.value for c in by_text}
    # A chat turn's words, speaker and conversation are the chat's: asked of it (DESIGN §2).
    chunks = [rows.chunks[c.id] for c, _ in fused if c.kind == "chunk" and c.id in rows.chunks]  # type: ignore[index]
    turn_ids = [chunk.message_id for chunk in chunks if chunk.message_id is not None]
    turns = turn_source().said(message_ids=turn_ids) if turn_ids else {}
    # Today, once: each turn's title says its year only when it is not this one.
    now = timezone.localtime()
    hits = []
    for candidate, score in fused:
        key = (candidate.kind, candidate.id)
        common = {
            "score": score,
            "vector_similarity": rows.similarity.get(key),
            "text_rank": rank.get(key),
        }
        if candidate.kind == "claim" and candidate.id in rows.claims:
            hits.append(_claim_hit(rows.claims[candidate.id], **common))  # type: ignore[index]
        elif candidate.kind == "chunk" and candidate.id in rows.chunks:
            chunk = rows.chunks[candidate.id]  # type: ignore[index]
            if chunk.message_id is None:
                hits.append(_passage_hit(chunk, **common))
            elif chunk.message_id in turns:  # a turn deleted since it was ranked is gone
                hits.append(_turn_hit(chunk, turns[chunk.message_id], now, **common))
    return hits


def _claim_hit(claim: _ClaimRow, **common: float | None) -> SearchHit:
    return SearchHit(
        kind="claim",
        claim_id=claim.id,
        claim_number=claim.number,
        title=f"#{claim.number}",  # one short ID per claim (issue 30)
        excerpt=_excerpt(claim.statement),
        text=claim.statement,
        created_at=claim.created_at,
        **common,  # type: ignore[arg-type]
    )


def _passage_hit(chunk: _ChunkRow, **common: float | None) -> SearchHit:
    # A chunk is of exactly one document or message.
    assert chunk.document_id is not None
    assert chunk.document_path is not None
    return SearchHit(
        kind="document",
        chunk_id=chunk.id,
        document_id=chunk.document_id,
        document_path=chunk.document_path,
        start=chunk.start,
        end=chunk.end,
        project_id=chunk.project_id,
        title=_passage_title(chunk),
        excerpt=_excerpt(chunk.text),
        text=chunk.text,
        created_at=chunk.document_indexed_at or chunk.created_at,
        **common,  # type: ignore[arg-type]
    )


def _turn_hit(chunk: _ChunkRow, turn: TurnSaid, now: datetime, **common: float | None) -> SearchHit:
    # Quoted without another answer's citation markers or footer (issue 28).
    passage = quotable(turn.content[chunk.start : chunk.end])
    title = turn_title(
        role=turn.role,
        external_source=turn.external_source,
        created_at=turn.created_at,
        text=passage,
        now=now,
    )
    return SearchHit(
        kind="message",
        chunk_id=chunk.id,
        start=chunk.start,
        end=chunk.end,
        conversation_id=turn.conversation_id,
        message_id=turn.message_id,
        project_id=chunk.project_id,
        title=title,
        excerpt=_excerpt(passage),
        text=passage,
        created_at=turn.created_at,
        evidence=is_evidence(
            role=turn.role,
            status=turn.status,
            external_source=turn.external_source,
            content=turn.content,
        ),
        **common,  # type: ignore[arg-type]
    )


def _passage_title(chunk: _ChunkRow) -> str:
    """The file's path, and which of its passages this is when it has several (two
    passages of one file cited in one answer would otherwise look the same)."""
    count = chunk.document_chunk_count or 0
    if count <= 1:
        return str(chunk.document_path)
    return f"{chunk.document_path}, passage {chunk.chunk_index + 1} of {count}"


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    if len(text) <= EXCERPT_CHARS:
        return text
    cut = text.rfind(" ", 0, EXCERPT_CHARS)
    return text[: cut if cut > EXCERPT_CHARS // 2 else EXCERPT_CHARS].rstrip() + "…"
