"""Wire formats of the files and search endpoints."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from ..explain import explain_document, reindex_refusal
from ..models import Document, Source
from ..search import KINDS, MAX_K, QUERY_MAX_CHARS


class ProgressSerializer(serializers.Serializer):
    done = serializers.IntegerField(source="progress_done")
    total = serializers.IntegerField(source="progress_total")
    current = serializers.CharField(source="progress_current")
    percent = serializers.IntegerField(source="progress_percent")


class SourceOutputSerializer(serializers.ModelSerializer):
    project = serializers.UUIDField(source="project_id", read_only=True)
    progress = ProgressSerializer(source="*", read_only=True)
    document_count = serializers.IntegerField(read_only=True, default=0)

    class Meta:
        model = Source
        fields = [
            "id",
            "project",
            "kind",
            "name",
            "root_path",
            "include_globs",
            "exclude_globs",
            "status",
            "progress",
            "error",
            "document_count",
            "last_run_at",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields


class FolderSourceInputSerializer(serializers.Serializer):
    project = serializers.UUIDField(help_text="One of your projects.")
    root_path = serializers.CharField(
        max_length=1024, help_text="Absolute path of a folder under an allowed root."
    )
    name = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    include_globs = serializers.ListField(
        child=serializers.CharField(max_length=200),
        required=False,
        default=list,
        help_text="Only files matching one of these (`*.md`, `docs/*`); all when empty.",
    )
    exclude_globs = serializers.ListField(
        child=serializers.CharField(max_length=200),
        required=False,
        default=list,
        help_text="Files matching one of these are left out (`*.log`, `drafts/`).",
    )


class SourceFilterSerializer(serializers.Serializer):
    project = serializers.UUIDField(required=False)


class ExplanationSerializer(serializers.Serializer):
    summary = serializers.CharField()
    advice = serializers.CharField()


class DocumentOutputSerializer(serializers.ModelSerializer):
    # Declared fields leave the class body: "source" does not shadow Field.source.
    source = serializers.UUIDField(source="source_id", read_only=True)  # type: ignore[assignment]
    project = serializers.UUIDField(source="source.project_id", read_only=True)
    name = serializers.CharField(read_only=True)
    explanation = serializers.SerializerMethodField(
        help_text="A skipped or failed file's reason in plain words and what to do; null "
        "otherwise. `error` keeps the technical reason."
    )
    can_reindex = serializers.SerializerMethodField(
        help_text="False for a kind of file Cairn never reads (re-index answers 400)."
    )

    class Meta:
        model = Document
        fields = [
            "id",
            "source",
            "project",
            "path",
            "name",
            "doc_type",
            "size",
            "mtime",
            "sha256",
            "status",
            "error",
            "explanation",
            "can_reindex",
            "chunk_count",
            "attempts",
            "indexed_at",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields

    @extend_schema_field(ExplanationSerializer(allow_null=True))
    def get_explanation(self, document: Document) -> dict[str, str] | None:
        explanation = explain_document(document)
        if explanation is None:
            return None
        return {"summary": explanation.summary, "advice": explanation.advice}

    def get_can_reindex(self, document: Document) -> bool:
        return reindex_refusal(document) is None


class UploadOutputSerializer(serializers.Serializer):
    document = DocumentOutputSerializer()
    duplicate = serializers.BooleanField(
        help_text="The same content was already uploaded to this project: that document "
        "is returned and nothing new is stored."
    )
    replaced = serializers.BooleanField(
        help_text="A file of this name was there; its content is replaced."
    )


class DocumentUploadInputSerializer(serializers.Serializer):
    project = serializers.UUIDField(
        required=False, help_text="One of your projects; your Personal project if omitted."
    )
    files = serializers.ListField(
        child=serializers.FileField(max_length=1000, allow_empty_file=True),
        allow_empty=False,
        help_text="One or more files (multipart, repeat the field).",
    )


class DocumentFilterSerializer(serializers.Serializer):
    project = serializers.UUIDField(required=False)
    source = serializers.UUIDField(required=False)  # type: ignore[assignment]
    status = serializers.ChoiceField(
        choices=["pending", "indexing", "indexed", "skipped", "failed"], required=False
    )


@extend_schema_field(OpenApiTypes.STR)
class KindsField(serializers.Field):
    """``claim,document`` → ``["claim", "document"]``."""

    def to_representation(self, value: Any) -> str:
        return ",".join(value)

    def to_internal_value(self, data: Any) -> list[str]:
        kinds = [kind.strip() for kind in str(data)[:100].split(",")]
        kinds = [kind for kind in kinds if kind]
        unknown = sorted(set(kinds) - set(KINDS))
        if unknown or not kinds:
            raise serializers.ValidationError(f"Choose among {', '.join(KINDS)} (comma-separated).")
        return kinds


class SearchQuerySerializer(serializers.Serializer):
    q = serializers.CharField(max_length=QUERY_MAX_CHARS, help_text="What to look for.")
    project = serializers.UUIDField(
        required=False,
        help_text="Only files and chats of this project (claims are yours across projects).",
    )
    kinds = KindsField(
        required=False, help_text="Comma-separated: claim, document, message (default all)."
    )
    k = serializers.IntegerField(required=False, min_value=1, max_value=MAX_K, default=10)
    everything = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Also Cairn's own answers, the user's bare questions and forgotten turns "
        "(by default search finds evidence only: what someone said or wrote).",
    )


class SearchHitSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=list(KINDS))
    score = serializers.FloatField(
        help_text="Fused score, higher is better, comparable only among one query's hits: "
        "the sum over the rankings (meaning, words, the turn's window, a named period) of "
        "each one's weight times how close the hit comes to that ranking's best, from 0 "
        "(below its 30th) to the sum of the weights."
    )
    vector_similarity = serializers.FloatField(allow_null=True, help_text="Cosine similarity.")
    text_rank = serializers.FloatField(
        allow_null=True, help_text="BM25 score (of the row, else of its window)."
    )
    title = serializers.CharField()
    excerpt = serializers.CharField()
    text = serializers.CharField()
    claim_id = serializers.UUIDField(allow_null=True)
    claim_number = serializers.IntegerField(allow_null=True)
    chunk_id = serializers.IntegerField(allow_null=True)
    document_id = serializers.UUIDField(allow_null=True)
    document_path = serializers.CharField(allow_null=True)
    start = serializers.IntegerField(allow_null=True, help_text="Offset of the passage.")
    end = serializers.IntegerField(allow_null=True)
    conversation_id = serializers.UUIDField(allow_null=True)
    message_id = serializers.UUIDField(allow_null=True)
    project_id = serializers.UUIDField(allow_null=True)
    created_at = serializers.DateTimeField(allow_null=True)


class SearchOutputSerializer(serializers.Serializer):
    query = serializers.CharField()
    results = SearchHitSerializer(many=True)
