"""``/api/v1/contexts/``: the user's context tree, its memberships and its resolution.

A context named in the URL that is not the user's answers 404; one named in the body
(``parent``) is a 400 field error "No such context.", like every other bad field value.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.db import transaction
from django.db.models import Count, Prefetch, QuerySet
from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from apps.accounts.models import User
from apps.contexts.models import Context
from apps.contexts.selectors import context_get, context_list, context_resolved_queryset
from apps.contexts.services import (
    context_add_claims,
    context_create,
    context_delete,
    context_move,
    context_remove_claims,
    context_update,
)
from apps.core.request_user import current_user
from apps.core.validation import validated
from apps.knowledge.api.common import (
    CLAIM_KEYS_QUERY,
    ClaimKeysSerializer,
    claim_output_prefetches,
    claims_named_in,
    uuid_path_parameter,
)

from .serializers import ClaimOutputSerializer

CONTEXT_ID = uuid_path_parameter("context")


class ContextOutputSerializer(serializers.ModelSerializer):
    # `parent` leaves the class body (DRF's metaclass collects declared fields), so it does
    # not shadow Field.parent at run time; the stubs cannot know that.
    parent = serializers.PrimaryKeyRelatedField[Context](  # type: ignore[assignment]
        read_only=True, allow_null=True
    )
    children = serializers.PrimaryKeyRelatedField[Context](many=True, read_only=True)
    claim_count = serializers.IntegerField(
        read_only=True, help_text="Claims linked to this context itself (not sub-contexts)."
    )

    class Meta:
        model = Context
        fields = [
            "id",
            "friendly_id",
            "name",
            "description",
            "parent",
            "children",
            "claim_count",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields


class ContextCreateInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    description = serializers.CharField(required=False, allow_blank=True, max_length=10_000)
    parent = serializers.UUIDField(  # type: ignore[assignment]  # see ContextOutputSerializer
        required=False, allow_null=True, help_text="The parent context's UUID; null for a root."
    )
    friendly_id = serializers.CharField(required=False, max_length=60)


class ContextUpdateInputSerializer(ContextCreateInputSerializer):
    name = serializers.CharField(max_length=200, required=False)


class ContextMoveInputSerializer(serializers.Serializer):
    parent = serializers.UUIDField(  # type: ignore[assignment]  # see ContextOutputSerializer
        allow_null=True, help_text="The new parent's UUID; null makes it a root."
    )


def _annotated(contexts: QuerySet[Context]) -> QuerySet[Context]:
    return contexts.annotate(claim_count=Count("memberships", distinct=True)).prefetch_related(
        Prefetch("children", Context.objects.only("id", "parent_id"))
    )


def _parent(user: User, parent_id: uuid.UUID | None) -> Context | None:
    if parent_id is None:
        return None
    try:
        return context_get(user=user, context_id=parent_id)
    except Http404 as exc:
        raise serializers.ValidationError({"parent": ["No such context."]}) from exc


@extend_schema(tags=["contexts"])
class ContextViewSet(viewsets.GenericViewSet):
    queryset = Context.objects.none()
    serializer_class = ContextOutputSerializer

    def get_object(self) -> Context:
        return context_get(user=current_user(self.request), context_id=self.kwargs["pk"])

    def _output(self, context: Context) -> dict[str, Any]:
        fresh = _annotated(context_list(user=context.user)).get(pk=context.pk)
        return dict(ContextOutputSerializer(fresh).data)

    @extend_schema(summary="List your contexts", responses=ContextOutputSerializer(many=True))
    def list(self, request: Request) -> Response:
        contexts = _annotated(context_list(user=current_user(request))).order_by("name", "id")
        page = self.paginate_queryset(contexts)
        return self.get_paginated_response(ContextOutputSerializer(page, many=True).data)

    @extend_schema(
        summary="Create a context",
        request=ContextCreateInputSerializer,
        responses={201: ContextOutputSerializer},
    )
    def create(self, request: Request) -> Response:
        user = current_user(request)
        data = validated(ContextCreateInputSerializer, request.data)
        data["parent"] = _parent(user, data.get("parent"))
        context = context_create(user=user, **data)
        return Response(self._output(context), status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Read a context", parameters=[CONTEXT_ID], responses=ContextOutputSerializer
    )
    def retrieve(self, request: Request, pk: str) -> Response:
        return Response(self._output(self.get_object()))

    @extend_schema(
        summary="Rename, describe or move a context",
        parameters=[CONTEXT_ID],
        description="`parent` moves the context like the move action; leaving it "
        "out keeps the context where it is. All or nothing.",
        request=ContextUpdateInputSerializer,
        responses=ContextOutputSerializer,
    )
    def partial_update(self, request: Request, pk: str) -> Response:
        context = self.get_object()
        data = validated(ContextUpdateInputSerializer, request.data)
        with transaction.atomic():
            if "parent" in data:
                context = context_move(
                    context=context, parent=_parent(context.user, data.pop("parent"))
                )
            context = context_update(context=context, **data)
        return Response(self._output(context))

    @extend_schema(
        summary="Delete a context and its sub-contexts (claims stay)",
        parameters=[CONTEXT_ID],
        responses={204: None},
    )
    def destroy(self, request: Request, pk: str) -> Response:
        context_delete(context=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        summary="Move a context under another one, or to the root",
        parameters=[CONTEXT_ID],
        request=ContextMoveInputSerializer,
        responses=ContextOutputSerializer,
    )
    @action(detail=True, methods=["post"])
    def move(self, request: Request, pk: str) -> Response:
        context = self.get_object()
        parent = _parent(
            context.user, validated(ContextMoveInputSerializer, request.data)["parent"]
        )
        context = context_move(context=context, parent=parent)
        return Response(self._output(context))

    @extend_schema(
        methods=["POST"],
        summary="Add claims to a context",
        parameters=[CONTEXT_ID],
        request=ClaimKeysSerializer,
        responses=ContextOutputSerializer,
    )
    @extend_schema(
        methods=["DELETE"],
        summary="Remove claims from a context",
        parameters=[CONTEXT_ID, CLAIM_KEYS_QUERY],
        request=ClaimKeysSerializer,
        responses={200: ContextOutputSerializer},
    )
    @action(detail=True, methods=["post", "delete"])
    def claims(self, request: Request, pk: str) -> Response:
        context = self.get_object()
        claims = claims_named_in(request)
        if request.method == "POST":
            context_add_claims(context=context, claims=claims)
        else:
            context_remove_claims(context=context, claims=claims)
        return Response(self._output(context))

    @extend_schema(
        summary="The claims a reference to this context brings in",
        description="Active and contested claims of the context and all its "
        "sub-contexts, de-duplicated, newest first.",
        parameters=[CONTEXT_ID],
        responses=ClaimOutputSerializer(many=True),
    )
    @action(detail=True, methods=["get"])
    def resolve(self, request: Request, pk: str) -> Response:
        context = self.get_object()
        claims = context_resolved_queryset(user=context.user, context=context)
        page = self.paginate_queryset(claims.prefetch_related(*claim_output_prefetches()))
        return self.get_paginated_response(ClaimOutputSerializer(page, many=True).data)
