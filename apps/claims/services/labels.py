"""Entities and tags: the other things a user can point at with ``@``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.db import transaction

from apps.claims.models import Claim, Entity, EntityType, Tag

from .claims import create_with_friendly_id
from .validation import clean_friendly_id

if TYPE_CHECKING:
    from apps.accounts.models import User

MAX_TAG_DEPTH = 10


def _clean_name(name: str, *, max_length: int) -> str:
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": "A name is required."})
    if len(name) > max_length:
        raise ValidationError({"name": f"A name has at most {max_length} characters."})
    return name


def _own_claims(user: User, claims: Iterable[Claim]) -> list[Claim]:
    claims = list(claims)
    if any(claim.user_id != user.pk for claim in claims):
        raise ValidationError({"claims": "Only your own claims can be linked."})
    return claims


@transaction.atomic
def entity_create(
    *,
    user: User,
    name: str,
    entity_type: str = EntityType.THING,
    description: str = "",
    friendly_id: str | None = None,
) -> Entity:
    name = _clean_name(name, max_length=200)
    if entity_type not in EntityType.values:
        raise ValidationError({"entity_type": f"Unknown entity type '{entity_type}'."})
    return create_with_friendly_id(
        model=Entity,
        user=user,
        text=f"{name} {entity_type}",
        kind="entity",
        chosen=friendly_id,
        build=lambda fid: Entity(
            user=user, name=name, entity_type=entity_type, description=description, friendly_id=fid
        ),
    )


def entity_update(
    *,
    entity: Entity,
    name: str | None = None,
    entity_type: str | None = None,
    description: str | None = None,
    friendly_id: str | None = None,
) -> Entity:
    if name is not None:
        entity.name = _clean_name(name, max_length=200)
    if entity_type is not None:
        if entity_type not in EntityType.values:
            raise ValidationError({"entity_type": f"Unknown entity type '{entity_type}'."})
        entity.entity_type = entity_type
    if description is not None:
        entity.description = description
    if friendly_id is not None and friendly_id != entity.friendly_id:
        entity.friendly_id = _free_friendly_id(Entity, entity.user_id, friendly_id, "entity")
    entity.save()
    return entity


def entity_link_claims(*, entity: Entity, claims: Iterable[Claim]) -> None:
    entity.claims.add(*_own_claims(entity.user, claims))


def _free_friendly_id(model: type[Entity] | type[Tag], user_id: int, value: str, kind: str) -> str:
    value = clean_friendly_id(value, kind=kind)
    if model.objects.filter(user_id=user_id, friendly_id=value).exists():
        raise ValidationError({"friendly_id": f"'{value}' is already taken."})
    return value


def _check_tag_parent(tag: Tag | None, parent: Tag | None, user: User) -> None:
    if parent is None:
        return
    if parent.user_id != user.pk:
        raise ValidationError({"parent": "No such tag."})
    depth = 1
    node: Tag | None = parent
    while node is not None:
        if tag is not None and node.pk == tag.pk:
            raise ValidationError({"parent": "A tag cannot be placed under itself."})
        depth += 1
        node = node.parent
    if depth > MAX_TAG_DEPTH:
        raise ValidationError({"parent": f"Tags nest at most {MAX_TAG_DEPTH} deep."})


@transaction.atomic
def tag_create(
    *, user: User, name: str, parent: Tag | None = None, friendly_id: str | None = None
) -> Tag:
    name = _clean_name(name, max_length=100)
    _check_tag_parent(None, parent, user)
    return create_with_friendly_id(
        model=Tag,
        user=user,
        text=name,
        kind="tag",
        chosen=friendly_id,
        build=lambda fid: Tag(user=user, name=name, parent=parent, friendly_id=fid),
    )


def tag_update(
    *,
    tag: Tag,
    name: str | None = None,
    parent: Tag | bool | None = False,
    friendly_id: str | None = None,
) -> Tag:
    """``parent=False`` leaves the parent alone; ``None`` makes the tag a root."""
    if name is not None:
        tag.name = _clean_name(name, max_length=100)
    if parent is not False:
        assert parent is None or isinstance(parent, Tag)
        _check_tag_parent(tag, parent, tag.user)
        tag.parent = parent
    if friendly_id is not None and friendly_id != tag.friendly_id:
        tag.friendly_id = _free_friendly_id(Tag, tag.user_id, friendly_id, "tag")
    tag.save()
    return tag


def tag_link_claims(*, tag: Tag, claims: Iterable[Claim]) -> None:
    tag.claims.add(*_own_claims(tag.user, claims))


@transaction.atomic
def claim_tags_set(
    *, claim: Claim, tags: Iterable[Tag], new_tag_names: Iterable[str] = ()
) -> Claim:
    """Give ``claim`` exactly these tags: ``tags`` (the owner's own) and tags named in
    ``new_tag_names``, an existing one of that name (any case) or a new one."""
    chosen = list(tags)
    if any(tag.user_id != claim.user_id for tag in chosen):
        raise ValidationError({"tags": "Only your own tags can be chosen."})
    by_name = {tag.name.lower(): tag for tag in Tag.objects.filter(user_id=claim.user_id)}
    for name in new_tag_names:
        clean = " ".join(name.split())
        if not clean:
            continue
        tag = by_name.get(clean.lower()) or tag_create(user=claim.user, name=clean)
        by_name[clean.lower()] = tag
        chosen.append(tag)
    claim.tags.set({tag.pk: tag for tag in chosen}.values())
    return claim
