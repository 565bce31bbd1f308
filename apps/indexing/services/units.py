"""Building the memory units of chat turns (``units``, ``MemoryUnit``): after the turns are
searchable, as a follow-up task (``tasks.build_units``), so that their units never delay
that. They leave with their chunk (the database cascades the delete): re-indexing a turn
queues its units again, and deleting or archiving needs nothing here."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from django.db import transaction

from ..embeddings import EmbeddingProvider, get_embedding_provider
from ..mentions import as_read, speaker_of
from ..models import Chunk, MemoryUnit
from ..turns import TurnSaid, turn_source
from ..units import units_of
from .queue import enqueue

BATCH = 1000


def units_enqueue(*, message_ids: Sequence[uuid.UUID | str]) -> None:
    """Owe the units of these freshly indexed turns: a row of the ledger, due after the
    work already waiting (the ledger takes rows by when they fell due), so the indexing
    of turns queued before it comes first."""
    if message_ids:
        enqueue("build_units", [str(pk) for pk in message_ids])


def by_person(turn: TurnSaid) -> bool:
    """Whether a turn is a person's, whose statements are memory: the user's own, or a
    named speaker's in an imported transcript ("Melanie: …"); never an assistant's answer,
    Cairn's or an imported chatbot's, nor a turn that did not finish."""
    if turn.status != "complete":
        return False
    if turn.role == "user":
        return True
    return bool(turn.external_source) and speaker_of(turn.content) is not None


def units_build(
    *, message_ids: Sequence[uuid.UUID | str], provider: EmbeddingProvider | None = None
) -> int:
    """(Re)build the units of these messages' chunks, one transaction for all: each
    chunk's units are replaced, a chunk gone meanwhile gets none. Returns the units
    written."""
    said = turn_source().said(message_ids=message_ids)
    people = {pk: turn for pk, turn in said.items() if by_person(turn)}
    chunks = list(
        Chunk.objects.filter(message_id__in=list(said)).values_list(
            "id", "user_id", "message_id", "text", "start", "embedding"
        )
    )
    planned: list[tuple[int, int, str]] = []
    # A unit that is its whole passage as the model read it (a one-sentence turn of the
    # user's) has the passage's vector already: only the others are embedded.
    known: dict[int, object] = {}
    for chunk_id, user_id, message_id, text, start, embedding in chunks:
        turn = people.get(message_id)
        if turn is None:
            continue
        read = as_read(text, opens_turn=start == 0).strip()
        for unit in units_of(text, speaker=speaker_of(turn.content)):
            if unit == read:
                known[len(planned)] = embedding
            planned.append((chunk_id, user_id, unit))
    provider = provider or get_embedding_provider()
    fresh = [index for index in range(len(planned)) if index not in known]
    embedded = provider.embed_documents([planned[index][2] for index in fresh])
    vectors = [known.get(index) for index in range(len(planned))]
    for index, vector in zip(fresh, embedded, strict=True):
        vectors[index] = vector
    with transaction.atomic():
        # Locked, so that a chunk is not deleted under its units (re-indexed meanwhile:
        # its new chunks have units of their own queued).
        alive = set(
            Chunk.objects.select_for_update(of=("self",))
            .order_by()
            .filter(pk__in=[chunk_id for chunk_id, *_ in chunks])
            .values_list("id", flat=True)
        )
        MemoryUnit.objects.filter(chunk_id__in=alive).delete()
        rows = [
            MemoryUnit(chunk_id=chunk_id, user_id=user_id, text=unit, embedding=vector)
            for (chunk_id, user_id, unit), vector in zip(planned, vectors, strict=True)
            if chunk_id in alive
        ]
        MemoryUnit.objects.bulk_create(rows, batch_size=BATCH)
    return len(rows)
