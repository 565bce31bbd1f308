"""Factories for the knowledge model. Rows are made through the services, so every claim has
a real per-user number and friendly ID, exactly as in production.

    claim = ClaimFactory(user=user, statement="I prefer tea", claim_types=["preference"])
    context = ContextFactory(user=user, parent=root, claims=[claim])
    tag = TagFactory(user=user, claims=[claim])
"""

from __future__ import annotations

from typing import Any

import factory

from apps.claims.models import Claim, ClaimStatus, Entity, EntityType, Tag
from apps.claims.services import (
    claim_create,
    entity_create,
    entity_link_claims,
    tag_create,
    tag_link_claims,
)
from apps.contexts.models import Context
from apps.contexts.services import context_add_claims, context_create
from tests.factories import UserFactory


class ClaimFactory(factory.django.DjangoModelFactory):
    """``claim_create`` with sensible defaults; any of its keyword arguments may be passed."""

    class Meta:
        model = Claim

    user = factory.SubFactory(UserFactory)
    statement = factory.Sequence(lambda n: f"Claim statement number {n}")
    claim_types = factory.LazyFunction(lambda: ["fact"])
    domains = factory.LazyFunction(list)
    status = ClaimStatus.ACTIVE

    @classmethod
    def _create(cls, model_class: type[Claim], *args: Any, **kwargs: Any) -> Claim:
        return claim_create(**kwargs)


class ContextFactory(factory.django.DjangoModelFactory):
    """``context_create``; ``claims=[...]`` also links those claims."""

    class Meta:
        model = Context

    user = factory.SubFactory(UserFactory)
    name = factory.Sequence(lambda n: f"Context {n}")
    description = ""
    parent = None

    @classmethod
    def _create(cls, model_class: type[Context], *args: Any, **kwargs: Any) -> Context:
        claims = kwargs.pop("claims", None) or []
        context = context_create(**kwargs)
        if claims:
            context_add_claims(context=context, claims=claims)
        return context


class EntityFactory(factory.django.DjangoModelFactory):
    """``entity_create``; ``claims=[...]`` also links those claims."""

    class Meta:
        model = Entity

    user = factory.SubFactory(UserFactory)
    name = factory.Sequence(lambda n: f"Entity {n}")
    entity_type = EntityType.PERSON

    @classmethod
    def _create(cls, model_class: type[Entity], *args: Any, **kwargs: Any) -> Entity:
        claims = kwargs.pop("claims", None) or []
        entity = entity_create(**kwargs)
        if claims:
            entity_link_claims(entity=entity, claims=claims)
        return entity


class TagFactory(factory.django.DjangoModelFactory):
    """``tag_create``; ``claims=[...]`` also links those claims."""

    class Meta:
        model = Tag

    user = factory.SubFactory(UserFactory)
    name = factory.Sequence(lambda n: f"Tag {n}")
    parent = None

    @classmethod
    def _create(cls, model_class: type[Tag], *args: Any, **kwargs: Any) -> Tag:
        claims = kwargs.pop("claims", None) or []
        tag = tag_create(**kwargs)
        if claims:
            tag_link_claims(tag=tag, claims=claims)
        return tag
