"""Pieces every knowledge endpoint shares: claim keys in bodies,
and the relations a claim's output needs, fetched in a fixed number of queries."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from django.db.models import Prefetch
from drf_spectacular.utils import OpenApiParameter, extend_schema_field
from rest_framework import serializers
from rest_framework.request import Request

from apps.claims.models import Claim, Entity, Tag
from apps.claims.selectors import claim_find
from apps.contexts.models import Context
from apps.core.request_user import current_user
from apps.core.validation import validated

if TYPE_CHECKING:
    from apps.accounts.models import User

MAX_CLAIM_KEYS = 500


def uuid_path_parameter(noun: str) -> OpenApiParameter:
    return OpenApiParameter("id", str, OpenApiParameter.PATH, description=f"The {noun}'s UUID.")


@extend_schema_field(
    {
        "oneOf": [{"type": "string"}, {"type": "integer", "minimum": 1}],
        "description": 'A claim\'s UUID, number (42, "#42", "claim_42") or friendly ID.',
    }
)
class ClaimKeyField(serializers.Field):
    default_error_messages = {"invalid": "A claim is named by its UUID, number or friendly ID."}

    def to_internal_value(self, data: Any) -> str:
        if isinstance(data, bool) or not isinstance(data, int | str):
            self.fail("invalid")
        key = str(data).strip()
        if not key or len(key) > 100:
            self.fail("invalid")
        return key

    def to_representation(self, value: Any) -> Any:
        return value


class ClaimKeysSerializer(serializers.Serializer):
    claims = serializers.ListField(child=ClaimKeyField(), min_length=1, max_length=MAX_CLAIM_KEYS)


class ClaimKeysQuerySerializer(serializers.Serializer):
    claims = serializers.CharField(
        max_length=20_000,
        help_text="Comma-separated claim UUIDs, numbers or friendly IDs (for DELETE, in "
        "place of a body).",
    )


CLAIM_KEYS_QUERY = OpenApiParameter(
    "claims",
    str,
    OpenApiParameter.QUERY,
    required=False,
    description="Comma-separated claim UUIDs, numbers or friendly IDs; clients that cannot "
    'send a DELETE body use this instead of `{"claims": [...]}`.',
)


def claims_named_in(request: Request) -> list[Claim]:
    """The claims a link or unlink request names: ``{"claims": [...]}`` in the body, or for
    a DELETE without a body ``?claims=42,prefer_tea_a3f2``."""
    data: Any = request.data
    if request.method == "DELETE" and not data:
        query = validated(ClaimKeysQuerySerializer, request.query_params)["claims"]
        data = {"claims": [key for key in query.split(",") if key.strip()]}
    keys = validated(ClaimKeysSerializer, data)["claims"]
    return claims_from_keys(user=current_user(request), keys=keys)


def claims_from_keys(*, user: User, keys: Iterable[str]) -> list[Claim]:
    """The user's claims named by ``keys``; any unknown key (another user's claim included)
    is a 400 on ``claims`` naming them, so nothing is written for a partly wrong list."""
    claims: dict[Any, Claim] = {}
    missing: list[str] = []
    for key in keys:
        claim = claim_find(user=user, key=key)
        if claim is None:
            missing.append(key)
        else:
            claims.setdefault(claim.pk, claim)
    if missing:
        raise serializers.ValidationError(
            {"claims": [f"No such claim: {', '.join(repr(key) for key in missing)}."]}
        )
    return list(claims.values())


def claim_output_prefetches() -> list[Prefetch]:
    """Everything ClaimOutputSerializer reads besides the claim row itself."""
    return [
        Prefetch("supersedes", Claim.objects.only("id", "number")),
        Prefetch("superseded_by", Claim.objects.only("id", "number", "supersedes_id")),
        Prefetch("tags", Tag.objects.only("id")),
        Prefetch("entities", Entity.objects.only("id")),
        Prefetch("contexts", Context.objects.only("id")),
    ]
