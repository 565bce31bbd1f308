"""Integration API for accounts: trade e-mail and password for a named API token."""

from __future__ import annotations

from django.contrib.auth import authenticate
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from .models import TokenAccess
from .services import api_token_create


class TokenObtainApi(APIView):
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "token_obtain"

    @extend_schema_serializer(component_name="TokenObtainInput")
    class InputSerializer(serializers.Serializer):
        email = serializers.EmailField()
        password = serializers.CharField(style={"input_type": "password"}, trim_whitespace=False)
        name = serializers.CharField(max_length=100, required=False, default="API token")
        access = serializers.ChoiceField(
            choices=TokenAccess.choices,
            required=False,
            default=TokenAccess.WRITE,
            help_text="read: search, list and read only; write: also change memory.",
        )

    @extend_schema_serializer(component_name="TokenObtainOutput")
    class OutputSerializer(serializers.Serializer):
        token = serializers.CharField()
        name = serializers.CharField()
        access = serializers.CharField()

    @extend_schema(
        request=InputSerializer,
        responses={201: OutputSerializer},
        tags=["auth"],
        summary="Trade e-mail and password for an API token",
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticate(
            request._request,
            email=data.validated_data["email"].lower(),
            password=data.validated_data["password"],
        )
        if user is None:
            return Response(
                {"detail": "E-mail or password is wrong."}, status=status.HTTP_400_BAD_REQUEST
            )
        token, key = api_token_create(
            user=user,  # type: ignore[arg-type]
            name=data.validated_data["name"],
            access=data.validated_data["access"],
        )
        return Response(
            self.OutputSerializer({"token": key, "name": token.name, "access": token.access}).data,
            status=status.HTTP_201_CREATED,
        )
