"""``/api/v1/entities/`` and ``/api/v1/tags/``: CRUD and linking claims to them."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.db.models import Prefetch, QuerySet
from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from apps.accounts.models import User
from apps.claims.models import Claim, Entity, Tag
from apps.claims.selectors import entity_get, entity_list, tag_get, tag_list
from apps.claims.services import (
    entity_create,
    entity_link_claims,
    entity_update,
    tag_create,
    tag_link_claims,
    tag_update,
)
from apps.core.request_user import current_user
from apps.core.validation import validated

from .common import (
    CLAIM_KEYS_QUERY,
    ClaimKeysSerializer,
    claims_named_in,
    uuid_path_parameter,
)
from .serializers import (
    EntityCreateInputSerializer,
    EntityOutputSerializer,
    EntityUpdateInputSerializer,
    TagCreateInputSerializer,
    TagOutputSerializer,
    TagUpdateInputSerializer,
)

ENTITY_ID = uuid_path_parameter("entity")
TAG_ID = uuid_path_parameter("tag")


def _with_claim_ids(queryset: QuerySet[Any]) -> QuerySet[Any]:
    return queryset.prefetch_related(Prefetch("claims", Claim.objects.only("id")))


# Unlinking and deleting have no service of their own yet (apps/claims/services/labels.py
# has only the linking side); these are the single ORM calls such services would make.
def _unlink(label: Entity | Tag, claims: Iterable[Claim]) -> None:
    label.claims.remove(*claims)


def _tag_parent(user: User, parent_id: uuid.UUID | None) -> Tag | None:
    if parent_id is None:
        return None
    try:
        return tag_get(user=user, tag_id=parent_id)
    except Http404 as exc:
        raise serializers.ValidationError({"parent": ["No such tag."]}) from exc


@extend_schema(tags=["entities"])
class EntityViewSet(viewsets.GenericViewSet):
    queryset = Entity.objects.none()
    serializer_class = EntityOutputSerializer

    def get_object(self) -> Entity:
        return entity_get(user=current_user(self.request), entity_id=self.kwargs["pk"])

    def _output(self, entity: Entity) -> dict[str, Any]:
        fresh = _with_claim_ids(entity_list(user=entity.user)).get(pk=entity.pk)
        return dict(EntityOutputSerializer(fresh).data)

    @extend_schema(summary="List your entities", responses=EntityOutputSerializer(many=True))
    def list(self, request: Request) -> Response:
        entities = _with_claim_ids(entity_list(user=current_user(request)).order_by("name", "id"))
        page = self.paginate_queryset(entities)
        return self.get_paginated_response(EntityOutputSerializer(page, many=True).data)

    @extend_schema(
        summary="Create an entity",
        request=EntityCreateInputSerializer,
        responses={201: EntityOutputSerializer},
    )
    def create(self, request: Request) -> Response:
        data = validated(EntityCreateInputSerializer, request.data)
        entity = entity_create(user=current_user(request), **data)
        return Response(self._output(entity), status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Read an entity", parameters=[ENTITY_ID], responses=EntityOutputSerializer
    )
    def retrieve(self, request: Request, pk: str) -> Response:
        return Response(self._output(self.get_object()))

    @extend_schema(
        summary="Change an entity",
        parameters=[ENTITY_ID],
        request=EntityUpdateInputSerializer,
        responses=EntityOutputSerializer,
    )
    def partial_update(self, request: Request, pk: str) -> Response:
        entity = self.get_object()
        data = validated(EntityUpdateInputSerializer, request.data)
        entity = entity_update(entity=entity, **data)
        return Response(self._output(entity))

    @extend_schema(
        summary="Delete an entity (its claims stay)", parameters=[ENTITY_ID], responses={204: None}
    )
    def destroy(self, request: Request, pk: str) -> Response:
        self.get_object().delete()
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        methods=["POST"],
        summary="Link claims to an entity",
        parameters=[ENTITY_ID],
        request=ClaimKeysSerializer,
        responses=EntityOutputSerializer,
    )
    @extend_schema(
        methods=["DELETE"],
        summary="Unlink claims from an entity",
        parameters=[ENTITY_ID, CLAIM_KEYS_QUERY],
        request=ClaimKeysSerializer,
        responses={200: EntityOutputSerializer},
    )
    @action(detail=True, methods=["post", "delete"])
    def claims(self, request: Request, pk: str) -> Response:
        entity = self.get_object()
        claims = claims_named_in(request)
        if request.method == "POST":
            entity_link_claims(entity=entity, claims=claims)
        else:
            _unlink(entity, claims)
        return Response(self._output(entity))


@extend_schema(tags=["tags"])
class TagViewSet(viewsets.GenericViewSet):
    queryset = Tag.objects.none()
    serializer_class = TagOutputSerializer

    def get_object(self) -> Tag:
        return tag_get(user=current_user(self.request), tag_id=self.kwargs["pk"])

    def _output(self, tag: Tag) -> dict[str, Any]:
        fresh = _with_claim_ids(tag_list(user=tag.user)).get(pk=tag.pk)
        return dict(TagOutputSerializer(fresh).data)

    @extend_schema(summary="List your tags", responses=TagOutputSerializer(many=True))
    def list(self, request: Request) -> Response:
        tags = _with_claim_ids(tag_list(user=current_user(request)).order_by("name", "id"))
        page = self.paginate_queryset(tags)
        return self.get_paginated_response(TagOutputSerializer(page, many=True).data)

    @extend_schema(
        summary="Create a tag",
        request=TagCreateInputSerializer,
        responses={201: TagOutputSerializer},
    )
    def create(self, request: Request) -> Response:
        user = current_user(request)
        data = validated(TagCreateInputSerializer, request.data)
        data["parent"] = _tag_parent(user, data.get("parent"))
        tag = tag_create(user=user, **data)
        return Response(self._output(tag), status=status.HTTP_201_CREATED)

    @extend_schema(summary="Read a tag", parameters=[TAG_ID], responses=TagOutputSerializer)
    def retrieve(self, request: Request, pk: str) -> Response:
        return Response(self._output(self.get_object()))

    @extend_schema(
        summary="Change or move a tag",
        parameters=[TAG_ID],
        description="`parent: null` makes the tag a root; leaving `parent` out "
        "keeps it where it is.",
        request=TagUpdateInputSerializer,
        responses=TagOutputSerializer,
    )
    def partial_update(self, request: Request, pk: str) -> Response:
        tag = self.get_object()
        data = validated(TagUpdateInputSerializer, request.data)
        if "parent" in data:
            data["parent"] = _tag_parent(tag.user, data["parent"])
        with transaction.atomic():
            tag = tag_update(tag=tag, **data)
        return Response(self._output(tag))

    @extend_schema(
        summary="Delete a tag and its child tags (claims stay)",
        parameters=[TAG_ID],
        responses={204: None},
    )
    def destroy(self, request: Request, pk: str) -> Response:
        self.get_object().delete()
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        methods=["POST"],
        summary="Tag claims",
        parameters=[TAG_ID],
        request=ClaimKeysSerializer,
        responses=TagOutputSerializer,
    )
    @extend_schema(
        methods=["DELETE"],
        summary="Untag claims",
        parameters=[TAG_ID, CLAIM_KEYS_QUERY],
        request=ClaimKeysSerializer,
        responses={200: TagOutputSerializer},
    )
    @action(detail=True, methods=["post", "delete"])
    def claims(self, request: Request, pk: str) -> Response:
        tag = self.get_object()
        claims = claims_named_in(request)
        if request.method == "POST":
            tag_link_claims(tag=tag, claims=claims)
        else:
            _unlink(tag, claims)
        return Response(self._output(tag))
