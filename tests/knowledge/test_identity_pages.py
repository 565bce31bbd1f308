"""One short ID per claim on the pages (issue 30): ``#8``, never "#8 (@claim_8)" beside
a hashed friendly ID, and one row per memory however many versions it has."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from apps.accounts.models import User
from apps.claims.services import claim_create, claim_supersede

pytestmark = pytest.mark.django_db


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", " ", html)


def test_the_claim_page_shows_its_number_once(page_client: Client, user: User) -> None:
    claim_create(user=user, statement="I like tea")
    claim = claim_create(user=user, statement="I am allergic to penicillin")

    page = page_client.get(reverse("knowledge:claim", args=[claim.pk])).text

    card = _text(page.split('class="card"', 1)[1].split("</dl>", 1)[0])
    assert re.findall(r"#\d+", card) == ["#2"]
    assert "@claim_2" not in page
    assert "@allergic_penicillin" not in page


def test_the_list_shows_one_row_per_memory_with_its_number(page_client: Client, user: User) -> None:
    old = claim_create(user=user, statement="I am vegetarian")
    claim_supersede(claim=old, statement="I am vegan")

    page = page_client.get(reverse("knowledge:home")).text
    earlier = page_client.get(reverse("knowledge:home"), {"status": "superseded"}).text

    assert page.count('<span class="k-num">#1</span>') == 1
    assert "I am vegan" in page
    assert "I am vegetarian" not in page
    assert "@vegan" not in page
    assert "@vegetarian" not in page
    assert "I am vegetarian" in earlier


def test_an_earlier_version_page_points_to_the_current_one(page_client: Client, user: User) -> None:
    old = claim_create(user=user, statement="I am vegetarian")
    new = claim_supersede(claim=old, statement="I am vegan")

    page = page_client.get(reverse("knowledge:claim", args=[old.pk])).text

    assert "An earlier version of #1." in page
    assert reverse("knowledge:claim", args=[new.pk]) in page
    history = _text(page.split('class="k-chain"', 1)[1].split("</ol>", 1)[0])
    assert "#1 I am vegetarian" in history
    assert "#1 I am vegan" in history
    assert "earlier version" in history
