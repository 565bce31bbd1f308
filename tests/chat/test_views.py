"""The chat page: server-rendered conversations, messages and the no-script forms."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from apps.accounts.models import User
from apps.chat.models import Conversation, Message
from apps.chat.services import (
    TurnOutcome,
    conversation_create,
    conversation_pin_claim,
    message_append,
)
from apps.claims.models import Claim, ClaimOrigin
from tests.knowledge_factories import ClaimFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner(client: Client, user: User) -> Client:
    client.force_login(user)
    return client


@pytest.fixture
def conversation(user: User) -> Conversation:
    return conversation_create(user=user, title="Trip planning")


def answer(conversation: Conversation, content: str, **fields: object) -> Message:
    return message_append(
        conversation=conversation, role=Message.Role.ASSISTANT, content=content, **fields
    )


def ask(conversation: Conversation, content: str) -> Message:
    return message_append(conversation=conversation, role=Message.Role.USER, content=content)


def page_of(conversation: Conversation) -> str:
    return reverse("chat:conversation", args=[conversation.pk])


# Empty states and starting -----------------------------------------------------------------------


def test_a_new_account_sees_the_empty_state_with_a_start_button(owner: Client) -> None:
    page = owner.get(reverse("chat:home")).content.decode()

    assert "No conversations yet" in page
    assert f'action="{reverse("chat:new")}"' in page
    assert "Start a conversation" in page
    assert 'id="composer"' not in page


def test_starting_a_conversation_creates_one_and_opens_it(owner: Client, user: User) -> None:
    response = owner.post(reverse("chat:new"))

    conversation = Conversation.objects.get(user=user)
    assert response.status_code == 302
    assert response["Location"] == page_of(conversation)
    page = owner.get(page_of(conversation)).content.decode()
    assert 'id="composer"' in page
    assert f'data-ws-path="/ws/chat/{conversation.pk}/"' in page
    assert "Ask anything." in page


def test_posting_to_home_starts_one_and_an_empty_one_is_reused(owner: Client, user: User) -> None:
    first = owner.post(reverse("chat:home"))
    second = owner.post(reverse("chat:new"))

    assert first["Location"] == second["Location"]
    assert Conversation.objects.filter(user=user).count() == 1


def test_home_shows_the_newest_open_conversation(owner: Client, user: User) -> None:
    older = conversation_create(user=user, title="Older one")
    ask(older, "hello")
    newest = conversation_create(user=user, title="Newest one")
    ask(newest, "hi again")

    page = owner.get(reverse("chat:home")).content.decode()

    assert f'data-current-id="{newest.pk}"' in page
    assert re.search(r'<h1 class="conv-heading"><span data-title>Newest one</span>', page)
    assert "Older one" in page  # in the sidebar


def test_pages_require_login(client: Client, conversation: Conversation) -> None:
    for url in (page_of(conversation), reverse("chat:imports")):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))


def test_a_visitor_at_home_sees_the_front_page_and_cannot_start_a_conversation(
    client: Client, conversation: Conversation
) -> None:
    page = client.get(reverse("chat:home"))
    posted = client.post(reverse("chat:home"))

    assert page.status_code == 200
    body = page.content.decode()
    assert "A chat with a memory you can see." in body
    assert f'href="{reverse("accounts:signup")}"' in body
    assert f'href="{reverse("login")}"' in body
    assert conversation.title not in body  # nobody's data on the public page
    assert posted.status_code == 302
    assert posted["Location"].startswith(reverse("login"))


def test_assets_are_local_and_linked(owner: Client, conversation: Conversation) -> None:
    page = owner.get(page_of(conversation)).content.decode()

    for asset in ("css/chat.css", "js/chat.js", "js/chat-composer.js", "js/references.js"):
        assert f"/static/{asset}" in page
    assert not re.search(r'(src|href)="(https?:)?//', page)


# Messages ----------------------------------------------------------------------------------------


def test_user_messages_are_escaped_with_references_as_chips(
    owner: Client, conversation: Conversation
) -> None:
    ask(conversation, "Compare @prefer_morning with #4 <script>alert(1)</script>")

    page = owner.get(page_of(conversation)).content.decode()

    assert "<script>alert(1)" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert (
        '<span class="ref-chip" data-ref="prefer_morning" data-ref-kind="friendly" '
        'tabindex="0">@prefer_morning</span>'
    ) in page
    assert 'data-ref="claim_4" data-ref-kind="number" tabindex="0">#4</span>' in page


def test_an_answer_is_sanitised_markdown_with_sources_memory_and_badge(
    owner: Client, user: User, conversation: Conversation
) -> None:
    claim = ClaimFactory(user=user, statement="I prefer morning runs")
    claim_url = reverse("knowledge:claim", args=[claim.pk])
    ask(conversation, "When do I run?")
    message = answer(
        conversation,
        "You run **early** [1]. <img src=x onerror=alert(1)>",
        sources=[
            {
                "number": 1,
                "kind": "claim",
                "ref_id": str(claim.pk),
                "title": "#1",
                "excerpt": claim.statement,
                "url": claim_url,
                "cited": True,
            },
            {
                "number": 2,
                "kind": "fact",
                "ref_id": "k",
                "title": "user.sport",
                "excerpt": "running",
                "url": None,
                "cited": False,
            },
        ],
        memory_used=[
            {
                "claim_id": str(claim.pk),
                "number": claim.number,
                "friendly_id": claim.friendly_id,
                "statement": claim.statement,
                "claim_types": ["preference"],
                "label": "GLOBAL PINNED",
                "source": 1,
            }
        ],
        fact_counts={"stored": 1, "updated": 0, "retrieved": 2, "ambiguous_topics": []},
        index_status="accepted",
    )

    page = owner.get(page_of(conversation)).content.decode()

    assert "<strong>early</strong>" in page
    assert "<img src=x" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert f'<sup class="cite"><a href="{claim_url}"' in page
    # One list per answer (issue 17): the footer; no second "All sources" list repeating it
    assert f'id="src-{message.pk}-2"' not in page
    assert "All sources" not in page
    assert "Memory used (1)" in page
    assert '<span class="mem-label label-global">GLOBAL PINNED</span>' in page
    assert f'data-pin-here="{claim.pk}" aria-pressed="false"' in page
    assert "facts +1" not in page
    assert "indexed: accepted" not in page


def test_claims_attached_for_one_turn_show_under_the_users_message(
    owner: Client, user: User, conversation: Conversation
) -> None:
    claim = ClaimFactory(user=user, statement="Budget is 2,000 EUR")
    message = ask(conversation, "Plan the trip")
    message.attached_claims.add(claim)

    page = owner.get(page_of(conversation)).content.decode()

    assert "Used for this turn:" in page
    assert f'href="{reverse("knowledge:claim", args=[claim.pk])}"' in page
    assert f"#{claim.number}</a>" in page


def test_pin_states_show_on_the_memory_panel(
    owner: Client, user: User, conversation: Conversation
) -> None:
    claim = ClaimFactory(user=user, statement="Tea, not coffee", pinned=True)
    conversation_pin_claim(conversation=conversation, claim=claim)
    answer(
        conversation,
        "Tea it is.",
        memory_used=[
            {
                "claim_id": str(claim.pk),
                "number": claim.number,
                "friendly_id": claim.friendly_id,
                "statement": claim.statement,
                "claim_types": ["preference"],
                "label": "CONV PINNED",
                "source": 1,
            }
        ],
    )

    page = owner.get(page_of(conversation)).content.decode()

    assert f'data-pin-here="{claim.pk}" aria-pressed="true"' in page
    assert f'data-pin-global="{claim.pk}" aria-pressed="true"' in page
    assert "Pinned here (<span data-pinned-count>1</span>)" in page


@pytest.mark.parametrize(
    ("status", "error", "note"),
    [
        (Message.Status.PARTIAL, "Stopped by the user.", "Stopped — partial answer saved"),
        (
            Message.Status.FAILED,
            "overloaded",
            "The model failed: overloaded; your message was saved",
        ),
    ],
)
def test_partial_and_failed_answers_say_so(
    owner: Client, conversation: Conversation, status: str, error: str, note: str
) -> None:
    ask(conversation, "Tell me a story")
    answer(conversation, "Once upon", status=status, error=error)

    page = owner.get(page_of(conversation)).content.decode()

    assert note in page


def test_a_pending_clarifying_question_offers_its_choices(
    owner: Client, conversation: Conversation
) -> None:
    ask(conversation, "My #1 is BTC")
    answer(
        conversation,
        "Which list do you mean?",
        outcome=TurnOutcome(clarify_topics=("crypto", "books")),
    )

    page = owner.get(page_of(conversation)).content.decode()
    assert 'data-clarify-text="My #1 is BTC"' in page
    assert 'data-clarify-topic="books"' in page

    ask(conversation, "never mind")
    assert "data-clarify-topic" not in owner.get(page_of(conversation)).content.decode()


def test_the_messages_fragment_renders_only_newer_messages(
    owner: Client, conversation: Conversation
) -> None:
    first = ask(conversation, "first question")
    ask(conversation, "second question")
    reply = answer(conversation, "second answer")

    response = owner.get(reverse("chat:messages", args=[conversation.pk]), {"after": first.order})

    html = response.content.decode()
    assert response.status_code == 200
    assert "first question" not in html
    assert "second question" in html
    assert f'id="message-{reply.pk}"' in html


# Another user's conversation ---------------------------------------------------------------------


def test_another_users_conversation_is_404_everywhere(
    client: Client, other_user: User, conversation: Conversation
) -> None:
    message = ask(conversation, "private")
    client.force_login(other_user)
    pk = conversation.pk

    assert client.get(page_of(conversation)).status_code == 404
    assert client.get(reverse("chat:messages", args=[pk])).status_code == 404
    assert client.get(reverse("chat:rename", args=[pk])).status_code == 404
    assert client.post(reverse("chat:rename", args=[pk]), {"title": "x"}).status_code == 404
    assert client.post(reverse("chat:archive", args=[pk]), {"archived": "true"}).status_code == 404
    assert client.get(reverse("chat:delete", args=[pk])).status_code == 404
    assert client.post(reverse("chat:delete", args=[pk])).status_code == 404
    assert client.post(reverse("chat:remember", args=[pk, message.pk])).status_code == 404
    assert client.get(reverse("chat:conversation", args=[uuid.uuid4()])).status_code == 404
    conversation.refresh_from_db()
    assert (conversation.title, conversation.archived) == ("Trip planning", False)
    assert "Trip planning" not in client.get(reverse("chat:home")).content.decode()


# Rename, archive, delete, search without script --------------------------------------------------


def test_rename_archive_and_delete_with_plain_forms(
    owner: Client, conversation: Conversation
) -> None:
    pk = conversation.pk
    assert 'value="Trip planning"' in owner.get(reverse("chat:rename", args=[pk])).content.decode()

    renamed = owner.post(reverse("chat:rename", args=[pk]), {"title": "  Lisbon   trip "})
    assert renamed["Location"] == page_of(conversation)
    conversation.refresh_from_db()
    assert conversation.title == "Lisbon trip"

    owner.post(reverse("chat:archive", args=[pk]), {"archived": "true"})
    conversation.refresh_from_db()
    assert conversation.archived
    assert 'class="badge warn">Archived' in owner.get(page_of(conversation)).content.decode()
    owner.post(reverse("chat:archive", args=[pk]), {"archived": "false"})
    conversation.refresh_from_db()
    assert not conversation.archived

    assert "cannot be undone" in owner.get(reverse("chat:delete", args=[pk])).content.decode()
    deleted = owner.post(reverse("chat:delete", args=[pk]))
    assert deleted["Location"] == reverse("chat:home")
    assert not Conversation.objects.filter(pk=pk).exists()


def test_a_too_long_title_is_a_form_error(owner: Client, conversation: Conversation) -> None:
    response = owner.post(reverse("chat:rename", args=[conversation.pk]), {"title": "x" * 201})

    assert response.status_code == 200
    assert 'class="errorlist"' in response.content.decode()


def test_rename_only_follows_a_local_next(owner: Client, conversation: Conversation) -> None:
    url = reverse("chat:rename", args=[conversation.pk])

    assert owner.post(url, {"title": "a", "next": "/?q=a"})["Location"] == "/?q=a"
    assert owner.post(url, {"title": "b", "next": "https://evil.example/"})["Location"] == page_of(
        conversation
    )


def test_search_filters_by_title_and_content_and_archived(owner: Client, user: User) -> None:
    conversation_create(user=user, title="Garden plans")
    by_content = conversation_create(user=user, title="Weekend")
    ask(by_content, "Which tomatoes grow best in the garden?")
    unrelated = conversation_create(user=user, title="Taxes")
    archived = conversation_create(user=user, title="Old garden")
    archived.archived = True
    archived.save()
    sidebar = reverse("chat:sidebar")

    found = owner.get(sidebar, {"q": "garden"}).content.decode()
    assert "Garden plans" in found
    assert "Weekend" in found
    assert "Taxes" not in found
    assert "Old garden" not in found
    in_archive = owner.get(sidebar, {"q": "garden", "archived": "on"}).content.decode()
    assert "Old garden" in in_archive
    assert "Garden plans" not in in_archive
    nothing = owner.get(sidebar, {"q": "zebra"}).content.decode()
    assert "No conversation matches “zebra”." in nothing
    page = owner.get(page_of(unrelated), {"q": "garden"}).content.decode()
    assert 'value="garden"' in page
    assert "Garden plans" in page


def test_save_as_memory_without_script(
    owner: Client, user: User, conversation: Conversation
) -> None:
    message = ask(conversation, "I moved to Porto in 2023")

    response = owner.post(
        reverse("chat:remember", args=[conversation.pk, message.pk]), {"statement": ""}, follow=True
    )

    claim = Claim.objects.get(user=user)
    assert (claim.statement, claim.origin, claim.source_message) == (
        "I moved to Porto in 2023",
        ClaimOrigin.CHAT,
        message,
    )
    assert f"Saved as memory #{claim.number}" in response.content.decode()


def test_the_offline_provider_is_announced_once_per_conversation_by_a_banner(
    client: Any, user: Any, settings: Any
) -> None:
    from apps.chat.services import conversation_create

    settings.ANTHROPIC_API_KEY = ""
    settings.CAIRN_LLM_BASE_URL = ""
    conversation = conversation_create(user=user)
    client.force_login(user)

    offline = client.get(f"/c/{conversation.pk}/").content.decode()
    settings.ANTHROPIC_API_KEY = "sk-ant-test-key"
    online = client.get(f"/c/{conversation.pk}/").content.decode()

    assert "Cairn is running offline" in offline
    assert "Cairn is running offline" not in online


def test_what_a_turn_changed_is_shown_in_words_after_a_reload(
    owner: Client, user: User, conversation: Conversation
) -> None:
    """Issue 18: the facts a question wrote, its notices and the claims suggested from
    it are stored with the message and rendered on the page, not only streamed."""
    question = ask(conversation, "actually my #1 crypto is SOL, and see @nothing_here")
    question.notices = [
        {"kind": "fact", "text": "Updated #1 crypto: BTC → SOL"},
        {"kind": "notice", "text": "@nothing_here was not found."},
    ]
    question.save(update_fields=["notices"])
    suggested = ClaimFactory(
        user=user,
        statement="I hold SOL",
        status="pending",
        origin=ClaimOrigin.EXTRACTED,
        source_message=question,
    )
    reply = answer(conversation, "Noted.", index_status="accepted")

    page = owner.get(reverse("chat:conversation", args=[conversation.pk])).text

    assert "Updated #1 crypto: BTC → SOL" in page
    assert '<p class="msg-notice">@nothing_here was not found.</p>' in page
    assert (
        f'Suggested for memory: <a href="{reverse("knowledge:claim", args=[suggested.pk])}">'
        in page
    )
    assert page.count(reverse("knowledge:review", args=[suggested.pk])) == 3
    assert (
        f'value="{reverse("chat:conversation", args=[conversation.pk])}#message-{reply.pk}"' in page
    )


def test_another_users_suggestions_are_never_shown(
    owner: Client, user: User, other_user: User, conversation: Conversation
) -> None:
    question = ask(conversation, "I like tea")
    ClaimFactory(
        user=other_user,
        statement="Bob's claim",
        status="pending",
        origin=ClaimOrigin.EXTRACTED,
        source_message=question,
    )
    answer(conversation, "Noted.")

    page = owner.get(reverse("chat:conversation", args=[conversation.pk])).text

    assert "Bob's claim" not in page
    assert "Suggested for memory" not in page


def test_a_suggestion_reviewed_without_javascript_comes_back_to_its_answer(
    owner: Client, user: User, conversation: Conversation
) -> None:
    question = ask(conversation, "I prefer green tea")
    suggested = ClaimFactory(
        user=user,
        statement="I prefer green tea",
        status="pending",
        origin=ClaimOrigin.EXTRACTED,
        source_message=question,
    )
    reply = answer(conversation, "Noted.")
    back = f"{reverse('chat:conversation', args=[conversation.pk])}#message-{reply.pk}"

    response = owner.post(
        reverse("knowledge:review", args=[suggested.pk]), {"decision": "approve", "next": back}
    )
    page = owner.get(reverse("chat:conversation", args=[conversation.pk])).text

    assert response.status_code == 302
    assert response["Location"] == back
    assert f"Approved #{suggested.number}" in page
    assert "Saved to memory:" in page
    assert "Suggested for memory" not in page


def test_a_claim_the_models_tool_added_is_said_under_the_answer(
    owner: Client, user: User, conversation: Conversation
) -> None:
    question = ask(conversation, "Remember that my passport expires in May")
    added = ClaimFactory(
        user=user,
        statement="My passport expires in May",
        origin=ClaimOrigin.CHAT,
        source_message=question,
    )
    answer(conversation, "Saved.")

    page = owner.get(reverse("chat:conversation", args=[conversation.pk])).text

    assert (
        f'Saved to memory: <a href="{reverse("knowledge:claim", args=[added.pk])}">'
        f"#{added.number}</a> My passport expires in May"
    ) in page
