"""Projects in the integration API: list, create, update and archive the user's own."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.request_user import current_user

from .models import Project
from .selectors import project_get, project_list
from .services import project_archive, project_create, project_update


class ProjectSerializer(serializers.ModelSerializer):
    class Meta:
        model = Project
        fields = ["id", "name", "slug", "description", "archived", "created_at", "updated_at"]
        read_only_fields = ["id", "slug", "created_at", "updated_at"]
        extra_kwargs = {"name": {"max_length": 120}}


@extend_schema_view(
    list=extend_schema(summary="List your projects", tags=["projects"]),
    retrieve=extend_schema(summary="Read a project", tags=["projects"]),
    create=extend_schema(summary="Create a project", tags=["projects"]),
    update=extend_schema(summary="Replace a project's fields", tags=["projects"]),
    partial_update=extend_schema(summary="Update a project", tags=["projects"]),
)
class ProjectViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    viewsets.GenericViewSet,
):
    serializer_class = ProjectSerializer
    lookup_value_regex = "[^/]+"
    queryset = Project.objects.none()  # the real queryset is always the user's (below)

    def get_queryset(self) -> Any:
        return project_list(user=current_user(self.request))

    def get_object(self) -> Project:
        return project_get(user=current_user(self.request), project_id=self.kwargs["pk"])

    def perform_create(self, serializer: serializers.BaseSerializer) -> None:
        serializer.instance = project_create(
            owner=current_user(self.request),
            name=serializer.validated_data["name"],
            description=serializer.validated_data.get("description", ""),
        )

    def perform_update(self, serializer: serializers.BaseSerializer) -> None:
        data = serializer.validated_data
        assert isinstance(serializer.instance, Project)
        serializer.instance = project_update(
            project=serializer.instance,
            name=data.get("name"),
            description=data.get("description"),
            archived=data.get("archived"),
        )

    @extend_schema(
        request=None, responses=ProjectSerializer, summary="Archive a project", tags=["projects"]
    )
    @action(detail=True, methods=["post"])
    def archive(self, request: Request, pk: str | None = None) -> Response:
        project = project_archive(project=self.get_object())
        return Response(ProjectSerializer(project).data)
