"""A search's hits as the doors read them: each ranked row fetched once with only the
columns a hit shows, and told apart — a claim, a file's passage, a chat turn (asked of the
chat through ``TurnSource``, quoted without another answer's markers, marked whether it is
evidence)."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from apps.claims.models import Claim

from ..models import Chunk, Document
from ..turns import TurnSaid, turn_source
from ._evidence import is_evidence, turn_title
from ._queries import Candidate
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


# What a hit shows (``_claim_hit``, ``_chunk_hit``), and no more: every search fetches its
# hits, and building the rows' other columns (vectors, tsvectors, a turn's context) cost a
# millisecond of the search's thirty (bench/bench_search.py).
_CLAIM_FIELDS = ("id", "number", "friendly_id", "statement", "created_at")
_CHUNK_FIELDS = (
    *("id", "document_id", "message_id", "project_id", "chunk_index", "start", "end"),
    *("text", "created_at"),
    *("document__id", "document__path", "document__indexed_at", "document__chunk_count"),
)


def _hits(
    fused: Sequence[tuple[Candidate, float]],
    by_vector: Iterable[Candidate],
    by_text: Iterable[Candidate],
) -> list[SearchHit]:
    similarity = {(c.kind, c.id): c.value for c in by_vector}
    rank = {(c.kind, c.id): c.value for c in by_text}
    claims = Claim.objects.only(*_CLAIM_FIELDS).in_bulk(
        [c.id for c, _ in fused if c.kind == "claim"]
    )
    # Unordered: a chunk's default order follows its message into the chat's tables.
    chunks = (
        Chunk.objects.select_related("document")
        .only(*_CHUNK_FIELDS)
        .order_by()
        .in_bulk([c.id for c, _ in fused if c.kind == "chunk"])
    )
    # A chat turn's words, speaker and conversation are the chat's: asked of it (DESIGN §2).
    turn_ids = [chunk.message_id for chunk in chunks.values() if chunk.message_id is not None]
    turns = turn_source().said(message_ids=turn_ids) if turn_ids else {}
    hits = []
    for candidate, score in fused:
        key = (candidate.kind, candidate.id)
        common = {
            "score": score,
            "vector_similarity": similarity.get(key),
            "text_rank": rank.get(key),
        }
        if candidate.kind == "claim" and candidate.id in claims:
            hits.append(_claim_hit(claims[candidate.id], **common))  # type: ignore[index]
        elif candidate.kind == "chunk" and candidate.id in chunks:
            chunk = chunks[candidate.id]  # type: ignore[index]
            if chunk.message_id is None:
                hits.append(_passage_hit(chunk, **common))
            elif chunk.message_id in turns:  # a turn deleted since it was ranked is gone
                hits.append(_turn_hit(chunk, turns[chunk.message_id], **common))
    return hits


def _claim_hit(claim: Claim, **common: float | None) -> SearchHit:
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


def _passage_hit(chunk: Chunk, **common: float | None) -> SearchHit:
    document = chunk.document
    assert document is not None  # a chunk is of exactly one document or message
    return SearchHit(
        kind="document",
        chunk_id=chunk.id,
        document_id=document.id,
        document_path=document.path,
        start=chunk.start,
        end=chunk.end,
        project_id=chunk.project_id,
        title=_passage_title(document, chunk),
        excerpt=_excerpt(chunk.text),
        text=chunk.text,
        created_at=document.indexed_at or chunk.created_at,
        **common,  # type: ignore[arg-type]
    )


def _turn_hit(chunk: Chunk, turn: TurnSaid, **common: float | None) -> SearchHit:
    # Quoted without another answer's citation markers or footer (issue 28).
    passage = quotable(turn.content[chunk.start : chunk.end])
    title = turn_title(
        role=turn.role,
        external_source=turn.external_source,
        created_at=turn.created_at,
        text=passage,
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


def _passage_title(document: Document, chunk: Chunk) -> str:
    """The file's path, and which of its passages this is when it has several (two
    passages of one file cited in one answer would otherwise look the same)."""
    if document.chunk_count <= 1:
        return document.path
    return f"{document.path}, passage {chunk.chunk_index + 1} of {document.chunk_count}"


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    if len(text) <= EXCERPT_CHARS:
        return text
    cut = text.rfind(" ", 0, EXCERPT_CHARS)
    return text[: cut if cut > EXCERPT_CHARS // 2 else EXCERPT_CHARS].rstrip() + "…"
