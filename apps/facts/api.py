"""``/api/v1/projects/{project_id}/facts/``: a project's facts, their history, manual set and
retract. Reads go through the user-scoped selectors, writes through the services; another
user's project (or an id that is not a UUID) answers 404.

Keys contain dots and, for mentioned URLs, slashes (``mentioned.url.https://a.io/x``), so
the key in a path matches anything up to the action's own suffix (``…/history/``).
"""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.request_user import current_user
from apps.core.validation import validated_query
from apps.projects.selectors import project_get

from .models import MAX_KEY_LENGTH, FactOrigin, FactValueType, ProjectFact
from .selectors import fact_history, facts_all, facts_current
from .services import fact_retract, fact_store

TAG = "facts"
PROJECT_ID = OpenApiParameter(
    "project_id", OpenApiTypes.UUID, OpenApiParameter.PATH, description="The project's UUID."
)
FACT_KEY = OpenApiParameter(
    "key",
    str,
    OpenApiParameter.PATH,
    description="The fact key, dots included, e.g. user.favorites.crypto.1.",
)


class FactOutputSerializer(serializers.ModelSerializer):
    key = serializers.CharField(source="fact_key")
    value = serializers.CharField(source="value_text")
    status = serializers.ChoiceField(
        choices=["current", "superseded", "retracted"],
        help_text="current; superseded by a later value; or retracted.",
    )
    supersedes = serializers.UUIDField(source="supersedes_id", allow_null=True)
    source_message = serializers.UUIDField(
        source="source_message_id",
        allow_null=True,
        help_text="The chat message the fact was extracted from, if any.",
    )

    class Meta:
        model = ProjectFact
        fields = [
            "id", "key", "value", "value_type", "topic", "rank", "status", "is_current",
            "confidence", "origin", "origin_token_name", "kind", "source_message", "supersedes",
            "effective_at",
            "retracted_at", "created_at",
        ]  # fmt: skip
        read_only_fields = fields


class FactListQuerySerializer(serializers.Serializer):
    include_history = serializers.BooleanField(
        default=False, help_text="Also list superseded and retracted rows, newest first per key."
    )


class FactSetInputSerializer(serializers.Serializer):
    key = serializers.CharField(max_length=MAX_KEY_LENGTH, help_text="e.g. user.email")
    value = serializers.JSONField(
        help_text="The value: text for string, number or bool values, an ISO date "
        "(YYYY-MM-DD) for dates, any JSON (or JSON text) for json."
    )
    value_type = serializers.ChoiceField(
        choices=FactValueType.choices, default=FactValueType.STRING
    )


class FactWriteOutputSerializer(serializers.Serializer):
    outcome = serializers.ChoiceField(
        choices=["stored", "updated", "unchanged"],
        help_text="stored: the key had no value; updated: a new value replaced the old one "
        "(kept in the history); unchanged: the key already had this value.",
    )
    fact = FactOutputSerializer()


class ProjectFactViewSet(viewsets.GenericViewSet):
    filter_serializer_class = FactListQuerySerializer
    queryset = ProjectFact.objects.none()  # every read goes through the user's selectors
    serializer_class = FactOutputSerializer
    lookup_url_kwarg = "key"
    lookup_value_regex = r".+"

    @extend_schema(
        summary="List a project's current facts",
        description="Ordered by topic, ranked lists in rank order. With include_history=1, "
        "every row, superseded and retracted ones too, newest first per key.",
        tags=[TAG],
        parameters=[PROJECT_ID, FactListQuerySerializer],
        responses=FactOutputSerializer(many=True),
    )
    def list(self, request: Request, project_id: str) -> Response:
        query = validated_query(FactListQuerySerializer, request.query_params)
        select = facts_all if query["include_history"] else facts_current
        facts = select(user=current_user(request), project_id=project_id)
        page = self.paginate_queryset(facts)
        return self.get_paginated_response(FactOutputSerializer(page, many=True).data)

    @extend_schema(
        summary="Set a fact by hand",
        description="Stores the key, replaces its value (the old one stays in the history), "
        "or leaves it unchanged when the value is the same once normalised.",
        tags=[TAG],
        parameters=[PROJECT_ID],
        request=FactSetInputSerializer,
        responses={201: FactWriteOutputSerializer, 200: FactWriteOutputSerializer},
    )
    def create(self, request: Request, project_id: str) -> Response:
        project = project_get(user=current_user(request), project_id=project_id)
        data = FactSetInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        result = fact_store(project=project, origin=FactOrigin.API, **data.validated_data)
        body = {"outcome": result.outcome, "fact": FactOutputSerializer(result.fact).data}
        code = status.HTTP_200_OK if result.outcome == "unchanged" else status.HTTP_201_CREATED
        return Response(body, status=code)

    @extend_schema(
        summary="A fact key's history",
        description="Every value the key has had, newest first: its supersedes chain.",
        tags=[TAG],
        parameters=[PROJECT_ID, FACT_KEY],
        responses=FactOutputSerializer(many=True),
    )
    @action(detail=True, methods=["get"])
    def history(self, request: Request, project_id: str, key: str) -> Response:
        rows = fact_history(user=current_user(request), project_id=project_id, key=key)
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(FactOutputSerializer(page, many=True).data)

    @extend_schema(
        summary="Retract a fact",
        description="The key's current value stops being current; it stays in the history. "
        "404 when the key has no current value.",
        tags=[TAG],
        parameters=[PROJECT_ID, FACT_KEY],
        request=None,
        responses=FactOutputSerializer,
    )
    @action(detail=True, methods=["post"])
    def retract(self, request: Request, project_id: str, key: str) -> Response:
        project = project_get(user=current_user(request), project_id=project_id)
        try:
            retracted = fact_retract(project=project, key=key)
        except DjangoValidationError:
            retracted = None  # a malformed key names no fact
        if retracted is None:
            raise Http404("This key has no current value.")
        return Response(FactOutputSerializer(retracted).data)
