"""``/api/v1/sources/``, ``/api/v1/documents/`` and ``/api/v1/search``: a user's file
sources, documents (upload, status, delete, re-index) and hybrid search. Thin views: parse,
call one selector or service, answer. Another user's source or document is a 404."""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.api import STORAGE_REFUSED
from apps.core.request_user import current_user
from apps.core.validation import validated, validated_query
from apps.projects.models import Project
from apps.projects.selectors import project_get
from apps.projects.services import project_chosen_or_personal

from ..models import Document, Source
from ..search import evidence_search
from ..selectors import document_get, document_list, source_get, source_list
from ..services import (
    document_delete,
    document_reindex,
    documents_upload,
    source_create_folder,
    source_delete,
    source_refresh,
)
from .serializers import (
    DocumentFilterSerializer,
    DocumentOutputSerializer,
    DocumentUploadInputSerializer,
    FolderSourceInputSerializer,
    SearchHitSerializer,
    SearchOutputSerializer,
    SearchQuerySerializer,
    SourceFilterSerializer,
    SourceOutputSerializer,
    UploadOutputSerializer,
)

ID = OpenApiParameter("id", str, OpenApiParameter.PATH, description="The object's UUID.")


def _project(request: Request, project_id: Any) -> Project | None:
    return project_get(user=current_user(request), project_id=project_id) if project_id else None


class SourceViewSet(viewsets.GenericViewSet):
    filter_serializer_class = SourceFilterSerializer
    queryset = Source.objects.none()  # every read goes through the user's selectors
    serializer_class = SourceOutputSerializer

    def get_object(self) -> Source:
        return source_get(user=current_user(self.request), source_id=self.kwargs["pk"])

    @extend_schema(
        summary="List your file sources", tags=["files"], parameters=[SourceFilterSerializer]
    )
    def list(self, request: Request) -> Response:
        filters = validated_query(SourceFilterSerializer, request.query_params)
        sources = source_list(
            user=current_user(request), project=_project(request, filters.get("project"))
        )
        page = self.paginate_queryset(sources.order_by("created_at"))
        return self.get_paginated_response(SourceOutputSerializer(page, many=True).data)

    @extend_schema(
        summary="Read a source and its indexing progress", tags=["files"], parameters=[ID]
    )
    def retrieve(self, request: Request, pk: str) -> Response:
        return Response(SourceOutputSerializer(self.get_object()).data)

    @extend_schema(
        summary="Add a folder on the server as a source (staff only)",
        tags=["files"],
        description="Only staff, and only folders under `CAIRN_FOLDER_ROOTS`. The folder is "
        "scanned and indexed in the background. Upload sources are created "
        "by uploading.",
        request=FolderSourceInputSerializer,
        responses={201: SourceOutputSerializer},
    )
    def create(self, request: Request) -> Response:
        data = validated(FolderSourceInputSerializer, request.data)
        project = project_get(user=current_user(request), project_id=data.pop("project"))
        source = source_create_folder(user=current_user(request), project=project, **data)
        return Response(SourceOutputSerializer(source).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Delete a source, its documents and their chunks",
        tags=["files"],
        parameters=[ID],
        responses={204: None},
    )
    def destroy(self, request: Request, pk: str) -> Response:
        source_delete(source=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        summary="Scan a folder again, or re-index every upload",
        tags=["files"],
        parameters=[ID],
        request=None,
        responses={202: SourceOutputSerializer},
    )
    @action(detail=True, methods=["post"])
    def refresh(self, request: Request, pk: str) -> Response:
        source = self.get_object()
        source_refresh(source=source, user=current_user(request))
        source.refresh_from_db()
        return Response(SourceOutputSerializer(source).data, status=status.HTTP_202_ACCEPTED)


class UploadAwareSchema(AutoSchema):
    """An upload answers with the list of what it stored, never a page of results."""

    def _get_paginator(self) -> Any:
        return None if self.method == "POST" else super()._get_paginator()


class DocumentViewSet(viewsets.GenericViewSet):
    filter_serializer_class = DocumentFilterSerializer
    schema = UploadAwareSchema()

    queryset = Document.objects.none()
    serializer_class = DocumentOutputSerializer
    parser_classes = [MultiPartParser, FormParser, JSONParser]

    def get_object(self) -> Document:
        return document_get(user=current_user(self.request), document_id=self.kwargs["pk"])

    @extend_schema(
        summary="List your documents and their indexing status",
        tags=["files"],
        parameters=[DocumentFilterSerializer],
    )
    def list(self, request: Request) -> Response:
        filters = validated_query(DocumentFilterSerializer, request.query_params)
        user = current_user(request)
        source = (
            source_get(user=user, source_id=filters["source"]) if filters.get("source") else None
        )
        documents = document_list(
            user=user,
            project=_project(request, filters.get("project")),
            source=source,
            status=filters.get("status"),
        )
        page = self.paginate_queryset(documents)
        return self.get_paginated_response(DocumentOutputSerializer(page, many=True).data)

    @extend_schema(summary="Read a document's indexing status", tags=["files"], parameters=[ID])
    def retrieve(self, request: Request, pk: str) -> Response:
        return Response(DocumentOutputSerializer(self.get_object()).data)

    @extend_schema(
        summary="Upload files into a project",
        tags=["files"],
        description="Multipart: one or more `files` parts and an optional `project`. Each "
        "file is indexed in the background; poll its status or watch the "
        "`indexing.progress` events on `/ws/events/`. A file whose content was "
        "already uploaded to the project is reported as a duplicate.",
        request={"multipart/form-data": DocumentUploadInputSerializer},
        responses={
            201: UploadOutputSerializer(many=True),
            503: STORAGE_REFUSED,
            507: STORAGE_REFUSED,
        },
    )
    def create(self, request: Request) -> Response:
        files = request.FILES.getlist("files") or request.FILES.getlist("file")
        project_id = request.POST.get("project")
        data = validated(
            DocumentUploadInputSerializer,
            {"files": files, **({"project": project_id} if project_id else {})},
        )
        user = current_user(request)
        project = project_chosen_or_personal(user=user, project_id=data.get("project"))
        results = documents_upload(project=project, files=data["files"])
        body = UploadOutputSerializer(
            [
                {"document": r.document, "duplicate": r.duplicate, "replaced": r.replaced}
                for r in results
            ],
            many=True,
        ).data
        return Response(body, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Delete a document and its chunks",
        tags=["files"],
        parameters=[ID],
        responses={204: None},
    )
    def destroy(self, request: Request, pk: str) -> Response:
        document_delete(document=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        summary="Index a document again",
        tags=["files"],
        parameters=[ID],
        request=None,
        responses={202: DocumentOutputSerializer},
    )
    @action(detail=True, methods=["post"])
    def reindex(self, request: Request, pk: str) -> Response:
        document = self.get_object()
        document_reindex(document=document)
        document.refresh_from_db()
        return Response(DocumentOutputSerializer(document).data, status=status.HTTP_202_ACCEPTED)


class SearchApi(APIView):
    @extend_schema(
        summary="Search your claims, files and chats",
        tags=["search"],
        description="Hybrid search: vector similarity (cosine) and Okapi BM25 over your own "
        "rows (chat turns also with their neighbouring turns), fused by their weighted, "
        'normalised scores. A query that names a time ("in May 2024", "last week") also ranks '
        "the chat turns said then. Only your data; claims that are active or "
        "contested; chats that are not archived; chat turns that are evidence (what you or "
        "an imported assistant said, not Cairn's own answers or your bare questions) unless "
        "`everything` is true. Each hit carries its "
        "provenance (document path and offsets, or conversation and message).",
        parameters=[SearchQuerySerializer],
        responses=SearchOutputSerializer,
    )
    def get(self, request: Request) -> Response:
        params = validated_query(SearchQuerySerializer, request.query_params)
        hits = evidence_search(
            user=current_user(request),
            query=params["q"],
            project=_project(request, params.get("project")),
            kinds=params.get("kinds") or ("claim", "document", "message"),
            k=params["k"],
            everything=params["everything"],
        )
        return Response(
            {"query": params["q"], "results": SearchHitSerializer(hits, many=True).data}
        )
