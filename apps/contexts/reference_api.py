"""Reference resolution for integrations: one identifier, or every reference in a message."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.request_user import current_user

from .references import ReferenceResolution, resolve_message, resolve_reference

MAX_MESSAGE_LENGTH = 32_000


class ResolvedClaimSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    number = serializers.IntegerField()
    friendly_id = serializers.CharField()
    statement = serializers.CharField()
    claim_types = serializers.ListField(child=serializers.CharField())
    status = serializers.CharField()


class ResolutionSerializer(serializers.Serializer):
    identifier = serializers.CharField()
    kind = serializers.ChoiceField(
        choices=["claim", "context", "entity", "tag", "domain", "not_found"]
    )
    found = serializers.BooleanField()
    label = serializers.CharField()  # type: ignore[assignment]  # a field, not Field.label
    title = serializers.CharField()
    message = serializers.CharField()
    object_id = serializers.UUIDField(allow_null=True)
    span = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    claims = ResolvedClaimSerializer(many=True)


def dump(result: ReferenceResolution) -> dict[str, object]:
    data = ResolutionSerializer(result).data
    return dict(data)


class ReferenceResolveApi(APIView):
    @extend_schema(
        summary="Resolve one @reference",
        tags=["references"],
        parameters=[
            OpenApiParameter(
                "ref",
                str,
                required=True,
                description="An identifier such as claim_42, prefer_morning_a3f2 or ssdva (no @).",
            )
        ],
        responses=ResolutionSerializer,
    )
    def get(self, request: Request) -> Response:
        ref = str(request.query_params.get("ref", ""))[:500]
        if not ref.strip():
            raise serializers.ValidationError({"ref": "Give the identifier to resolve."})
        return Response(dump(resolve_reference(current_user(request), ref)))


class MessageResolveApi(APIView):
    @extend_schema_serializer(component_name="MessageResolveInput")
    class InputSerializer(serializers.Serializer):
        text = serializers.CharField(max_length=MAX_MESSAGE_LENGTH, trim_whitespace=False)

    @extend_schema_serializer(component_name="MessageResolveOutput")
    class OutputSerializer(serializers.Serializer):
        clean_text = serializers.CharField(allow_blank=True)
        references = ResolutionSerializer(many=True)

    @extend_schema(
        summary="Resolve every @reference in a message",
        tags=["references"],
        request=InputSerializer,
        responses=OutputSerializer,
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        clean, results = resolve_message(current_user(request), data.validated_data["text"])
        return Response({"clean_text": clean, "references": [dump(r) for r in results]})
