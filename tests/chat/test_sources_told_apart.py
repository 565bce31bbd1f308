"""Sources a person can tell apart (issue 17, bullet 2): titled by what they are, numbered
in order of first use in the answer, one list per answer — in the streamed events, the
saved answer, the page and the REST API. Claude over a mocked HTTP transport."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from apps.chat.services import conversation_create
from apps.claims.services import claim_create
from tests.chat.helpers import connect, events_until, of_type
from tests.chat.test_llm_anthropic import FakeAnthropic
from tests.chat.test_typed_lists import _claude, _text_turn
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

TRAIN = "I train for a marathon three mornings a week"
SHOES = "My running shoes are Hoka Clifton"
UNITS = "I prefer metric units"


@sync_to_async
def _account() -> tuple[Any, Any, dict[str, str]]:
    user = UserFactory()
    claim_create(user=user, statement=TRAIN, friendly_id="marathon_mornings")
    claim_create(user=user, statement=SHOES, friendly_id="hoka_shoes")
    claim_create(user=user, statement=UNITS, pinned=True)
    urls = {
        claim.statement: reverse("knowledge:claim", args=[claim.pk]) for claim in user.claims.all()
    }
    return user, conversation_create(user=user), urls


@sync_to_async
def _page(user: Any, conversation: Any) -> str:
    client = Client()
    client.force_login(user)
    return client.get(reverse("chat:conversation", args=[conversation.pk])).content.decode()


@sync_to_async
def _api_messages(user: Any, conversation: Any) -> list[dict[str, Any]]:
    client = APIClient()
    client.force_authenticate(user)
    return client.get(f"/api/v1/conversations/{conversation.pk}/messages/").json()["results"]


async def test_sources_are_titled_by_what_they_say_and_numbered_by_first_use(
    monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    settings.CAIRN_ALIGNMENT_REVIEW = False
    # Registered in the order referenced: [1] training, [2] shoes; the pinned units are
    # background the question is not about, no source (issue 28). Claude cites the shoes first.
    server = FakeAnthropic(_text_turn("Wear your Hoka Cliftons [2] on your morning runs [1]."))
    monkeypatch.setattr(
        "apps.chat.consumers.provider_for_running_loop", lambda _answerer: _claude(server)
    )
    user, conversation, urls = await _account()
    ws = await connect(user, conversation.id)

    await ws.send_json_to(
        {"type": "message", "text": "@marathon_mornings @hoka_shoes what should I wear?"}
    )
    events = await events_until(ws, "done")
    await ws.disconnect()

    streamed = of_type(events, "sources")[0]["items"]
    assert [item["title"] for item in streamed] == [TRAIN, SHOES]
    done = of_type(events, "done")[0]["message"]
    answer, footer = done["content"].split("\n\n---\n**Sources:**\n")
    assert answer == "Wear your Hoka Cliftons [1] on your morning runs [2]."
    assert footer.split("  \n") == [
        f"[1] [{SHOES}]({urls[SHOES]}) · claim",
        f"[2] [{TRAIN}]({urls[TRAIN]}) · claim",
    ]
    assert [(s["number"], s["title"], s["cited"]) for s in done["sources"]] == [
        (1, SHOES, True),
        (2, TRAIN, True),
    ]
    sources_of = {row["statement"]: row["source"] for row in done["memory_used"]}
    assert (sources_of[SHOES], sources_of[TRAIN], sources_of[UNITS]) == (1, 2, None)

    # The REST API says the same; the page shows one list, not a footer and "All sources".
    saved = (await _api_messages(user, conversation))[-1]
    assert saved["content"] == done["content"]
    assert [s["title"] for s in saved["sources"] if s["cited"]] == [SHOES, TRAIN]
    page = await _page(user, conversation)
    assert page.count("<strong>Sources:</strong>") == 1
    assert "All sources" not in page
    assert "@marathon_mornings</a>" not in page  # no "#1 @friendly_id" titles
    first_cite = page.index('<sup class="cite">')
    assert page[first_cite:].startswith(f'<sup class="cite"><a href="{urls[SHOES]}"')
