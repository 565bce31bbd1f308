"""One reading of ``#N`` everywhere (issue 18): the reply pipeline, the transcript, the
composer's rank spans and the REST resolver all read "my #1 crypto is BTC" as a rank and
"what about #1?" as claim #1."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from apps.accounts.models import User
from apps.chat.models import Message
from apps.chat.pipeline.prepare import prepare_turn
from apps.chat.pipeline.types import TurnRequest
from apps.chat.services import conversation_create
from apps.claims.models import ClaimStatus
from tests.knowledge_factories import ClaimFactory

pytestmark = pytest.mark.django_db

RANKED = "my #1 crypto is BTC"
ASKED = "what about #1?"


@pytest.fixture
def owner(client: Client, user: User) -> Client:
    client.force_login(user)
    return client


def test_the_rest_resolver_reads_ranks_as_the_pipeline_does(token_client: Any, user: User) -> None:
    ClaimFactory(user=user, statement="I hold crypto long term")

    def identifiers(text: str) -> list[str]:
        response = token_client.post(
            "/api/v1/references/resolve-message/", {"text": text}, format="json"
        )
        assert response.status_code == 200
        return [r["identifier"] for r in response.json()["references"]]

    conversation = conversation_create(user=user)
    for text in (RANKED, ASKED, f"{RANKED}, see #1"):
        prepared = prepare_turn(user=user, conversation=conversation, request=TurnRequest(text))
        assert identifiers(text) == [r.identifier for r in prepared.resolutions], text
    assert identifiers(RANKED) == []
    assert identifiers(ASKED) == ["claim_1"]


def test_the_composer_gets_the_rank_spans(owner: Client) -> None:
    def ranks(text: str) -> Any:
        response = owner.post(
            "/api/ui/references/read", json.dumps({"text": text}), content_type="application/json"
        )
        assert response.status_code == 200
        return response.json()["ranks"]

    assert ranks(RANKED) == [[3, 5]]
    assert ranks(ASKED) == []
    too_long = owner.post(
        "/api/ui/references/read",
        json.dumps({"text": "x" * 40_000}),
        content_type="application/json",
    )
    # One error shape on both JSON APIs: 400 naming the field, as DRF answers
    assert too_long.status_code == 400
    assert list(too_long.json()) == ["text"]


def test_the_transcript_shows_no_chip_for_a_rank(owner: Client, user: User) -> None:
    ClaimFactory(user=user, statement="I hold crypto long term")
    conversation = conversation_create(user=user)
    prepare_turn(user=user, conversation=conversation, request=TurnRequest(RANKED))
    prepare_turn(user=user, conversation=conversation, request=TurnRequest(ASKED))

    page = owner.get(reverse("chat:conversation", args=[conversation.pk])).text

    assert page.count('data-ref="claim_1"') == 1
    assert "my #1 crypto is BTC" in page
    assert Message.objects.filter(conversation=conversation).count() == 2


def test_the_pending_count_is_the_users_own(owner: Client, user: User, other_user: User) -> None:
    ClaimFactory(user=user, status=ClaimStatus.PENDING)
    ClaimFactory(user=other_user, status=ClaimStatus.PENDING)
    ClaimFactory(user=other_user, status=ClaimStatus.PENDING)

    count = owner.get("/api/ui/claims/pending-count").json()
    page = owner.get(reverse("facts:home")).text

    assert count == {"pending": 1}
    assert 'data-pending-count title="Claims waiting for your review"' in page
    assert 'aria-label="1 waiting for review">1</span>' in page
