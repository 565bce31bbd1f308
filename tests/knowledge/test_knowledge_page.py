"""The Knowledge page: browse, search, the context tree, one claim or context, and the
queue of pending claims — all of it the user's own."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client
from django.urls import reverse

from apps.accounts.models import User
from apps.claims.models import Claim, ClaimStatus
from apps.claims.services import claim_supersede
from tests.knowledge_factories import ClaimFactory, ContextFactory, EntityFactory, TagFactory

HOME = reverse("knowledge:home")
PENDING = reverse("knowledge:pending")
CONTEXTS = reverse("knowledge:contexts")


def claim_url(claim: Claim) -> str:
    return reverse("knowledge:claim", args=[claim.pk])


def listed(client: Client, **params: str) -> list[Claim]:
    response = client.get(HOME, params)
    assert response.status_code == 200
    return list(response.context["page"].object_list)


@pytest.mark.parametrize("name", ["home", "contexts", "pending"])
def test_the_pages_require_login(client: Client, name: str) -> None:
    response = client.get(reverse(f"knowledge:{name}"))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_the_main_navigation_points_here(page_client: Client) -> None:
    page = page_client.get(reverse("chat:home")).text

    assert f'href="{HOME}"' in page


# Browsing and searching -------------------------------------------------------------------


def test_an_empty_account_is_told_how_to_add_claims(page_client: Client) -> None:
    page = page_client.get(HOME).text

    assert "No claims yet — add one here or tell Cairn in chat" in page
    assert reverse("knowledge:claim-add") in page


def test_the_list_shows_only_ones_own_claims(
    page_client: Client, user: User, other_user: User
) -> None:
    mine = ClaimFactory(user=user, statement="Alice likes hiking")
    ClaimFactory(user=other_user, statement="Bob likes sailing")

    response = page_client.get(HOME)

    assert list(response.context["page"].object_list) == [mine]
    assert 'aria-current="page">Knowledge' in response.text
    assert "Bob likes sailing" not in response.text


def test_search_by_words_friendly_id_and_number(page_client: Client, user: User) -> None:
    tea = ClaimFactory(
        user=user, statement="I drink green tea every morning", friendly_id="morning_tea"
    )
    ClaimFactory(user=user, statement="I cycle to work")

    assert listed(page_client, q="tea") == [tea]
    assert listed(page_client, q="@morning_tea") == [tea]
    assert listed(page_client, q="#1") == [tea]
    assert listed(page_client, q="1") == [tea]


def test_each_filter_narrows_the_list(page_client: Client, user: User) -> None:
    goal = ClaimFactory(
        user=user, statement="Run a marathon", claim_types=["goal"], domains=["health"], pinned=True
    )
    pending = ClaimFactory(
        user=user,
        statement="I live in Lyon",
        claim_types=["fact"],
        domains=["personal"],
        status=ClaimStatus.PENDING,
    )
    sport = ContextFactory(user=user, name="Sport")
    ContextFactory(user=user, name="Running", parent=sport, claims=[goal])
    fitness = TagFactory(user=user, name="fitness")
    TagFactory(user=user, name="endurance", parent=fitness, claims=[goal])

    assert listed(page_client, type="goal") == [goal]
    assert listed(page_client, domain="personal") == [pending]
    assert listed(page_client, status="pending") == [pending]
    assert listed(page_client, pinned="yes") == [goal]
    assert listed(page_client, pinned="no") == [pending]
    assert listed(page_client, context=str(sport.pk)) == [goal]
    assert listed(page_client, tag=str(fitness.pk)) == [goal]
    assert listed(page_client, type="goal", domain="personal") == []


def test_no_match_says_so_and_offers_to_clear(page_client: Client, user: User) -> None:
    ClaimFactory(user=user)

    page = page_client.get(HOME, {"q": "zebra"}).text

    assert "No claims match these filters" in page
    assert "No claims yet" not in page


def test_a_filter_for_another_users_context_or_tag_is_ignored(
    page_client: Client, user: User, other_user: User
) -> None:
    mine = ClaimFactory(user=user)
    their_context = ContextFactory(user=other_user, claims=[ClaimFactory(user=other_user)])
    their_tag = TagFactory(user=other_user)

    assert listed(page_client, context=str(their_context.pk)) == [mine]
    assert listed(page_client, tag=str(their_tag.pk)) == [mine]
    assert listed(page_client, type="nonsense", pinned="maybe") == [mine]


def test_the_list_is_paginated_and_keeps_the_filters(page_client: Client, user: User) -> None:
    for index in range(30):
        ClaimFactory(user=user, statement=f"Book number {index} to read", claim_types=["task"])

    first = page_client.get(HOME, {"type": "task"})
    second = page_client.get(HOME, {"type": "task", "page": "2"})

    assert len(first.context["page"].object_list) == 25
    assert len(second.context["page"].object_list) == 5
    assert "type=task&amp;page=2" in first.text


def test_the_list_page_query_count_does_not_grow_with_claims(
    page_client: Client, user: User, django_assert_max_num_queries: Callable[..., object]
) -> None:
    context = ContextFactory(user=user)
    tag = TagFactory(user=user)

    def add_claims(count: int) -> None:
        claims = [ClaimFactory(user=user) for _ in range(count)]
        context.claims.add(*claims)
        tag.claims.add(*claims)
        EntityFactory(user=user, claims=claims)

    filtered = {"q": "claim", "context": str(context.pk), "tag": str(tag.pk), "type": "fact"}
    add_claims(3)
    page_client.get(HOME)  # a browser's first page also notes its session (Settings → Sessions)
    with django_assert_max_num_queries(10) as plain:  # type: ignore[attr-defined]
        page_client.get(HOME)
    with django_assert_max_num_queries(13) as narrowed:  # type: ignore[attr-defined]
        page_client.get(HOME, filtered)

    add_claims(60)

    with django_assert_max_num_queries(len(plain.captured_queries)):  # type: ignore[attr-defined]
        assert len(page_client.get(HOME).context["page"].object_list) == 25
    with django_assert_max_num_queries(len(narrowed.captured_queries)):  # type: ignore[attr-defined]
        assert page_client.get(HOME, filtered).context["page"].paginator.count == 63


# Contexts ----------------------------------------------------------------------------------


def test_the_context_tree_is_nested_with_resolved_counts(
    page_client: Client, user: User, other_user: User
) -> None:
    shared = ClaimFactory(user=user)
    root = ContextFactory(user=user, name="Life", claims=[shared])
    child = ContextFactory(
        user=user, name="Health", parent=root, claims=[shared, ClaimFactory(user=user)]
    )
    ContextFactory(
        user=user, name="Old ideas", claims=[ClaimFactory(user=user, status=ClaimStatus.RETRACTED)]
    )
    ContextFactory(user=other_user, name="Bob's world")

    response = page_client.get(CONTEXTS)

    forest = response.context["forest"]
    assert [(node.context.name, node.claim_count) for node in forest] == [
        ("Life", 2),
        ("Old ideas", 0),
    ]
    assert [(n.context, n.claim_count) for n in forest[0].children] == [(child, 2)]
    assert "Bob" not in response.text
    assert reverse("knowledge:context", args=[child.pk]) in response.text


def test_no_contexts_yet(page_client: Client) -> None:
    page = page_client.get(CONTEXTS).text

    assert "No contexts yet" in page
    assert reverse("knowledge:context-add") in page


def test_a_context_page_shows_breadcrumb_children_and_resolved_claims(
    page_client: Client, user: User
) -> None:
    root = ContextFactory(user=user, name="Life")
    health = ContextFactory(user=user, name="Health", parent=root)
    deep = ClaimFactory(user=user, statement="I sleep eight hours")
    gone = ClaimFactory(user=user, statement="I never sleep", status=ClaimStatus.RETRACTED)
    sleep = ContextFactory(user=user, name="Sleep", parent=health, claims=[deep, gone])

    response = page_client.get(reverse("knowledge:context", args=[health.pk]))

    assert response.status_code == 200
    assert reverse("knowledge:context", args=[root.pk]) in response.text
    assert reverse("knowledge:context", args=[sleep.pk]) in response.text
    assert list(response.context["page"].object_list) == [deep]
    assert claim_url(deep) in response.text


def test_an_empty_context_says_so(page_client: Client, user: User) -> None:
    context = ContextFactory(user=user)

    page = page_client.get(reverse("knowledge:context", args=[context.pk])).text

    assert "No claims in this context yet" in page


# One claim -----------------------------------------------------------------------------------


def test_a_claim_page_shows_everything_about_it(page_client: Client, user: User) -> None:
    old = ClaimFactory(user=user, statement="I live in Paris")
    claim = claim_supersede(
        claim=old,
        statement="I live in Lyon",
        claim_types=["fact"],
        domains=["personal"],
        possible_questions=["Where do I live?"],
    )
    newer = claim_supersede(claim=claim, statement="I live in Nice")
    claim.refresh_from_db()
    ContextFactory(user=user, name="Home life", claims=[claim])
    TagFactory(user=user, name="whereabouts", claims=[claim])
    EntityFactory(user=user, name="Lyon", entity_type="place", claims=[claim])

    page = page_client.get(claim_url(claim)).text

    for text in (
        "I live in Lyon",
        f"#{claim.number}",
        f"An earlier version of #{newer.number}",
        "Personal",
        "Where do I live?",
        "Home life",
        "whereabouts",
        "Lyon",
        "Superseded",
        claim_url(old),
        claim_url(newer),
        "Fact",
    ):
        assert text in page, text


def test_a_claim_page_quotes_its_source_message(page_client: Client, user: User) -> None:
    from apps.chat.models import Conversation, Message
    from tests.factories import ProjectFactory

    conversation = Conversation.objects.create(user=user, project=ProjectFactory(owner=user))
    message = Message.objects.create(
        conversation=conversation,
        role="user",
        order=1,
        content="Remember that I am allergic to nuts",
    )
    claim = ClaimFactory(
        user=user, statement="Allergic to nuts", source_message=message, origin="chat"
    )

    page = page_client.get(claim_url(claim)).text

    assert "Remember that I am allergic to nuts" in page


def test_another_users_claim_and_context_answer_404(page_client: Client, other_user: User) -> None:
    claim = ClaimFactory(user=other_user, status=ClaimStatus.PENDING)
    context = ContextFactory(user=other_user)

    assert page_client.get(claim_url(claim)).status_code == 404
    assert page_client.get(reverse("knowledge:context", args=[context.pk])).status_code == 404
    review = page_client.post(reverse("knowledge:review", args=[claim.pk]), {"decision": "reject"})
    assert review.status_code == 404
    assert Claim.objects.filter(pk=claim.pk).exists()


# Review queue --------------------------------------------------------------------------------


def test_the_queue_lists_pending_claims_with_buttons(
    page_client: Client, user: User, other_user: User
) -> None:
    waiting = ClaimFactory(user=user, statement="You might like jazz", status=ClaimStatus.PENDING)
    ClaimFactory(user=user, statement="Already active")
    ClaimFactory(user=other_user, statement="Bob's pending", status=ClaimStatus.PENDING)

    response = page_client.get(PENDING)

    assert list(response.context["page"].object_list) == [waiting]
    assert response.context["pending_count"] == 1
    # Approve, edit then approve, dismiss.
    assert response.text.count(reverse("knowledge:review", args=[waiting.pk])) == 3
    assert "csrfmiddlewaretoken" in response.text


def test_approve_in_one_click(page_client: Client, user: User) -> None:
    claim = ClaimFactory(user=user, status=ClaimStatus.PENDING)

    response = page_client.post(
        reverse("knowledge:review", args=[claim.pk]),
        {"decision": "approve", "next": PENDING},
        follow=True,
    )

    claim.refresh_from_db()
    assert claim.status == ClaimStatus.ACTIVE
    assert response.redirect_chain[-1][0] == PENDING
    assert f"Approved #{claim.number}" in response.text
    assert "Nothing waiting for review" in response.text


def test_reject_in_one_click_deletes_it(page_client: Client, user: User) -> None:
    claim = ClaimFactory(user=user, status=ClaimStatus.PENDING)

    response = page_client.post(
        reverse("knowledge:review", args=[claim.pk]),
        {"decision": "reject", "next": claim_url(claim)},
        follow=True,
    )

    assert not Claim.objects.filter(pk=claim.pk).exists()
    assert response.redirect_chain[-1][0] == PENDING  # its own page is gone
    assert "it was deleted" in response.text


def test_reviewing_a_claim_that_is_not_pending_is_a_message(
    page_client: Client, user: User
) -> None:
    claim = ClaimFactory(user=user)

    response = page_client.post(
        reverse("knowledge:review", args=[claim.pk]), {"decision": "reject"}, follow=True
    )

    assert "not waiting for review" in response.text
    assert Claim.objects.filter(pk=claim.pk).exists()


def test_review_needs_post_and_a_decision_and_a_safe_next(page_client: Client, user: User) -> None:
    claim = ClaimFactory(user=user, status=ClaimStatus.PENDING)
    url = reverse("knowledge:review", args=[claim.pk])

    assert page_client.get(url).status_code == 405
    page_client.post(url, {"decision": "maybe"})
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.PENDING
    away = page_client.post(url, {"decision": "approve", "next": "https://evil.example/"})
    assert away["Location"] == PENDING


def test_review_answers_json_for_the_page_script(page_client: Client, user: User) -> None:
    first = ClaimFactory(user=user, status=ClaimStatus.PENDING)
    ClaimFactory(user=user, status=ClaimStatus.PENDING)

    response = page_client.post(
        reverse("knowledge:review", args=[first.pk]),
        {"decision": "approve"},
        HTTP_ACCEPT="application/json",
    )

    assert response.status_code == 200
    assert response.json()["ok"] is True
    assert response.json()["pending"] == 1


def test_review_is_csrf_protected(user: User) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    claim = ClaimFactory(user=user, status=ClaimStatus.PENDING)

    response = client.post(reverse("knowledge:review", args=[claim.pk]), {"decision": "approve"})

    assert response.status_code == 403
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.PENDING
