"""``/api/v1/claims/``: a user's claims, named in the URL by UUID, number or friendly ID."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.http import Http404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from apps.accounts.models import User
from apps.claims.models import Claim, ClaimOrigin
from apps.claims.selectors import claim_list, claim_lookup, tag_descendant_ids, tag_get
from apps.claims.services import (
    claim_complete,
    claim_create,
    claim_delete,
    claim_restore,
    claim_retract,
    claim_review,
    claim_set_pinned,
    claim_supersede,
    claim_update,
)
from apps.contexts.selectors import claims_in_context, context_get
from apps.contexts.services import context_transfer_memberships
from apps.core.request_user import current_user
from apps.core.validation import validated

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


def claims_filtered(*, user: User, filters: dict[str, Any]) -> QuerySet[Claim]:
    """The list endpoint's filters on top of the claim selectors; a tag or context that is
    not the user's matches nothing rather than answering 404 to a query."""
    try:
        tag = tag_get(user=user, tag_id=filters["tag"]) if filters.get("tag") else None
        context = (
            context_get(user=user, context_id=filters["context"])
            if filters.get("context")
            else None
        )
    except Http404:
        return Claim.objects.none()
    tag_ids = tag_descendant_ids(user=user, tag=tag) if tag is not None else None
    claims = claim_list(
        user=user,
        statuses=filters.get("status"),
        claim_types=filters.get("claim_type"),
        domains=filters.get("domain"),
        pinned=filters.get("pinned"),
        tag_ids=tag_ids,
        entity_ids=[filters["entity"]] if filters.get("entity") else None,
        query=filters.get("q"),
    )
    if context is not None:
        in_context = claims_in_context(user=user, context=context)
        claims = claims.filter(id__in=in_context.values("id"))
    if not (filters.get("q") or "").strip():
        claims = claims.order_by("-updated_at", "-number")  # stable pages
    return claims


def claim_output(claim: Claim) -> dict[str, Any]:
    fresh = Claim.objects.prefetch_related(*claim_output_prefetches()).get(pk=claim.pk)
    return dict(ClaimOutputSerializer(fresh).data)


class ClaimViewSet(viewsets.GenericViewSet):
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
        filters = validated(ClaimFilterSerializer, request.query_params)
        claims = claims_filtered(user=current_user(request), filters=filters)
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
        with transaction.atomic():
            new = claim_supersede(claim=old, origin=ClaimOrigin.API, **data)
            context_transfer_memberships(old=old, new=new)
        return Response(claim_output(new), status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Retract a claim",
        tags=[TAG],
        parameters=[CLAIM_KEY],
        request=None,
        responses=ClaimOutputSerializer,
    )
    @action(detail=True, methods=["post"])
    def retract(self, request: Request, key: str) -> Response:
        claim = claim_retract(claim=self.get_object())
        return Response(claim_output(claim))

    @extend_schema(
        summary="Pin a claim (used in every answer)",
        tags=[TAG],
        parameters=[CLAIM_KEY],
        request=None,
        responses=ClaimOutputSerializer,
    )
    @action(detail=True, methods=["post"])
    def pin(self, request: Request, key: str) -> Response:
        claim = self.get_object()
        claim_set_pinned(claims=[claim], pinned=True)
        return Response(claim_output(claim))

    @extend_schema(
        summary="Unpin a claim",
        tags=[TAG],
        parameters=[CLAIM_KEY],
        request=None,
        responses=ClaimOutputSerializer,
    )
    @action(detail=True, methods=["post"])
    def unpin(self, request: Request, key: str) -> Response:
        claim = self.get_object()
        claim_set_pinned(claims=[claim], pinned=False)
        return Response(claim_output(claim))

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
        claim = claim_complete(claim=self.get_object(), action="complete")
        return Response(claim_output(claim))

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
        claim = claim_restore(claim=self.get_object())
        return Response(claim_output(claim))
