"""Writing facts: store, update or leave unchanged (DESIGN §4), and retract.

**Race safety.** Writers of one (project, key) are serialised by a transaction-level
PostgreSQL advisory lock on that pair, taken before the key's head row is read (keys in
a fixed order, so two batches never wait on each other in a cycle; held until the
transaction ends). Locking the row itself is not enough: a key may have no row yet, and a
waiter woken after the head was replaced would act on the stale head. Behind the lock,
two constraints make a lost race impossible rather than unlikely: at most one current row
per (project, key) — the partial unique constraint — and at most one successor per row —
the one-to-one ``supersedes``. Should a write bypass the lock, its insert fails, the
savepoint is rolled back and the batch is read and decided again.

**Retraction** keeps history: the current row stops being current and records
``retracted_at``; no row is deleted and no placeholder row is written. Storing the key
again is *stored* (nothing is current) and the new row supersedes the retracted one.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from apps.facts.models import FactOrigin, FactValueType, ProjectFact
from apps.projects.models import Project

from .values import key_topic, normalize_key, normalize_value

WriteOutcome = Literal["stored", "updated", "unchanged"]
MAX_RANK = 100_000
_ATTEMPTS = 4


@dataclass(frozen=True, slots=True)
class FactWrite:
    """One key to write; ``value`` is already normalised (see ``prepare_write``)."""

    key: str
    value: str
    value_type: str
    confidence: float = 1.0
    kind: str = ""
    span: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class FactWriteResult:
    """``fact`` is the key's current row after the write: the new row when *stored* or
    *updated*, the untouched existing row when *unchanged*."""

    outcome: WriteOutcome
    fact: ProjectFact


def prepare_write(
    *,
    key: object,
    value: Any,
    value_type: str = FactValueType.STRING,
    confidence: float = 1.0,
    kind: str = "",
    span: tuple[int, int] | None = None,
) -> FactWrite:
    """Validate and normalise one write; a ``ValidationError`` names the bad field."""
    clean_key = normalize_key(key)
    _, rank = key_topic(clean_key)
    if rank is not None and rank > MAX_RANK:
        raise ValidationError({"key": f"A rank is at most {MAX_RANK}."})
    if not 0.0 <= confidence <= 1.0:
        raise ValidationError({"confidence": "Confidence lies between 0 and 1."})
    return FactWrite(
        key=clean_key,
        value=normalize_value(value, value_type),
        value_type=value_type,
        confidence=confidence,
        kind=kind,
        span=span,
    )


def fact_store(
    *,
    project: Project,
    key: str,
    value: Any,
    value_type: str = FactValueType.STRING,
    origin: str = FactOrigin.MANUAL,
    origin_token_name: str = "",
    confidence: float = 1.0,
    source_message_id: uuid.UUID | None = None,
    effective_at: datetime | None = None,
) -> FactWriteResult:
    """Write one key of ``project``: *stored* when nothing is current, *updated* when the
    value differs (a new row supersedes the old, which stops being current), *unchanged*
    when the normalised value and type are the current ones (nothing is written)."""
    write = prepare_write(key=key, value=value, value_type=value_type, confidence=confidence)
    (result,) = facts_store_many(
        project=project,
        writes=[write],
        origin=origin,
        origin_token_name=origin_token_name,
        source_message_id=source_message_id,
        effective_at=effective_at,
    )
    return result


def facts_store_many(
    *,
    project: Project,
    writes: Sequence[FactWrite],
    origin: str,
    origin_token_name: str = "",
    source_message_id: uuid.UUID | None = None,
    effective_at: datetime | None = None,
) -> list[FactWriteResult]:
    """Write several distinct keys at once, atomically; results follow ``writes``' order.

    The batch costs a fixed number of queries whatever its size (lock the heads, retire
    the replaced rows, insert the new ones), which keeps a chat turn's facts cheap.
    """
    keys = [write.key for write in writes]
    if len(set(keys)) != len(keys):
        raise ValueError("facts_store_many writes each key once per batch")
    if not writes:
        return []
    when = effective_at or timezone.now()
    for attempt in range(_ATTEMPTS):
        try:
            with transaction.atomic():
                return _write_batch(
                    project, writes, (origin, origin_token_name[:100]), source_message_id, when
                )
        except IntegrityError:
            if attempt == _ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")


def _write_batch(
    project: Project,
    writes: Sequence[FactWrite],
    provenance: tuple[str, str],
    source_message_id: uuid.UUID | None,
    when: datetime,
) -> list[FactWriteResult]:
    keys = [w.key for w in writes]
    lock_keys(project, keys)
    heads = {
        head.fact_key: head
        for head in ProjectFact.objects.filter(
            project=project, fact_key__in=keys, superseded_by__isnull=True
        )
    }
    planned: list[tuple[WriteOutcome, ProjectFact]] = []
    retire: list[ProjectFact] = []
    for write in writes:
        head = heads.get(write.key)
        current = head if head is not None and head.is_current else None
        if current is not None and _same_value(current, write):
            planned.append(("unchanged", current))
            continue
        if current is not None:
            retire.append(current)
        # After a retraction nothing is current, so the write is *stored*; the new row
        # still supersedes the retracted head, keeping the key's history one chain.
        row = _new_row(project, write, head)
        row.origin, row.origin_token_name = provenance  # the origin and the token's name
        row.source_message_id, row.effective_at = source_message_id, when
        planned.append(("updated" if current else "stored", row))
    if retire:
        ProjectFact.objects.filter(pk__in=[row.pk for row in retire]).update(is_current=False)
        for row in retire:
            row.is_current = False
    new_rows = [row for outcome, row in planned if outcome != "unchanged"]
    if new_rows:
        ProjectFact.objects.bulk_create(new_rows)
    return [FactWriteResult(outcome, row) for outcome, row in planned]


def _new_row(project: Project, write: FactWrite, head: ProjectFact | None) -> ProjectFact:
    topic, rank = key_topic(write.key)
    return ProjectFact(
        project=project,
        fact_key=write.key,
        value_text=write.value,
        value_type=write.value_type,
        confidence=write.confidence,
        kind=write.kind,
        topic=topic,
        rank=rank,
        span_start=write.span[0] if write.span else None,
        span_end=write.span[1] if write.span else None,
        supersedes=head,
        is_current=True,
    )


def lock_keys(project: Project, keys: Sequence[str]) -> None:
    """Take the advisory locks of ``keys`` in ``project`` until the transaction ends."""
    lock_ids = sorted({_lock_id(project, key) for key in keys})
    with connection.cursor() as cursor:
        # unnest yields the sorted array in order, so locks are always taken in one order.
        cursor.execute("SELECT pg_advisory_xact_lock(k) FROM unnest(%s::bigint[]) AS k", [lock_ids])


def _lock_id(project: Project, key: str) -> int:
    digest = hashlib.blake2b(f"{project.pk}\x1f{key}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def _same_value(head: ProjectFact, write: FactWrite) -> bool:
    return head.value_text == write.value and head.value_type == write.value_type


def fact_retract(*, project: Project, key: str) -> ProjectFact | None:
    """Retract ``key``'s current value; returns the retracted row, or ``None`` when the key
    has no current value. The row keeps its value and place in the history."""
    clean_key = normalize_key(key)
    with transaction.atomic():
        lock_keys(project, [clean_key])
        current = ProjectFact.objects.filter(
            project=project, fact_key=clean_key, is_current=True
        ).first()
        if current is None:
            return None
        current.is_current = False
        current.retracted_at = timezone.now()
        current.save(update_fields=["is_current", "retracted_at"])
        return current
