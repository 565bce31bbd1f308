"""Pinned means background (issue 28, failure 3): after pinning two claims, every answer
ended with them, each cited; "pi-hole" returned only those two lines. A pinned claim is in
the model's prompt as standing context, and an answer cites it only when it is relevant to
the question — by the same rule as any source."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.chat.pipeline.prepare import prepare_turn
from apps.chat.pipeline.types import TurnRequest
from apps.chat.services import conversation_create
from apps.claims.services import claim_create
from tests.indexing.conftest import real_provider  # noqa: F401 - fixture

pytestmark = [pytest.mark.usefixtures("real_provider")]

PENICILLIN = "I am allergic to penicillin"
WORKOUTS = "I prefer morning workouts, usually before 7am"


def _pinned(user: User, capture: Any) -> None:
    with capture(execute=True):  # embedded, as by the worker
        claim_create(user=user, statement=PENICILLIN, pinned=True)
        claim_create(user=user, statement=WORKOUTS, pinned=True)
        claim_create(user=user, statement="The Pi-hole runs on the Raspberry Pi in the hall")


@pytest.mark.django_db
def test_a_pinned_claim_is_standing_context_not_a_source(
    user: User, django_capture_on_commit_callbacks: Any
) -> None:
    _pinned(user, django_capture_on_commit_callbacks)
    conversation = conversation_create(user=user)

    prepared = prepare_turn(
        user=user,
        conversation=conversation,
        request=TurnRequest(text="Where does the Pi-hole run?"),
    )

    titles = [item.title for item in prepared.registry.items()]
    assert titles == ["The Pi-hole runs on the Raspberry Pi in the hall"]
    assert PENICILLIN in prepared.system_prompt  # still the model's background
    assert WORKOUTS in prepared.system_prompt
    background = {item.claim.statement: item for item in prepared.memory if item.background}
    assert set(background) == {PENICILLIN, WORKOUTS}
    assert all(item.source_number is None for item in background.values())


@pytest.mark.django_db(transaction=True)
def test_an_answer_cites_a_pinned_claim_only_when_the_question_is_about_it(
    user: User, django_capture_on_commit_callbacks: Any
) -> None:
    _pinned(user, django_capture_on_commit_callbacks)
    client = APIClient()
    client.force_authenticate(user)
    conversation = conversation_create(user=user)

    def ask(text: str) -> str:
        response = client.post(
            f"/api/v1/conversations/{conversation.pk}/messages/", {"text": text}, format="json"
        )
        assert response.status_code == 201, response.content
        return str(response.json()["answer"]["content"])

    pihole = ask("Where does the Pi-hole run?")
    allergy = ask("Am I allergic to penicillin?")

    assert "Raspberry Pi in the hall" in pihole
    assert "penicillin" not in pihole
    assert "workouts" not in pihole
    assert PENICILLIN in allergy
    assert "workouts" not in allergy
