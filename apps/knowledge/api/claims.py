"""``/api/v1/claims/``: a user's claims, named in the URL by UUID, number or friendly ID."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from apps.claims.models import Claim, ClaimOrigin
from apps.claims.selectors import claim_lookup
from apps.claims.services import claim_create, claim_delete, claim_review, claim_update
from apps.core.request_user import current_user
from apps.core.validation import validated, validated_query
from apps.memory.actions import (
    memory_complete,
    memory_edit,
    memory_pin,
    memory_restore,
    memory_retract,
)
from apps.memory.schemas import CompleteInput
from apps.memory.selectors import ClaimFilters, claims_filtered

from .common import claim_output_prefetches
from .serializers import (
    ClaimCreateInputSerializer,
    ClaimFilterSerializer,
    ClaimOutputSerializer,
    ClaimReviewInputSerializer,
    ClaimSupersedeInputSerializer,
    ClaimUpdateInputSerializer,
)

TAG = "claims"
CLAIM_KEY = OpenApiParameter(
    "key",
    str,
    OpenApiParameter.PATH,
    description="The claim's UUID, number (42) or friendly ID (prefer_morning_a3f2).",
)


def claim_filters(filters: dict[str, Any]) -> ClaimFilters:
    """The list endpoint's validated query parameters as the shared claim filters."""
    return ClaimFilters(
        statuses=filters.get("status"),
        claim_types=filters.get("claim_type"),
        domains=filters.get("domain"),
        pinned=filters.get("pinned"),
        tag=filters.get("tag"),
        entity=filters.get("entity"),
        context=filters.get("context"),
        q=filters.get("q") or "",
    )


def claim_output(claim: Claim) -> dict[str, Any]:
    fresh = Claim.objects.prefetch_related(*claim_output_prefetches()).get(pk=claim.pk)
    return dict(ClaimOutputSerializer(fresh).data)


class ClaimViewSet(viewsets.GenericViewSet):
    filter_serializer_class = ClaimFilterSerializer
    queryset = Claim.objects.none()  # every read goes through the user's selectors
    serializer_class = ClaimOutputSerializer
    lookup_url_kwarg = "key"
    lookup_value_regex = "[^/]+"

    def get_object(self) -> Claim:
        return claim_lookup(user=current_user(self.request), key=self.kwargs["key"])

    @extend_schema(
        summary="List and search your claims",
        tags=[TAG],
        parameters=[ClaimFilterSerializer],
        responses=ClaimOutputSerializer(many=True),
    )
    def list(self, request: Request) -> Response:
        filters = validated_query(ClaimFilterSerializer, request.query_params)
        claims = claims_filtered(user=current_user(request), filters=claim_filters(filters))
        page = self.paginate_queryset(claims.prefetch_related(*claim_output_prefetches()))
        return self.get_paginated_response(ClaimOutputSerializer(page, many=True).data)

    @extend_schema(
        summary="Record a claim",
        tags=[TAG],
        request=ClaimCreateInputSerializer,
        responses={201: ClaimOutputSerializer},
    )
    def create(self, request: Request) -> Response:
        data = validated(ClaimCreateInputSerializer, request.data)
        claim = claim_create(user=current_user(request), origin=ClaimOrigin.API, **data)
        return Response(claim_output(claim), status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Read a claim", tags=[TAG], parameters=[CLAIM_KEY], responses=ClaimOutputSerializer
    )
    def retrieve(self, request: Request, key: str) -> Response:
        return Response(claim_output(self.get_object()))

    @extend_schema(
        summary="Change some of a claim's fields",
        tags=[TAG],
        parameters=[CLAIM_KEY],
        request=ClaimUpdateInputSerializer,
        responses=ClaimOutputSerializer,
    )
    def partial_update(self, request: Request, key: str) -> Response:
        claim = self.get_object()
        data = validated(ClaimUpdateInputSerializer, request.data)
        claim = claim_update(claim=claim, **data)
        return Response(claim_output(claim))

    @extend_schema(
        summary="Delete a claim", tags=[TAG], parameters=[CLAIM_KEY], responses={204: None}
    )
    def destroy(self, request: Request, key: str) -> Response:
        claim_delete(claim=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        summary="Save a new version of a claim",
        tags=[TAG],
        parameters=[CLAIM_KEY],
        description="Creates the new version (201), which keeps the claim's number and "
        "friendly ID (unless `friendly_id` is given) and takes its tags, entities and "
        "contexts; the old version keeps its id and text, marked superseded, linked as "
        "`supersedes`. A number or friendly ID then names the new version.",
        request=ClaimSupersedeInputSerializer,
        responses={201: ClaimOutputSerializer},
    )
    @action(detail=True, methods=["post"])
    def supersede(self, request: Request, key: str) -> Response:
        old = self.get_object()
        data = validated(ClaimSupersedeInputSerializer, request.data)
        changed = memory_edit(claim=old, origin=ClaimOrigin.API, **data)
        return Response(claim_output(changed.claim), status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Retract a claim",
        tags=[TAG],
        parameters=[CLAIM_KEY],
        request=None,
        responses=ClaimOutputSerializer,
    )
    @action(detail=True, methods=["post"])
    def retract(self, request: Request, key: str) -> Response:
        changed = memory_retract(claim=self.get_object())
        return Response(claim_output(changed.claim))

    @extend_schema(
        summary="Pin a claim (used in every answer)",
        tags=[TAG],
        parameters=[CLAIM_KEY],
        request=None,
        responses=ClaimOutputSerializer,
    )
    @action(detail=True, methods=["post"])
    def pin(self, request: Request, key: str) -> Response:
        changed = memory_pin(claim=self.get_object(), pinned=True)
        return Response(claim_output(changed.claim))

    @extend_schema(
        summary="Unpin a claim",
        tags=[TAG],
        parameters=[CLAIM_KEY],
        request=None,
        responses=ClaimOutputSerializer,
    )
    @action(detail=True, methods=["post"])
    def unpin(self, request: Request, key: str) -> Response:
        changed = memory_pin(claim=self.get_object(), pinned=False)
        return Response(claim_output(changed.claim))

    @extend_schema(
        summary="Approve or reject a pending claim",
        tags=[TAG],
        parameters=[CLAIM_KEY],
        description="Approving makes the claim active (200 with the claim); rejecting "
        "deletes it (204).",
        request=ClaimReviewInputSerializer,
        responses={200: ClaimOutputSerializer, 204: None},
    )
    @action(detail=True, methods=["post"])
    def review(self, request: Request, key: str) -> Response:
        claim = self.get_object()
        data = validated(ClaimReviewInputSerializer, request.data)
        reviewed = claim_review(
            claim=claim, approve=data["approve"], statement=data.get("statement")
        )
        if reviewed is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        return Response(claim_output(reviewed))

    @extend_schema(
        summary="Mark a goal or task done, or tick off a shopping item",
        tags=[TAG],
        parameters=[CLAIM_KEY],
        description="The claim becomes done (not retracted: it was true, and it is history "
        "now); only an active or contested claim can be. 400 names the status otherwise.",
        request=None,
        responses=ClaimOutputSerializer,
    )
    @action(detail=True, methods=["post"])
    def done(self, request: Request, key: str) -> Response:
        claim = self.get_object()
        changed = memory_complete(claim=claim, data=CompleteInput(number=claim.number))
        return Response(claim_output(changed.claim))

    @extend_schema(
        summary="Put a done item back on its list, or a retracted claim back in the answers",
        tags=[TAG],
        parameters=[CLAIM_KEY],
        description="A done or retracted claim becomes active again (a retracted one with "
        "the chat turn it was taken from and the facts derived from it, and pinned again if "
        "it was); 400 names the status otherwise.",
        request=None,
        responses=ClaimOutputSerializer,
    )
    @action(detail=True, methods=["post"])
    def restore(self, request: Request, key: str) -> Response:
        changed = memory_restore(claim=self.get_object())
        return Response(claim_output(changed.claim))
