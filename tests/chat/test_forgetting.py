"""Forget that forgets, and undo (issue 28, failure 4): the flash said "answers no longer
use it", yet the next question was answered from the chat turn the claim was taken from
and from a fact derived from it, and a retracted claim had no Restore. Now retracting hides
the claim, its turn (still shown in its conversation) and the facts derived from that turn
from every answer and memory search; the page says exactly that; Restore — on the page,
through REST, MCP and the chat tool — brings them back."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.chat.mcp.memory import UserMemory
from apps.chat.models import Conversation, Message
from apps.chat.services import conversation_create
from apps.claims.models import Claim, ClaimOrigin, ClaimStatus
from apps.claims.services import claim_create
from apps.facts.services import fact_store
from apps.indexing.services import message_index
from apps.projects.services import project_ensure_personal
from tests.indexing.conftest import real_provider  # noqa: F401 - fixture

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("real_provider")]

SAID = "My gym locker code is 4471, and my #1 crypto is Zcash."


def _said_and_taken(user: User, capture: Any) -> tuple[Message, Claim]:
    """A turn of the user's, indexed, a claim taken from it and a fact derived from it."""
    home = project_ensure_personal(user=user)
    earlier = Conversation.objects.create(user=user, project=home, title="Gym")
    said = Message.objects.create(conversation=earlier, role="user", content=SAID, order=1)
    message_index(message_id=said.pk)
    fact_store(
        project=home, key="user.favorites.crypto.1", value="Zcash", source_message_id=said.pk
    )
    with capture(execute=True):
        claim = claim_create(
            user=user,
            statement="My gym locker code is 4471",
            origin=ClaimOrigin.CHAT,
            source_message=said,
            pinned=True,
        )
    return said, claim


def _ask(client: APIClient, conversation: Conversation, text: str) -> str:
    response = client.post(
        f"/api/v1/conversations/{conversation.pk}/messages/", {"text": text}, format="json"
    )
    assert response.status_code == 201, response.content
    return str(response.json()["answer"]["content"])


def test_retracting_forgets_the_claim_its_turn_and_its_facts_and_restore_brings_them_back(
    user: User, django_capture_on_commit_callbacks: Any
) -> None:
    said, claim = _said_and_taken(user, django_capture_on_commit_callbacks)
    api = APIClient()
    api.force_authenticate(user)
    page = Client()
    page.force_login(user)
    conversation = conversation_create(user=user)
    assert "4471" in _ask(api, conversation, "What is my gym locker code?")
    assert "Zcash" in _ask(api, conversation, "What is my favorite crypto?")

    retracted = page.post(reverse("knowledge:claim-retract", args=[claim.pk]), follow=True)

    flash = retracted.content.decode()
    assert "answers no longer use it" in flash
    assert "nor your message of" in flash
    assert "My gym locker code is 4471, and my #1 crypto" in flash
    assert "crypto list, #1 = Zcash" in flash
    assert "Restore</button>" in flash
    locker = _ask(api, conversation, "What is my gym locker code?")
    crypto = _ask(api, conversation, "What is my favorite crypto?")
    assert "4471" not in locker
    assert "Zcash" not in crypto
    search = api.get("/api/v1/search", {"q": "gym locker code"}).json()["results"]
    assert str(said.pk) not in {hit["message_id"] for hit in search}
    shown = api.get(f"/api/v1/conversations/{said.conversation_id}/messages/").json()
    assert [m["content"] for m in shown["results"]] == [SAID]  # still in its conversation

    restored = page.post(reverse("knowledge:claim-restore", args=[claim.pk]), follow=True)

    assert "answers use it again" in restored.content.decode()
    claim.refresh_from_db()
    assert (claim.status, claim.pinned) == (ClaimStatus.ACTIVE, True)
    assert "4471" in _ask(api, conversation, "What is my gym locker code?")
    assert "Zcash" in _ask(api, conversation, "What is my favorite crypto?")


def test_restore_through_rest_mcp_and_the_chat_tool(
    user: User, django_capture_on_commit_callbacks: Any
) -> None:
    from apps.chat.pipeline.sources import SourceRegistry
    from apps.chat.pipeline.tools.executor import TurnTools
    from apps.chat.pipeline.tools.schemas import MemoryUpdateInput

    said, claim = _said_and_taken(user, django_capture_on_commit_callbacks)
    api = APIClient()
    api.force_authenticate(user)
    memory = UserMemory(user)
    tools = TurnTools(user=user, message=said, registry=SourceRegistry())

    api.post(f"/api/v1/claims/{claim.pk}/retract/")
    assert api.post(f"/api/v1/claims/{claim.pk}/restore/").json()["status"] == "active"
    memory.change_claim(number=claim.number, action="retract")
    assert "active" in memory.change_claim(number=claim.number, action="restore")
    tools.memory_update(MemoryUpdateInput(claim_number=claim.number, action="retract"))
    result = tools.memory_update(MemoryUpdateInput(claim_number=claim.number, action="restore"))

    assert "is now active" in result
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.ACTIVE
