"""Loading a knowledge document into an empty account, all or nothing.

Numbers, friendly IDs, statuses, timestamps and every link are kept. Rows get new UUIDs:
ids are global across accounts, so a document exported from one account must be
importable into another on the same server; the report maps each document id to its new
UUID. Embeddings are recomputed afterwards (``claims_content_changed`` on commit), and
``source_message`` is left empty because conversations are not part of the document.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError
from django.db import connection, models, transaction

from apps.claims.models import Claim, ClaimCounter, Entity, Tag
from apps.claims.signals import claims_content_changed
from apps.contexts.models import Context, ContextClaim

from .parse import document_parse
from .records import KnowledgeDocument

if TYPE_CHECKING:
    from apps.accounts.models import User

BATCH_SIZE = 1000


class AccountNotEmptyError(ValidationError):
    """Importing merges nothing: the account must hold no knowledge yet."""


@dataclass(frozen=True)
class ImportReport:
    claims: int
    contexts: int
    tags: int
    entities: int
    memberships: int  # claims in contexts
    links: int  # claims linked to tags and entities
    last_claim_number: int
    # Per kind ("claims", "contexts", "tags", "entities"): document id → new UUID.
    id_map: dict[str, dict[str, str]]


def knowledge_import(*, user: User, document: Any) -> ImportReport:
    """Validate ``document`` completely, then write it in one transaction; a ValidationError
    (field paths → messages) or AccountNotEmptyError leaves the database untouched."""
    parsed = document_parse(document)
    with transaction.atomic():
        counter = _lock_counter(user)  # serialises imports and claim creation for this user
        _ensure_empty(user)
        ids = {
            kind: {record.id: uuid.uuid4() for record in getattr(parsed, kind)}
            for kind in ("claims", "contexts", "tags", "entities")
        }
        _insert_claims(user, parsed, ids["claims"])
        memberships = _insert_contexts(user, parsed, ids)
        links = _insert_labels(user, parsed, ids)
        last_number = max(
            [counter, parsed.last_claim_number, *(claim.number for claim in parsed.claims)]
        )
        ClaimCounter.objects.filter(user=user).update(last_number=last_number)
        new_claim_ids = list(ids["claims"].values())
        claims_content_changed.send(sender=Claim, claim_ids=new_claim_ids)
    return ImportReport(
        claims=len(parsed.claims),
        contexts=len(parsed.contexts),
        tags=len(parsed.tags),
        entities=len(parsed.entities),
        memberships=memberships,
        links=links,
        last_claim_number=last_number,
        id_map={
            kind: {old: str(new) for old, new in mapping.items()} for kind, mapping in ids.items()
        },
    )


def _lock_counter(user: User) -> int:
    table = ClaimCounter._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (user_id, last_number) VALUES (%s, 0) "  # noqa: S608 - names from the model, values as parameters
            f"ON CONFLICT (user_id) DO UPDATE SET last_number = {table}.last_number "
            f"RETURNING last_number",
            [user.pk],
        )
        row = cursor.fetchone()
    return int(row[0]) if row else 0


def _ensure_empty(user: User) -> None:
    held = {
        noun: model.objects.filter(user=user).count()
        for noun, model in (
            ("claims", Claim),
            ("contexts", Context),
            ("tags", Tag),
            ("entities", Entity),
        )
    }
    if any(held.values()):
        summary = ", ".join(f"{count} {noun}" for noun, count in held.items() if count)
        raise AccountNotEmptyError(
            {
                "account": [
                    f"This account already holds knowledge ({summary}). Knowledge is only "
                    f"imported into an empty account; nothing was imported."
                ]
            }
        )


def _insert(
    model: type[models.Model], rows: Sequence[models.Model], moments: Sequence[dict[str, Any]]
) -> None:
    model._default_manager.bulk_create(rows, batch_size=BATCH_SIZE)
    if rows:
        _restore_timestamps(model, [row.pk for row in rows], moments)


def _restore_timestamps(
    model: type[models.Model], pks: list[Any], moments: Sequence[dict[str, Any]]
) -> None:
    """Put back the timestamps that auto_now / auto_now_add replaced on insert: one UPDATE
    joined to arrays of values (bulk_update's CASE per row is about 20 times slower)."""
    pk = model._meta.pk
    assert pk is not None
    fields = [model._meta.get_field(name) for name in moments[0]]
    assert all(isinstance(field, models.Field) for field in fields)
    columns = [field for field in fields if isinstance(field, models.Field)]
    arrays = ", ".join(f"%s::{field.cast_db_type(connection)}[]" for field in [pk, *columns])
    aliases = ", ".join(["row_pk", *(f"{field.column}" for field in columns)])
    assignments = ", ".join(f"{field.column} = v.{field.column}" for field in columns)
    params = [pks, *([values[field.name] for values in moments] for field in columns)]
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {model._meta.db_table} t SET {assignments} "  # noqa: S608 - names from the model, values as parameters
            f"FROM unnest({arrays}) AS v({aliases}) WHERE t.{pk.column} = v.row_pk",
            params,
        )


def _insert_claims(user: User, document: KnowledgeDocument, ids: dict[str, uuid.UUID]) -> None:
    rows = [
        Claim(
            id=ids[r.id],
            user=user,
            number=r.number,
            friendly_id=r.friendly_id,
            statement=r.statement,
            claim_types=r.claim_types,
            domains=r.domains,
            status=r.status,
            possible_questions=r.possible_questions,
            pinned=r.pinned,
            confidence=r.confidence,
            valid_from=r.valid_from,
            valid_until=r.valid_until,
            supersedes_id=ids[r.supersedes] if r.supersedes else None,
            origin=r.origin,
            origin_token_name=r.origin_token_name,
            metadata=r.metadata,
            reinforced_count=r.reinforced_count,
        )
        for r in document.claims
    ]
    _insert(
        Claim,
        rows,
        [{"created_at": r.created_at, "updated_at": r.updated_at} for r in document.claims],
    )


def _insert_contexts(
    user: User, document: KnowledgeDocument, ids: dict[str, dict[str, uuid.UUID]]
) -> int:
    contexts, claims = ids["contexts"], ids["claims"]
    _insert(
        Context,
        [
            Context(
                id=contexts[r.id],
                user=user,
                friendly_id=r.friendly_id,
                name=r.name,
                description=r.description,
                parent_id=contexts[r.parent] if r.parent else None,
            )
            for r in document.contexts
        ],
        [{"created_at": r.created_at, "updated_at": r.updated_at} for r in document.contexts],
    )
    pairs = [(r, m) for r in document.contexts for m in r.claims]
    _insert(
        ContextClaim,
        [ContextClaim(context_id=contexts[r.id], claim_id=claims[m.claim]) for r, m in pairs],
        [{"added_at": m.added_at} for _, m in pairs],
    )
    return len(pairs)


def _insert_labels(
    user: User, document: KnowledgeDocument, ids: dict[str, dict[str, uuid.UUID]]
) -> int:
    tags, entities, claims = ids["tags"], ids["entities"], ids["claims"]
    _insert(
        Tag,
        [
            Tag(
                id=tags[r.id],
                user=user,
                friendly_id=r.friendly_id,
                name=r.name,
                parent_id=tags[r.parent] if r.parent else None,
            )
            for r in document.tags
        ],
        [{"created_at": r.created_at, "updated_at": r.updated_at} for r in document.tags],
    )
    _insert(
        Entity,
        [
            Entity(
                id=entities[r.id],
                user=user,
                friendly_id=r.friendly_id,
                name=r.name,
                entity_type=r.entity_type,
                description=r.description,
            )
            for r in document.entities
        ],
        [{"created_at": r.created_at, "updated_at": r.updated_at} for r in document.entities],
    )
    tag_links = [
        Tag.claims.through(tag_id=tags[r.id], claim_id=claims[claim_id])
        for r in document.tags
        for claim_id in r.claims
    ]
    entity_links = [
        Entity.claims.through(entity_id=entities[r.id], claim_id=claims[claim_id])
        for r in document.entities
        for claim_id in r.claims
    ]
    Tag.claims.through.objects.bulk_create(tag_links, batch_size=BATCH_SIZE)
    Entity.claims.through.objects.bulk_create(entity_links, batch_size=BATCH_SIZE)
    return len(tag_links) + len(entity_links)
