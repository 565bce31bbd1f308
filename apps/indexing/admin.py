"""Sources, documents and chunks in the admin: each user sees their own, read-mostly.

Files are added on the Files page or through the API (the services check paths, roots and
duplicates); here sources can be renamed and their globs edited, and anything deleted."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.utils.text import Truncator

from apps.core.admin_scoping import OwnedModelAdmin

from .models import Chunk, Document, Source
from .services import document_delete, source_delete


@admin.register(Source)
class SourceAdmin(OwnedModelAdmin):
    owner_field = "project__owner"
    list_display = [
        "name",
        "project",
        "kind",
        "status",
        "progress_done",
        "progress_total",
        "updated_at",
    ]
    list_filter = ["kind", "status"]
    search_fields = ["name", "root_path"]
    fields = [
        "project",
        "kind",
        "name",
        "root_path",
        "include_globs",
        "exclude_globs",
        "status",
        "progress_done",
        "progress_total",
        "progress_current",
        "error",
        "last_run_at",
        "created_at",
        "updated_at",
    ]
    readonly_fields = [
        "project",
        "kind",
        "root_path",
        "status",
        "progress_done",
        "progress_total",
        "progress_current",
        "error",
        "last_run_at",
        "created_at",
        "updated_at",
    ]

    def has_add_permission(self, request: HttpRequest, *args: Any) -> bool:
        return False

    def delete_model(self, request: HttpRequest, obj: Source) -> None:
        source_delete(source=obj)

    def delete_queryset(self, request: HttpRequest, queryset: Any) -> None:
        for source in queryset:
            source_delete(source=source)


@admin.register(Document)
class DocumentAdmin(OwnedModelAdmin):
    owner_field = "source__project__owner"
    list_display = ["path", "source", "doc_type", "status", "size", "chunk_count", "indexed_at"]
    list_filter = ["status", "doc_type"]
    search_fields = ["path", "error", "sha256"]
    list_select_related = ["source"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [field.name for field in Document._meta.fields]

    def has_add_permission(self, request: HttpRequest, *args: Any) -> bool:
        return False

    def delete_model(self, request: HttpRequest, obj: Document) -> None:
        document_delete(document=obj)

    def delete_queryset(self, request: HttpRequest, queryset: Any) -> None:
        for document in queryset:
            document_delete(document=document)


_CHUNK_FIELDS: tuple[str, ...] = (
    "document",
    "message",
    "project",
    "chunk_index",
    "start",
    "end",
    "embedding_model",
    "text",
    "created_at",
)


@admin.register(Chunk)
class ChunkAdmin(OwnedModelAdmin):
    """Chunks are the search index's internal rows: only a superuser, debugging search,
    sees them; an ordinary user's admin does not list them (issue 18)."""

    owner_field = "user"
    list_display = ["excerpt", "owner_label", "chunk_index", "start", "end", "embedding_model"]
    list_filter = ["embedding_model"]
    search_fields = ["text"]
    fields = _CHUNK_FIELDS
    readonly_fields = _CHUNK_FIELDS

    def _user_may_edit(self, request: HttpRequest) -> bool:
        return bool(request.user.is_active and request.user.is_superuser)

    @admin.display(description="text")
    def excerpt(self, obj: Chunk) -> str:
        return Truncator(" ".join(obj.text.split())).chars(120) or "(no text)"

    def has_add_permission(self, request: HttpRequest, *args: Any) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Chunks are written by indexing only: view-only. With no object (another user's,
        # or none) the answer is the usual one, so such a URL is a 404, not a 403.
        return obj is None and super().has_change_permission(request, obj)
