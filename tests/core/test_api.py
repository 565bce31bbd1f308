from __future__ import annotations

from django.core.exceptions import ValidationError
from rest_framework.test import APIRequestFactory
from rest_framework.views import APIView

from apps.core.api import exception_handler


def _handled(error: Exception) -> tuple[int, object]:
    request = APIView().initialize_request(APIRequestFactory().get("/"))
    response = exception_handler(error, {"request": request, "view": APIView()})
    assert response is not None
    return response.status_code, response.data


def test_a_services_field_errors_are_a_400_with_those_fields() -> None:
    status, body = _handled(ValidationError({"name": "A project needs a name."}))

    assert status == 400
    assert body == {"name": ["A project needs a name."]}


def test_a_message_without_a_field_is_a_400_on_detail() -> None:
    status, body = _handled(ValidationError("This key has no current value."))

    assert status == 400
    assert body == {"detail": ["This key has no current value."]}
