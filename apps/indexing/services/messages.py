"""Indexing chat messages, in the background, never in the way of a reply (DESIGN §6, §7)."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence

from django.db import transaction

from ..chunking import TextChunk, chunk_message_text, message_window_context
from ..embeddings import EmbeddingProvider, get_embedding_provider
from ..mentions import as_read, speaker_of
from ..models import Chunk
from ..turns import TurnToIndex, turn_source
from .mentions import chunk_mentions_write
from .postings import postings_pack_if_due
from .queue import enqueue
from .units import units_enqueue

logger = logging.getLogger(__name__)

ACCEPTED = "accepted"


def message_index_enqueue(*, message_id: uuid.UUID) -> str:
    """Owe the indexing of the chat message ``message_id``: a row of the ledger written in
    the caller's transaction (the one that saves the message), so the message is owed its
    indexing exactly when it is saved. Returns ``"accepted"``; a database that cannot take
    the row raises, and the message's own transaction fails with it."""
    enqueue("index_message", str(message_id))
    return ACCEPTED


def message_index(*, message_id: uuid.UUID | str, provider: EmbeddingProvider | None = None) -> int:
    """(Re-)index one message; returns its number of chunks (0 if it is gone or empty).

    Each chunk is embedded as it is; the message's speaker, date and neighbouring turns
    are stored beside it as the window that full-text search also ranks. The message's
    chunks are replaced in one transaction, so running this twice, or again after a worker
    died half-way, leaves exactly one set."""
    source = turn_source()
    turn = source.turn(message_id=message_id)
    if turn is None:
        return 0
    provider = provider or get_embedding_provider()
    chunks = chunk_message_text(turn.text, provider.token_offsets)
    # The model reads the passage alone: on the quality corpus a speaker-and-date heading
    # lowered MiniLM's recall (bench/bench_quality.py); the heading is in the window.
    texts = [chunk.text for chunk in chunks]
    context = _context_of(turn)
    vectors = provider.embed_documents([_as_read(c) for c in chunks])  # (0, dims) if no text
    with transaction.atomic():
        archived = source.lock(message_id=turn.message_id)
        if archived is None:
            return 0  # deleted meanwhile
        Chunk.objects.filter(message_id=turn.message_id).delete()
        created = Chunk.objects.bulk_create(
            Chunk(
                message_id=turn.message_id,
                user_id=turn.user_id,
                project_id=turn.project_id,
                archived=archived,
                said_at=turn.created_at,
                chunk_index=chunk.index,
                text=text,
                context=context,
                start=chunk.start,
                end=chunk.end,
                embedding=vector,
                embedding_model=provider.name,
            )
            for chunk, text, vector in zip(chunks, texts, vectors, strict=True)
        )
        speaker = speaker_of(turn.text)
        chunk_mentions_write((created_chunk, speaker) for created_chunk in created)
        # Owed with the chunks, built once they are searchable (``services.units``).
        units_enqueue(message_ids=[turn.message_id] if created else [])
    if turn.previous_message_id is not None:
        # The turn before was indexed before this one existed: its window gains it now.
        message_windows_refresh(message_ids=[turn.previous_message_id])
    postings_pack_if_due(user_id=turn.user_id)
    return len(chunks)


def _as_read(chunk: TextChunk) -> str:
    return as_read(chunk.text, opens_turn=chunk.start == 0)


def _context_of(turn: TurnToIndex) -> str:
    return message_window_context(
        speaker=turn.speaker,
        created_at=turn.created_at,
        previous=turn.previous_turn,
        following=turn.following_turn,
    )


def message_windows_refresh(*, message_ids: Sequence[uuid.UUID | str]) -> int:
    """Bring the windows of these messages' chunks (``Chunk.context``: speaker, day and
    neighbouring turns) up to date with their conversations, without embedding anything
    again (the model reads a turn alone). For a turn indexed before the next one was
    written, and for messages indexed before windows existed (``manage.py reindex
    --windows``). Returns the chunks changed."""
    changed = 0
    for turn in turn_source().turns(message_ids=message_ids):
        changed += (
            Chunk.objects.filter(message_id=turn.message_id)
            .exclude(context=_context_of(turn))
            .update(context=_context_of(turn))
        )
    return changed


def message_chunks_set_archived(*, message_ids: list[uuid.UUID], archived: bool) -> int:
    """Hide the chunks of these messages from search (their conversation was archived), or
    show them again; the number of chunks changed."""
    return Chunk.objects.filter(message_id__in=message_ids).update(archived=archived)


def messages_index(
    *, message_ids: Sequence[uuid.UUID | str], provider: EmbeddingProvider | None = None
) -> int:
    """(Re-)index many messages together, as ``message_index`` does one: the turns are read
    a conversation at a time and every passage is embedded in one call, which the provider
    batches by word pieces, so an import runs at the embedding model's own speed instead
    of paying a task, three queries and a tiny batch per message. Returns the chunks written.
    """
    source = turn_source()
    turns = source.turns(message_ids=message_ids)
    if not turns:
        return 0
    provider = provider or get_embedding_provider()
    plans = [(turn, chunk_message_text(turn.text, provider.token_offsets)) for turn in turns]
    vectors = provider.embed_documents([_as_read(chunk) for _, chunks in plans for chunk in chunks])
    rows: list[Chunk] = []
    with transaction.atomic():
        archived = source.lock_many(message_ids=[turn.message_id for turn in turns])
        Chunk.objects.filter(message_id__in=list(archived)).delete()
        position = 0
        for turn, chunks in plans:
            context = _context_of(turn)
            for chunk in chunks:
                vector = vectors[position]
                position += 1
                if turn.message_id not in archived:
                    continue  # deleted meanwhile
                rows.append(
                    Chunk(
                        message_id=turn.message_id,
                        user_id=turn.user_id,
                        project_id=turn.project_id,
                        archived=archived[turn.message_id],
                        said_at=turn.created_at,
                        chunk_index=chunk.index,
                        text=chunk.text,
                        context=context,
                        start=chunk.start,
                        end=chunk.end,
                        embedding=vector,
                        embedding_model=provider.name,
                    )
                )
        Chunk.objects.bulk_create(rows, batch_size=500)
        speakers: dict[uuid.UUID | None, str | None] = {
            turn.message_id: speaker_of(turn.text) for turn in turns
        }
        chunk_mentions_write((row, speakers[row.message_id]) for row in rows)
        units_enqueue(message_ids=list(dict.fromkeys(str(row.message_id) for row in rows)))
    batch = {turn.message_id for turn in turns}
    outside = {t.previous_message_id for t in turns if t.previous_message_id not in batch}
    message_windows_refresh(message_ids=[pk for pk in outside if pk is not None])
    for user_id in {turn.user_id for turn in turns}:
        postings_pack_if_due(user_id=user_id)
    return len(rows)
