"""``/api/v1/imports/``: upload a ChatGPT or Claude export, then follow it until searchable."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from apps.chat.models import ChatImport
from apps.core.api import STORAGE_REFUSED, OwnedPrimaryKeyField
from apps.core.request_user import current_user
from apps.projects.selectors import project_list
from apps.projects.services import project_ensure_personal

from .selectors import chat_import_get, chat_import_list
from .store import (
    FINISHED,
    chat_import_create,
    chat_import_delete,
    chat_import_retry,
    chat_import_settle,
    chat_imports_settle_unfinished,
)


class ChatImportSerializer(serializers.ModelSerializer):
    status_display = serializers.CharField(source="get_status_display", read_only=True)
    searchable = serializers.SerializerMethodField()
    progress = serializers.SerializerMethodField(help_text="0 to 1: stored, then indexed.")
    skipped = serializers.ListField(
        child=serializers.DictField(),
        read_only=True,
        help_text="Conversations not stored, the first 100: {index (from 0), title, reason}.",
    )

    class Meta:
        model = ChatImport
        fields = [
            "id",
            "project",
            "file_name",
            "source",
            "status",
            "status_display",
            "searchable",
            "progress",
            "extract_claims",
            "conversations_total",
            "conversations_done",
            "conversations_created",
            "messages_stored",
            "messages_indexed",
            "conversations_skipped",
            "skipped",
            "error",
            "created_at",
            "finished_at",
        ]
        read_only_fields = fields

    def get_searchable(self, chat_import: ChatImport) -> bool:
        return chat_import.status == ChatImport.Status.DONE

    def get_progress(self, chat_import: ChatImport) -> float:
        return chat_import_progress_ratio(chat_import)


def chat_import_progress_ratio(chat_import: ChatImport) -> float:
    """Storing is the first half of the bar, indexing the second."""
    if chat_import.status == ChatImport.Status.DONE:
        return 1.0
    stored = chat_import.conversations_done / max(chat_import.conversations_total, 1)
    indexed = chat_import.messages_indexed / max(chat_import.messages_total, 1)
    if chat_import.status == ChatImport.Status.INDEXING:
        return round(0.5 + indexed / 2, 3)
    return round(stored / 2, 3)


class ChatImportInputSerializer(serializers.Serializer):
    file = serializers.FileField(
        help_text="ChatGPT's or Claude's export zip, or its conversations.json."
    )
    project = OwnedPrimaryKeyField(
        scope=lambda user: project_list(user=user), noun="project", required=False
    )
    extract_claims = serializers.BooleanField(
        default=False, help_text="Suggest claims from what you said, as pending for review."
    )


class ChatImportDeleteSerializer(serializers.Serializer):
    with_conversations = serializers.BooleanField(
        default=False,
        help_text="Also delete the messages the import stored, and conversations left empty.",
    )


class ChatImportViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = ChatImportSerializer
    parser_classes = [MultiPartParser, FormParser]
    queryset = ChatImport.objects.none()

    def get_queryset(self) -> Any:
        user = current_user(self.request)
        chat_imports_settle_unfinished(user=user)
        return chat_import_list(user=user)

    def get_object(self) -> ChatImport:
        chat_import = chat_import_get(
            user=current_user(self.request), chat_import_id=self.kwargs["pk"]
        )
        if chat_import.status in FINISHED:
            return chat_import
        return chat_import_settle(chat_import_id=chat_import.pk) or chat_import

    @extend_schema(
        summary="Import a ChatGPT or Claude export in the background",
        request=ChatImportInputSerializer,
        responses={202: ChatImportSerializer, 503: STORAGE_REFUSED, 507: STORAGE_REFUSED},
    )
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        user = current_user(request)
        data = ChatImportInputSerializer(data=request.data, context={"request": request})
        data.is_valid(raise_exception=True)
        chat_import = chat_import_create(
            user=user,
            # The field has already checked that a given project is the user's own.
            project=data.validated_data.get("project") or project_ensure_personal(user=user),
            upload=data.validated_data["file"],
            extract_claims=data.validated_data["extract_claims"],
        )
        return Response(ChatImportSerializer(chat_import).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        summary="Delete an import (and, if asked, what it stored)",
        parameters=[ChatImportDeleteSerializer],
        responses={204: None},
    )
    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        options = ChatImportDeleteSerializer(data=request.query_params)
        options.is_valid(raise_exception=True)
        chat_import_delete(
            chat_import=self.get_object(),
            with_conversations=options.validated_data["with_conversations"],
        )
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        summary="Run a failed import again", request=None, responses={202: ChatImportSerializer}
    )
    @action(detail=True, methods=["post"])
    def retry(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        chat_import = chat_import_retry(chat_import=self.get_object())
        return Response(ChatImportSerializer(chat_import).data, status=status.HTTP_202_ACCEPTED)
