"""Tags, validity dates and confidence on the claim's page (issue 30), not only in the
admin. Plain POSTs, as a browser without JavaScript sends."""

from __future__ import annotations

from datetime import date

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from apps.accounts.models import User
from apps.claims.models import Claim, Tag
from tests.knowledge_factories import ClaimFactory


@pytest.fixture
def signed_in(client: Client, user: User) -> Client:
    client.force_login(user)
    return client


def _details(claim: Claim) -> str:
    return reverse("knowledge:claim-details", args=[claim.pk])


def test_the_claim_page_sets_tags_dates_and_confidence(signed_in: Client, user: User) -> None:
    claim = ClaimFactory(user=user, statement="I train for the spring marathon")
    running = Tag.objects.create(user=user, name="Running", friendly_id="running_tag")

    page = signed_in.get(reverse("knowledge:claim", args=[claim.pk])).content.decode()
    assert "Tags, dates and confidence" in page
    response = signed_in.post(
        _details(claim),
        {
            "confidence": "70",
            "valid_from": "2026-01-05",
            "valid_until": "2026-04-30",
            "tags": [str(running.pk)],
            "new_tags": "Health, running , ",
        },
    )

    assert response.status_code == 302
    claim.refresh_from_db()
    assert claim.confidence == pytest.approx(0.7)
    assert timezone.localdate(claim.valid_from) == date(2026, 1, 5)
    assert timezone.localdate(claim.valid_until) == date(2026, 4, 30)
    assert sorted(claim.tags.values_list("name", flat=True)) == ["Health", "Running"]
    shown = signed_in.get(response["Location"]).content.decode()
    assert "70%" in shown
    assert "true from 5 Jan until 30 Apr" in shown


def test_an_end_before_the_start_is_refused_on_its_field(signed_in: Client, user: User) -> None:
    claim = ClaimFactory(user=user)

    response = signed_in.post(
        _details(claim),
        {"confidence": "50", "valid_from": "2026-05-01", "valid_until": "2026-04-01"},
    )

    assert response.status_code == 400
    assert "cannot stop being true before it starts" in response.content.decode()
    claim.refresh_from_db()
    assert claim.confidence == 1.0
    assert claim.valid_from is None


def test_confidence_out_of_range_is_refused(signed_in: Client, user: User) -> None:
    claim = ClaimFactory(user=user)

    response = signed_in.post(_details(claim), {"confidence": "150"})

    assert response.status_code == 400
    assert "less than or equal to 100" in response.content.decode()


def test_another_users_claim_or_tag_cannot_be_reached(
    signed_in: Client, user: User, other_user: User
) -> None:
    theirs = ClaimFactory(user=other_user)
    their_tag = Tag.objects.create(user=other_user, name="Secret", friendly_id="secret_tag")
    mine = ClaimFactory(user=user)

    refused = signed_in.post(_details(theirs), {"confidence": "10"})
    wrong_tag = signed_in.post(_details(mine), {"confidence": "10", "tags": [str(their_tag.pk)]})

    assert refused.status_code == 404
    assert wrong_tag.status_code == 400
    assert not mine.tags.exists()
    theirs.refresh_from_db()
    assert theirs.confidence == 1.0
