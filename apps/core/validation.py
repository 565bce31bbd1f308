"""Input validation every app shares."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


def validated(serializer_class: type[serializers.Serializer], data: Any) -> dict[str, Any]:
    """The input serializer's validated data, or a 400 with its field errors."""
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)
