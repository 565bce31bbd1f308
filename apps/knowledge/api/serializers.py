"""Wire formats of the claims, entities and tags endpoints: one output shape per kind and
one input shape per write, validated again by the services."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ObjectDoesNotExist
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.claims.models import (
    CLAIM_EDITABLE_FIELDS,
    STATEMENT_MAX_LENGTH,
    Claim,
    ClaimStatus,
    ClaimType,
    Domain,
    Entity,
    EntityType,
    Tag,
)


def _choice_list_schema(choices: list[str]) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string", "enum": choices}}


# Plain strings on the way in so that the services' messages ("Unknown claim type 'x'.
# Choose from: …") reach the client; the schema still documents the allowed values.
@extend_schema_field(_choice_list_schema(ClaimType.values))
class ClaimTypesField(serializers.ListField):
    child = serializers.CharField(max_length=40)


@extend_schema_field(_choice_list_schema(Domain.values))
class DomainsField(serializers.ListField):
    child = serializers.CharField(max_length=40)


class ClaimLinkSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    number = serializers.IntegerField()


class ClaimOutputSerializer(serializers.ModelSerializer):
    claim_types = ClaimTypesField(read_only=True)
    domains = DomainsField(read_only=True)
    supersedes = ClaimLinkSerializer(read_only=True, allow_null=True)
    superseded_by = serializers.SerializerMethodField()
    source_message = serializers.PrimaryKeyRelatedField[Any](read_only=True, allow_null=True)
    contexts = serializers.PrimaryKeyRelatedField[Any](many=True, read_only=True)
    tags = serializers.PrimaryKeyRelatedField[Tag](many=True, read_only=True)
    entities = serializers.PrimaryKeyRelatedField[Entity](many=True, read_only=True)

    class Meta:
        model = Claim
        fields = [
            "id",
            "number",
            *CLAIM_EDITABLE_FIELDS,
            "supersedes",
            "superseded_by",
            "origin",
            "origin_token_name",
            "source_message",
            "reinforced_count",
            "contexts",
            "tags",
            "entities",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields

    @extend_schema_field(ClaimLinkSerializer(allow_null=True))
    def get_superseded_by(self, claim: Claim) -> dict[str, Any] | None:
        try:
            newer = claim.superseded_by
        except ObjectDoesNotExist:
            return None
        return {"id": newer.id, "number": newer.number}


class ClaimFieldsInputSerializer(serializers.Serializer):
    """The optional fields shared by create, update and supersede."""

    claim_types = ClaimTypesField(required=False, max_length=10)
    domains = DomainsField(required=False, max_length=20)
    possible_questions = serializers.ListField(
        child=serializers.CharField(max_length=500), required=False, max_length=20
    )
    pinned = serializers.BooleanField(required=False)
    confidence = serializers.FloatField(required=False, min_value=0.0, max_value=1.0)
    valid_from = serializers.DateTimeField(required=False, allow_null=True)
    valid_until = serializers.DateTimeField(required=False, allow_null=True)
    metadata = serializers.DictField(required=False)
    friendly_id = serializers.CharField(required=False, max_length=60)


class ClaimCreateInputSerializer(ClaimFieldsInputSerializer):
    statement = serializers.CharField(max_length=STATEMENT_MAX_LENGTH)
    status = serializers.ChoiceField(choices=ClaimStatus.choices, required=False)


class ClaimUpdateInputSerializer(ClaimFieldsInputSerializer):
    statement = serializers.CharField(max_length=STATEMENT_MAX_LENGTH, required=False)
    status = serializers.ChoiceField(choices=ClaimStatus.choices, required=False)


class ClaimSupersedeInputSerializer(ClaimFieldsInputSerializer):
    statement = serializers.CharField(
        max_length=STATEMENT_MAX_LENGTH, help_text="The statement of the new claim."
    )


class ClaimReviewInputSerializer(serializers.Serializer):
    approve = serializers.BooleanField(
        help_text="true makes the pending claim active; false deletes it."
    )
    statement = serializers.CharField(
        required=False,
        trim_whitespace=False,
        help_text="The corrected wording, kept when approving (edit, then approve).",
    )


class CommaListField(serializers.ListField):
    """A query parameter given repeatedly (?status=a&status=b) or comma-separated (a,b)."""

    def to_internal_value(self, data: Any) -> list[Any]:
        if isinstance(data, str):
            data = [data]
        items = [part.strip() for item in data for part in str(item).split(",") if part.strip()]
        return super().to_internal_value(items)


class ClaimFilterSerializer(serializers.Serializer):
    status = CommaListField(
        child=serializers.ChoiceField(choices=ClaimStatus.choices), required=False
    )
    claim_type = CommaListField(
        child=serializers.ChoiceField(choices=ClaimType.choices), required=False
    )
    domain = CommaListField(child=serializers.ChoiceField(choices=Domain.choices), required=False)
    pinned = serializers.BooleanField(required=False, allow_null=True, default=None)
    tag = serializers.UUIDField(required=False, help_text="A tag's UUID; includes child tags.")
    entity = serializers.UUIDField(required=False, help_text="An entity's UUID.")
    context = serializers.UUIDField(  # type: ignore[assignment]  # see TagOutputSerializer
        required=False, help_text="A context's UUID; includes its sub-contexts."
    )
    q = serializers.CharField(
        required=False, max_length=500, help_text="Full-text search over statement and friendly ID."
    )


class EntityOutputSerializer(serializers.ModelSerializer):
    claims = serializers.PrimaryKeyRelatedField[Claim](many=True, read_only=True)

    class Meta:
        model = Entity
        fields = [
            "id",
            "friendly_id",
            "name",
            "entity_type",
            "description",
            "claims",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields


class EntityCreateInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    entity_type = serializers.ChoiceField(choices=EntityType.choices, required=False)
    description = serializers.CharField(required=False, allow_blank=True, max_length=10_000)
    friendly_id = serializers.CharField(required=False, max_length=60)


class EntityUpdateInputSerializer(EntityCreateInputSerializer):
    name = serializers.CharField(max_length=200, required=False)


class TagOutputSerializer(serializers.ModelSerializer):
    # Declared fields leave the class body (DRF's metaclass collects them), so `parent` and
    # `context` do not shadow Field.parent / Field.context at run time; the stubs cannot
    # know that, hence the ignores.
    parent = serializers.PrimaryKeyRelatedField[Tag](  # type: ignore[assignment]
        read_only=True, allow_null=True
    )
    claims = serializers.PrimaryKeyRelatedField[Claim](many=True, read_only=True)

    class Meta:
        model = Tag
        fields = ["id", "friendly_id", "name", "parent", "claims", "created_at", "updated_at"]
        read_only_fields = fields


class TagCreateInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    parent = serializers.UUIDField(  # type: ignore[assignment]  # see TagOutputSerializer
        required=False, allow_null=True, help_text="The parent tag's UUID; null for a root tag."
    )
    friendly_id = serializers.CharField(required=False, max_length=60)


class TagUpdateInputSerializer(TagCreateInputSerializer):
    name = serializers.CharField(max_length=100, required=False)
