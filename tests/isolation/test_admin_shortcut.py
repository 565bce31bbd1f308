"""The admin's "view on site" shortcut answers alike for not yours, not there and not an
id (issue 15): Django's own looked objects up unscoped and 500ed on a malformed id."""

from __future__ import annotations

import uuid

import pytest
from django.contrib.contenttypes.models import ContentType
from django.test import Client

from apps.accounts.models import User
from apps.claims.models import Claim
from apps.claims.services import claim_create

pytestmark = pytest.mark.django_db


def _main(page: bytes) -> bytes:
    return page[page.index(b"<main") : page.index(b"</main>")]


def test_not_yours_not_there_and_not_an_id_answer_the_same(
    client: Client, user: User, other_user: User
) -> None:
    theirs = claim_create(user=other_user, statement="Their secret plan")
    mine = claim_create(user=user, statement="My own plan")
    content_type = ContentType.objects.get_for_model(Claim).pk
    client.force_login(user)

    answers = [
        client.get(f"/admin/r/{content_type}/{object_id}/")
        for object_id in (theirs.pk, uuid.uuid4(), "not-a-uuid", mine.pk)
    ]
    answers.append(client.get("/admin/r/99999999999999999999999/1/"))

    assert [answer.status_code for answer in answers] == [404] * 5
    assert len({_main(answer.content) for answer in answers}) == 1
