"""``/api/v1/knowledge/export/`` and ``/import/``: a whole account as one JSON document.

The document serializers below describe the format for the OpenAPI schema; the document
itself is read and validated by ``apps.knowledge.portability``, the same code the management
commands use.
"""

from __future__ import annotations

import dataclasses

from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.claims.models import ClaimOrigin, ClaimStatus, EntityType
from apps.core.request_user import current_user
from apps.knowledge.portability import (
    FORMAT_NAME,
    FORMAT_VERSION,
    AccountNotEmptyError,
    knowledge_export,
    knowledge_import,
)

from .serializers import ClaimTypesField, DomainsField

TAG = "knowledge"


class DocumentClaimSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="Document-local id that links refer to.")
    number = serializers.IntegerField(min_value=1)
    friendly_id = serializers.CharField()
    statement = serializers.CharField()
    claim_types = ClaimTypesField()
    domains = DomainsField()
    status = serializers.ChoiceField(choices=ClaimStatus.choices)
    possible_questions = serializers.ListField(child=serializers.CharField())
    pinned = serializers.BooleanField()
    confidence = serializers.FloatField()
    valid_from = serializers.DateTimeField(allow_null=True)
    valid_until = serializers.DateTimeField(allow_null=True)
    supersedes = serializers.CharField(
        allow_null=True, help_text="The id of the claim this one replaced."
    )
    origin = serializers.ChoiceField(choices=ClaimOrigin.choices)
    origin_token_name = serializers.CharField(
        max_length=100,
        allow_blank=True,
        help_text="The API token's name when it was added over MCP; blank otherwise.",
    )
    source_message = serializers.CharField(
        allow_null=True, help_text="For reference only: not restored by an import."
    )
    metadata = serializers.DictField()
    reinforced_count = serializers.IntegerField(min_value=0)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class DocumentMembershipSerializer(serializers.Serializer):
    claim = serializers.CharField()
    added_at = serializers.DateTimeField()


class DocumentContextSerializer(serializers.Serializer):
    id = serializers.CharField()
    friendly_id = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    parent = serializers.CharField(allow_null=True)  # type: ignore[assignment]  # DRF stubs
    claims = DocumentMembershipSerializer(many=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class DocumentTagSerializer(serializers.Serializer):
    id = serializers.CharField()
    friendly_id = serializers.CharField()
    name = serializers.CharField()
    parent = serializers.CharField(allow_null=True)  # type: ignore[assignment]  # DRF stubs
    claims = serializers.ListField(child=serializers.CharField())
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class DocumentEntitySerializer(serializers.Serializer):
    id = serializers.CharField()
    friendly_id = serializers.CharField()
    name = serializers.CharField()
    entity_type = serializers.ChoiceField(choices=EntityType.choices)
    description = serializers.CharField(allow_blank=True)
    claims = serializers.ListField(child=serializers.CharField())
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class KnowledgeDocumentSerializer(serializers.Serializer):
    format = serializers.ChoiceField(choices=[FORMAT_NAME])
    version = serializers.ChoiceField(choices=[FORMAT_VERSION])
    exported_at = serializers.DateTimeField()
    last_claim_number = serializers.IntegerField(min_value=0)
    claims = DocumentClaimSerializer(many=True)
    contexts = DocumentContextSerializer(many=True, help_text="Parents before children.")
    tags = DocumentTagSerializer(many=True)
    entities = DocumentEntitySerializer(many=True)


class ImportReportSerializer(serializers.Serializer):
    claims = serializers.IntegerField()
    contexts = serializers.IntegerField()
    tags = serializers.IntegerField()
    entities = serializers.IntegerField()
    memberships = serializers.IntegerField(help_text="Claims placed in contexts.")
    links = serializers.IntegerField(help_text="Claims linked to tags and entities.")
    last_claim_number = serializers.IntegerField()
    id_map = serializers.DictField(
        child=serializers.DictField(child=serializers.UUIDField()),
        help_text="Per kind, each document id and the new UUID of its row.",
    )


class KnowledgeExportApi(APIView):
    @extend_schema(
        summary="Export all your knowledge as one document",
        tags=[TAG],
        operation_id="knowledge_export",
        responses=KnowledgeDocumentSerializer,
    )
    def get(self, request: Request) -> Response:
        document = knowledge_export(user=current_user(request))
        filename = f"cairn-knowledge-{timezone.now():%Y%m%d-%H%M%S}.json"
        return Response(
            document, headers={"Content-Disposition": f'attachment; filename="{filename}"'}
        )


class KnowledgeImportApi(APIView):
    parser_classes = [JSONParser]  # the document is JSON; a form cannot carry it

    @extend_schema(
        summary="Import a knowledge document into your (empty) account",
        tags=[TAG],
        operation_id="knowledge_import",
        description="All or nothing. Numbers, friendly IDs, statuses, timestamps and links "
        "are kept; rows get new UUIDs (see `id_map`). 400 lists every problem "
        "of an invalid document by its path; 409 when the account already "
        "holds claims, contexts, tags or entities.",
        request=KnowledgeDocumentSerializer,
        responses={
            201: ImportReportSerializer,
            400: OpenApiResponse(
                description="Every problem of the document, keyed by its "
                "path (`claims[3].statement`)."
            ),
            409: OpenApiResponse(description="The account already holds knowledge."),
        },
    )
    def post(self, request: Request) -> Response:
        try:
            report = knowledge_import(user=current_user(request), document=request.data)
        except AccountNotEmptyError as error:
            return Response({"detail": " ".join(error.messages)}, status=status.HTTP_409_CONFLICT)
        return Response(dataclasses.asdict(report), status=status.HTTP_201_CREATED)
