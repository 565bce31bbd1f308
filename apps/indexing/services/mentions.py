"""Writing the names, speakers and relations of new chunks (``mentions``, ``Mention``):
in the transaction that writes the chunks, so a chunk is never searchable without them.
They leave with their chunk (the database cascades the delete), so re-indexing, deleting
and archiving need nothing here."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.db import transaction

from ..mentions import mentions_in, speaker_of
from ..models import Chunk, Mention

BATCH = 1000
REFRESH_BATCH = 2000


def chunk_mentions_write(chunks: Iterable[tuple[Chunk, str | None]]) -> int:
    """Store the mentions of freshly created ``(chunk, speaker)`` pairs (``speaker``: who
    said a chat turn, ``speaker_of`` its whole text; None for a file's passage); the
    number of rows written."""
    rows = [
        Mention(chunk_id=chunk.pk, user_id=chunk.user_id, key=m.key, role=m.role, alias=m.alias)
        for chunk, speaker in chunks
        for m in mentions_in(chunk.text, speaker=speaker)
    ]
    Mention.objects.bulk_create(rows, batch_size=BATCH)
    return len(rows)


def mentions_refresh(*, chunk_ids: Sequence[int]) -> int:
    """Read these chunks' mentions again (``manage.py reindex --mentions``: chunks indexed
    before mentions existed, or after the rules changed): each chunk's rows are replaced
    in one transaction. A later passage of a long turn has its speaker from the turn's
    first passage. Returns the rows written."""
    chunks = list(
        Chunk.objects.filter(pk__in=list(chunk_ids)).only(
            "id", "user_id", "text", "message_id", "chunk_index"
        )
    )
    heads = dict(
        Chunk.objects.filter(
            message_id__in={c.message_id for c in chunks if c.message_id}, chunk_index=0
        ).values_list("message_id", "text")
    )
    with transaction.atomic():
        Mention.objects.filter(chunk_id__in=[c.pk for c in chunks]).delete()
        return chunk_mentions_write(
            (c, speaker_of(heads.get(c.message_id, "")) if c.message_id else None) for c in chunks
        )
