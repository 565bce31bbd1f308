"""``POST /api/v1/references/resolve-message/`` reads ranks as the reply pipeline does:
the contexts app's endpoint, given the facts extractor's rank spans (apps/chat/reading.py),
which contexts cannot import itself."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.contexts import reference_api
from apps.core.request_user import current_user

from .reading import resolve_message_references


class MessageResolveApi(reference_api.MessageResolveApi):
    @extend_schema(
        summary="Resolve every @reference in a message",
        description='A `#N` the facts extractor reads as a rank ("my #1 crypto is BTC") '
        "is no reference, exactly as in a chat turn.",
        tags=["references"],
        request=reference_api.MessageResolveApi.InputSerializer,
        responses=reference_api.MessageResolveApi.OutputSerializer,
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        clean, results = resolve_message_references(
            current_user(request), data.validated_data["text"]
        )
        return Response(
            {"clean_text": clean, "references": [reference_api.dump(r) for r in results]}
        )
