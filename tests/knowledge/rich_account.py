"""A long-used account with every kind of knowledge, and a snapshot of an account that
names rows by number and friendly ID, so that two accounts holding the same knowledge
compare equal whatever their ids."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from django.db.models import Model

from apps.accounts.models import User
from apps.chat.models import Conversation, Message
from apps.claims.models import Claim, ClaimCounter, Entity, Tag
from apps.claims.services import (
    claim_create,
    claim_delete,
    claim_reinforce,
    claim_retract,
    claim_supersede,
    entity_create,
    entity_link_claims,
    tag_create,
    tag_link_claims,
)
from apps.contexts.models import Context, ContextClaim
from apps.contexts.services import (
    context_add_claims,
    context_create,
    context_transfer_memberships,
)
from tests.factories import ProjectFactory

T0 = datetime(2024, 3, 1, 9, 30, 15, 123456, tzinfo=UTC)


def age(row: Model, days: int) -> None:
    """Give a row old, distinct timestamps, as a long-used account has."""
    fields = {
        "created_at": T0 + timedelta(days=days),
        "updated_at": T0 + timedelta(days=days, hours=5),
    }
    type(row)._default_manager.filter(pk=row.pk).update(**fields)


def build_rich_account(user: User) -> None:
    project = ProjectFactory(owner=user)
    conversation = Conversation.objects.create(user=user, project=project)
    message = Message.objects.create(
        conversation=conversation, role="user", order=1, content="I drink green tea every morning"
    )
    tea = claim_create(
        user=user,
        statement="I drink green tea every morning",
        claim_types=["preference", "fact"],
        domains=["personal", "health"],
        possible_questions=["What do I drink in the morning?"],
        metadata={"strength": "strong"},
        confidence=0.9,
        origin="chat",
        source_message=message,
        valid_from=T0,
    )
    goal = claim_create(
        user=user,
        statement="Run a marathon this year",
        claim_types=["goal"],
        domains=["health"],
        metadata={"progress": 0.4, "milestones": [5, 10]},
        valid_until=T0 + timedelta(days=300),
    )
    milk = claim_create(
        user=user,
        statement="Buy oat milk",
        claim_types=["shopping_item"],
        metadata={"quantity": 2, "done": False},
    )
    allergy = claim_create(
        user=user,
        statement="I am allergic to penicillin",
        pinned=True,
        claim_types=["fact"],
        domains=["health"],
        friendly_id="my_allergy",
    )
    claim_create(
        user=user,
        statement="Maybe I like jazz",
        status="pending",
        origin="extracted",
        claim_types=["belief"],
    )
    claim_retract(
        claim=claim_create(
            user=user, statement="I live in Paris", claim_types=["fact", "observation"]
        )
    )
    claim_create(
        user=user,
        statement="Coffee is bad for me",
        status="contested",
        claim_types=["belief"],
        domains=["health", "other"],
    )
    job1 = claim_create(
        user=user, statement="I work at Acme", claim_types=["fact"], domains=["work"], origin="api"
    )
    claim_reinforce(claim=job1)
    job2 = claim_supersede(claim=job1, statement="I work at Globex")
    job3 = claim_supersede(claim=job2, statement="I work at Initech", domains=["work"])
    claim_delete(claim=claim_create(user=user, statement="A deleted last claim"))

    life = context_create(user=user, name="Life", description="Everything")
    health = context_create(user=user, name="Health", parent=life, friendly_id="ssdva")
    sleep = context_create(user=user, name="Sleep", parent=health)
    work = context_create(user=user, name="Work")
    context_add_claims(context=health, claims=[tea, goal])
    context_add_claims(context=sleep, claims=[allergy])
    context_add_claims(context=life, claims=[tea, milk])
    context_add_claims(context=work, claims=[job1])
    context_transfer_memberships(old=job1, new=job2)
    context_transfer_memberships(old=job2, new=job3)

    food = tag_create(user=user, name="Food")
    drinks = tag_create(user=user, name="Drinks", parent=food)
    tag_link_claims(tag=drinks, claims=[tea])
    tag_link_claims(tag=food, claims=[milk, tea])
    acme = entity_create(
        user=user, name="Acme", entity_type="organisation", description="Old employer"
    )
    doctor = entity_create(user=user, name="Dr Smith", entity_type="person")
    entity_link_claims(entity=acme, claims=[job1, job2])
    entity_link_claims(entity=doctor, claims=[allergy])

    for days, row in enumerate(
        [
            *Claim.objects.filter(user=user).order_by("number"),
            life,
            health,
            sleep,
            work,
            food,
            drinks,
            acme,
            doctor,
        ]
    ):
        age(row, days)
    ContextClaim.objects.filter(context__user=user).update(added_at=T0 + timedelta(days=50))


SKIPPED_CLAIM_FIELDS = {
    "id",
    "user",
    "supersedes",
    "source_message",
    "embedding",
    "embedding_model",
    "search_vector",
}


def fields_of(row: Model, skip: set[str]) -> dict[str, Any]:
    return {
        field.attname: getattr(row, field.attname)
        for field in row._meta.concrete_fields
        if field.name not in skip
    }


def snapshot(user: User) -> dict[str, Any]:
    """Every field and link of the account, keyed by numbers and friendly IDs instead of
    ids, so two accounts holding the same knowledge compare equal."""
    # A memory's versions share its number (issue 30): (number, version), oldest first.
    rows = list(
        Claim.objects.filter(user=user)
        .select_related("supersedes")
        .prefetch_related("tags", "entities", "contexts")
        .order_by("number", "created_at")
    )
    keys: dict[Any, tuple[int, int]] = {}
    for claim in rows:
        keys[claim.pk] = (claim.number, sum(1 for key in keys.values() if key[0] == claim.number))
    claims = {}
    for claim in rows:
        claims[keys[claim.pk]] = {
            **fields_of(claim, SKIPPED_CLAIM_FIELDS),
            "supersedes": keys[claim.supersedes_id] if claim.supersedes_id else None,
            "tags": sorted(tag.friendly_id for tag in claim.tags.all()),
            "entities": sorted(entity.friendly_id for entity in claim.entities.all()),
            "contexts": sorted(context.friendly_id for context in claim.contexts.all()),
        }
    contexts = {
        context.friendly_id: {
            **fields_of(context, {"id", "user", "parent"}),
            "parent": context.parent.friendly_id if context.parent else None,
            "claims": sorted((m.claim.number, m.added_at) for m in context.memberships.all()),
        }
        for context in Context.objects.filter(user=user).select_related("parent")
    }
    tags = {
        tag.friendly_id: {
            **fields_of(tag, {"id", "user", "parent"}),
            "parent": tag.parent.friendly_id if tag.parent else None,
            "claims": sorted(c.number for c in tag.claims.all()),
        }
        for tag in Tag.objects.filter(user=user).select_related("parent")
    }
    entities = {
        entity.friendly_id: {
            **fields_of(entity, {"id", "user"}),
            "claims": sorted(c.number for c in entity.claims.all()),
        }
        for entity in Entity.objects.filter(user=user)
    }
    counter = ClaimCounter.objects.get(user=user).last_number
    return {
        "claims": claims,
        "contexts": contexts,
        "tags": tags,
        "entities": entities,
        "counter": counter,
    }
