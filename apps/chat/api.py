"""Conversations and messages for integrations: read, post a message and get the whole
answer (no streaming), pins, and transcript import."""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from django.db import DatabaseError, transaction
from drf_spectacular.utils import extend_schema, extend_schema_serializer, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from apps.claims.selectors import claim_lookup
from apps.core.api import OwnedPrimaryKeyField
from apps.core.request_user import current_user
from apps.projects.selectors import project_get, project_list

from .connections.selectors import conversation_answerer
from .error_codes import REJECTION_CODES, ErrorCode
from .events import Ack, AnswerUnsaved, TurnError, TurnEvent, references_payload
from .llm.factory import build_provider
from .models import Conversation, Message
from .pipeline.saving import failure_in_words
from .pipeline.types import MAX_MESSAGE_CHARS, TurnRejected
from .selectors import (
    conversation_get,
    conversation_import_state,
    conversation_list,
    conversation_messages,
)
from .services import (
    conversation_delete,
    conversation_pin_claim,
    conversation_set_archived,
    conversation_start,
    conversation_unpin_claim,
    conversation_update,
)
from .transcripts import TranscriptTurn, transcript_import
from .turn import run_turn
from .turn_input import InputRefused, SendMessageInput

MAX_TRANSCRIPT_TURNS = 5_000
logger = logging.getLogger(__name__)


class MessageSerializer(serializers.ModelSerializer):
    class Meta:
        model = Message
        fields = [
            "id",
            "role",
            "content",
            "status",
            "order",
            "references",
            "memory_used",
            "sources",
            "review_findings",
            "fact_counts",
            "index_status",
            "model_name",
            "usage",
            "review_corrected",
            "memory_distilled",
            "tool_calls",
            "clarify_topics",
            "notices",
            "error",
            "created_at",
        ]
        read_only_fields = fields


class ConversationSerializer(serializers.ModelSerializer):
    project = OwnedPrimaryKeyField(
        scope=lambda user: project_list(user=user),
        noun="project",
        required=False,
        help_text="One of your projects; the Personal one when left out.",
    )
    pinned_claim_ids: serializers.PrimaryKeyRelatedField = serializers.PrimaryKeyRelatedField(
        source="pinned_claims", many=True, read_only=True
    )
    imported_from = serializers.CharField(
        source="external_source", read_only=True, help_text="chatgpt or claude; empty if not."
    )
    import_status = serializers.SerializerMethodField(
        help_text="For an imported conversation: indexing, then searchable; null otherwise."
    )

    def get_import_status(self, conversation: Conversation) -> str | None:
        return conversation_import_state(conversation=conversation)

    class Meta:
        model = Conversation
        fields = [
            "id",
            "project",
            "title",
            "archived",
            "pinned_claim_ids",
            "imported_from",
            "import_status",
            "created_at",
            "updated_at",
        ]
        read_only_fields = [
            "id",
            "pinned_claim_ids",
            "imported_from",
            "import_status",
            "created_at",
            "updated_at",
        ]


@extend_schema_serializer(component_name="ChatPostOutput")
class PostOutputSerializer(serializers.Serializer):
    saved = serializers.BooleanField(
        help_text="False when the answer could not be saved (it is returned all the same)."
    )
    detail = serializers.CharField(required=False, help_text="Why the answer was not saved.")
    user_message = MessageSerializer()
    answer = MessageSerializer(help_text="With `saved`; an unsaved answer has no id.")
    references = serializers.ListField(child=serializers.DictField())


@extend_schema_serializer(component_name="ChatPostFailure")
class PostFailureSerializer(serializers.Serializer):
    saved = serializers.BooleanField(help_text="Whether your message was saved.")
    code = serializers.CharField(help_text="not_saved, internal, provider …")
    detail = serializers.CharField()


class PinSerializer(serializers.Serializer):
    claim = serializers.CharField(help_text="A claim's UUID, number or friendly ID.")


class TranscriptTurnSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=["user", "assistant"])
    content = serializers.CharField(
        max_length=MAX_MESSAGE_CHARS, trim_whitespace=False, allow_blank=False
    )
    created_at = serializers.DateTimeField(required=False)


@extend_schema_serializer(component_name="TranscriptImportOutput")
class TranscriptImportOutputSerializer(serializers.Serializer):
    conversation = serializers.UUIDField()
    message_ids = serializers.ListField(child=serializers.UUIDField())


class TranscriptSerializer(serializers.Serializer):
    title = serializers.CharField(required=False, allow_blank=True, max_length=200)
    project = serializers.UUIDField(required=False)
    messages = TranscriptTurnSerializer(  # type: ignore[call-arg]  # ListSerializer takes it
        many=True, allow_empty=False, max_length=MAX_TRANSCRIPT_TURNS
    )


@extend_schema_view(
    list=extend_schema(summary="List your conversations", tags=["chat"]),
    retrieve=extend_schema(summary="Read a conversation", tags=["chat"]),
    create=extend_schema(
        summary="Start a conversation (or get the newest one back while it is still empty)",
        tags=["chat"],
        responses={200: ConversationSerializer, 201: ConversationSerializer},
    ),
    partial_update=extend_schema(summary="Rename or archive a conversation", tags=["chat"]),
    destroy=extend_schema(summary="Delete a conversation and its messages", tags=["chat"]),
)
class ConversationViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    serializer_class = ConversationSerializer
    queryset = Conversation.objects.none()
    query_parameters = ("archived", "q")  # the list's filters; any other is refused
    http_method_names = ["get", "post", "patch", "delete"]

    def get_queryset(self) -> Any:
        archived = self.request.query_params.get("archived")
        return conversation_list(
            user=current_user(self.request),
            query=self.request.query_params.get("q", ""),
            archived=None if archived == "all" else archived in ("1", "true"),
        ).prefetch_related("pinned_claims")

    def get_object(self) -> Conversation:
        return conversation_get(user=current_user(self.request), conversation_id=self.kwargs["pk"])

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """201 with a new conversation, or 200 with the newest one while it is still empty
        and untitled in that project (the rule every door that starts one follows)."""
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        conversation, created = conversation_start(
            user=current_user(request),
            project=serializer.validated_data.get("project"),  # the user's own (the field)
            title=serializer.validated_data.get("title", ""),
        )
        return Response(
            self.get_serializer(conversation).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )

    def perform_update(self, serializer: serializers.BaseSerializer) -> None:
        conversation = self.get_object()
        data = serializer.validated_data
        if "project" in data and data["project"].pk != conversation.project_id:
            # Its messages are indexed in its project; moving is not offered, not ignored.
            raise serializers.ValidationError(
                {"project": ["A conversation stays in the project it was started in."]}
            )
        if "title" in data:
            conversation_update(conversation=conversation, title=data["title"])
        if "archived" in data:
            conversation_set_archived(conversation=conversation, archived=data["archived"])
        serializer.instance = conversation

    def perform_destroy(self, instance: Conversation) -> None:
        conversation_delete(conversation=instance)

    @extend_schema(
        summary="The messages of a conversation, in order",
        tags=["chat"],
        responses=MessageSerializer(many=True),
    )
    @action(detail=True, methods=["get"])
    def messages(self, request: Request, pk: str | None = None) -> Response:
        page = self.paginate_queryset(conversation_messages(conversation=self.get_object()))
        return self.get_paginated_response(MessageSerializer(page, many=True).data)

    @extend_schema(
        summary="Send a message and receive the complete answer",
        tags=["chat"],
        request=SendMessageInput,
        responses={
            201: PostOutputSerializer,
            429: PostFailureSerializer,
            503: PostFailureSerializer,
        },
    )
    @messages.mapping.post
    def post_message(self, request: Request, pk: str | None = None) -> Response:
        conversation = self.get_object()
        try:
            turn_request = SendMessageInput.read(request.data).request()
        except InputRefused as refusal:  # the websocket refuses with the same words
            raise serializers.ValidationError({refusal.field: [refusal.message]}) from None
        events: list[TurnEvent] = []

        async def collect(event: TurnEvent) -> None:
            events.append(event)

        answerer = conversation_answerer(conversation=conversation)

        async def turn() -> Message | None:
            provider = build_provider(answerer)
            try:
                return await run_turn(
                    user=current_user(request),
                    conversation=conversation,
                    emit=collect,
                    provider=provider,
                    request=turn_request,
                )
            finally:
                await provider.aclose()

        try:
            answer = async_to_sync(turn)()
        except TurnRejected as rejection:
            raise serializers.ValidationError({"text": str(rejection)}) from rejection
        except Exception as error:  # the words say whether the message was kept
            logger.exception("REST chat turn failed")
            saved = any(isinstance(e, Ack) for e in events)
            words = "was saved; try again" if saved else f"was not saved: {failure_in_words(error)}"
            code = ErrorCode.INTERNAL if saved else ErrorCode.NOT_SAVED
            events.append(TurnError(code=code, message=f"Your message {words}."))
            answer = None
        ack = next((e for e in events if isinstance(e, Ack)), None)
        unsaved = next((e for e in events if isinstance(e, AnswerUnsaved)), None)
        if ack is None or (answer is None and unsaved is None):
            return self._turn_failed(events, saved=ack is not None)
        try:
            user_message = Message.objects.get(pk=ack.message_id)
        except DatabaseError as error:  # committed (acknowledged), then the database went
            return Response(
                {
                    "saved": True,
                    "code": str(ErrorCode.INTERNAL),
                    "detail": "Your message was saved; reading it back failed: "
                    f"{failure_in_words(error)}. Read the conversation again in a moment.",
                },
                status=status.HTTP_503_SERVICE_UNAVAILABLE,
            )
        if answer is None and unsaved is not None:
            # Saved question, unsaved answer: the answer is returned all the same, marked.
            return Response(
                {
                    "saved": False,
                    "detail": f"Your message was saved; its answer was not: {unsaved.reason}.",
                    "user_message": MessageSerializer(user_message).data,
                    "answer": {
                        "id": None,
                        "role": Message.Role.ASSISTANT,
                        "content": unsaved.content,
                        "status": unsaved.pending.outcome.status,
                        "saved": False,
                    },
                    "references": references_payload(ack.references),
                },
                status=status.HTTP_201_CREATED,
            )
        return Response(
            {
                "saved": True,
                "user_message": MessageSerializer(user_message).data,
                "answer": {**MessageSerializer(answer).data, "saved": True},
                "references": references_payload(ack.references),
            },
            status=status.HTTP_201_CREATED,
        )

    def handle_exception(self, exc: Exception) -> Response:
        """A database that cannot be reached before the turn starts (signing in, finding the
        conversation) is a 503 from the shared handler; posting a message, it also says
        the message was not saved (issue 26)."""
        response = super().handle_exception(exc)
        if (
            getattr(self, "action", None) == "post_message"
            and response.status_code == status.HTTP_503_SERVICE_UNAVAILABLE
            and isinstance(response.data, dict)
            and "saved" not in response.data
        ):
            response.data = {
                "saved": False,
                "code": str(ErrorCode.NOT_SAVED),
                "detail": f"Your message was not saved: {failure_in_words(exc)}.",
            }
        return response

    def _turn_failed(self, events: list[TurnEvent], *, saved: bool) -> Response:
        """A turn that ended without an answer: a refusal is the client's (400); a failure
        is the server's (503), saying whether the message was saved (issue 26)."""
        error = next((e for e in reversed(events) if isinstance(e, TurnError)), None)
        if error is not None and error.code == ErrorCode.RATE_LIMITED:
            return Response(
                {"saved": False, "code": str(error.code), "detail": error.message},
                status=status.HTTP_429_TOO_MANY_REQUESTS,
                headers={"Retry-After": str(error.retry_after or 1)},
            )
        if error is None or error.code in REJECTION_CODES:
            raise serializers.ValidationError({"text": error.message if error else "Refused."})
        saved = saved or error.code != ErrorCode.NOT_SAVED
        return Response(
            {"saved": saved, "code": str(error.code), "detail": error.message},
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
        )

    @extend_schema(
        summary="Pin a claim to this conversation",
        tags=["chat"],
        request=PinSerializer,
        responses=ConversationSerializer,
    )
    @action(detail=True, methods=["post"])
    def pins(self, request: Request, pk: str | None = None) -> Response:
        conversation = self.get_object()
        data = PinSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        claim = claim_lookup(user=current_user(request), key=data.validated_data["claim"])
        conversation_pin_claim(conversation=conversation, claim=claim)
        return Response(ConversationSerializer(conversation).data)

    @extend_schema(
        summary="Unpin a claim from this conversation",
        tags=["chat"],
        request=None,
        responses=ConversationSerializer,
    )
    @action(detail=True, methods=["delete"], url_path=r"pins/(?P<claim_key>[^/]+)")
    def unpin(self, request: Request, pk: str | None = None, claim_key: str = "") -> Response:
        conversation = self.get_object()
        claim = claim_lookup(user=current_user(request), key=claim_key)
        conversation_unpin_claim(conversation=conversation, claim=claim)
        return Response(ConversationSerializer(conversation).data)

    @extend_schema(
        summary="Import a transcript as a new conversation",
        tags=["chat"],
        request=TranscriptSerializer,
        responses={201: TranscriptImportOutputSerializer},
    )
    @action(detail=False, methods=["post"], url_path="import")
    def import_transcript(self, request: Request) -> Response:
        user = current_user(request)
        data = TranscriptSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        project_id = data.validated_data.get("project")
        project = project_get(user=user, project_id=project_id) if project_id else None
        turns = [
            TranscriptTurn(role=t["role"], content=t["content"], created_at=t.get("created_at"))
            for t in data.validated_data["messages"]
        ]
        with transaction.atomic():
            conversation, ids = transcript_import(
                user=user, project=project, title=data.validated_data.get("title", ""), turns=turns
            )
        return Response(
            {"conversation": str(conversation.id), "message_ids": [str(i) for i in ids]},
            status=status.HTTP_201_CREATED,
        )
