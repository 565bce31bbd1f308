from __future__ import annotations

import threading

import pytest
from django.db import connection

from apps.claims.models import Claim
from apps.claims.services import claim_create, claim_delete
from tests.factories import UserFactory

THREADS = 6
PER_THREAD = 15


@pytest.mark.django_db(transaction=True)
def test_concurrent_creation_numbers_claims_1_to_n_without_gaps_or_duplicates() -> None:
    """Each thread has its own database connection, so the creations really race."""
    user, other = UserFactory(), UserFactory()
    barrier = threading.Barrier(THREADS)
    errors: list[BaseException] = []

    def create_many(owner_index: int) -> None:
        owner = user if owner_index % 3 else other
        try:
            barrier.wait()
            for n in range(PER_THREAD):
                claim_create(user=owner, statement=f"thread {owner_index} claim {n}")
        except BaseException as error:  # reported below; a thread cannot raise into the test
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=create_many, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    for owner in (user, other):
        numbers = sorted(Claim.objects.filter(user=owner).values_list("number", flat=True))
        assert numbers == list(range(1, len(numbers) + 1))
    assert Claim.objects.count() == THREADS * PER_THREAD


@pytest.mark.django_db
def test_numbers_are_never_reused_after_a_delete() -> None:
    user = UserFactory()
    first = claim_create(user=user, statement="first")
    second = claim_create(user=user, statement="second")
    claim_delete(claim=second)

    third = claim_create(user=user, statement="third")

    assert (first.number, third.number) == (1, 3)


@pytest.mark.django_db
def test_each_user_counts_from_one() -> None:
    alice, bob = UserFactory(), UserFactory()
    claim_create(user=alice, statement="a1")
    claim_create(user=alice, statement="a2")

    assert claim_create(user=bob, statement="b1").number == 1
