from __future__ import annotations

from django.http import HttpRequest
from ninja import Router, Schema

from apps.core.request_user import current_user

router = Router(tags=["accounts"])


class MeOut(Schema):
    id: int
    email: str
    name: str
    memory_mode: str
    is_staff: bool


@router.get("/me", response=MeOut)
def me(request: HttpRequest) -> MeOut:
    user = current_user(request)
    return MeOut(
        id=user.pk,
        email=user.email,
        name=user.name,
        memory_mode=user.memory_mode,
        is_staff=user.is_staff,
    )
