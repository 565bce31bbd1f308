"""Typed lists (issue 17, bullet 3), as a user meets them in chat: a question about the
shopping list or goals brings the whole list, Claude can list any type with ``memory_list``
(stable #N) and tick an item off and restore it, and done is not retracted."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest
from asgiref.sync import sync_to_async

from apps.chat.llm.anthropic_provider import AnthropicProvider
from apps.chat.services import conversation_create
from apps.claims.models import Claim, ClaimStatus
from apps.claims.services import claim_complete, claim_create
from tests.chat.helpers import connect, events_until, of_type
from tests.chat.test_llm_anthropic import (
    FakeAnthropic,
    message_end,
    message_start,
    streamed,
    text_block,
    tool_use_block,
)
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

ITEMS = [
    ("I train for a marathon three mornings a week", "fact"),
    ("Run the Berlin marathon in under four hours", "goal"),
    ("Learn enough Spanish to order dinner", "goal"),
    ("Oat milk", "shopping_item"),
    ("Eggs", "shopping_item"),
    ("Rye bread", "shopping_item"),
    ("Book the bike service", "task"),
]


@sync_to_async
def _account() -> tuple[Any, Any, dict[str, Claim]]:
    user = UserFactory()
    claims = {s: claim_create(user=user, statement=s, claim_types=[t]) for s, t in ITEMS}
    claim_complete(claim=claims["Rye bread"], action="tick_off")  # bought already
    stranger = UserFactory()
    claim_create(user=stranger, statement="Stranger's caviar", claim_types=["shopping_item"])
    return user, conversation_create(user=user), claims


@sync_to_async
def _status(claim: Claim) -> str:
    claim.refresh_from_db()
    return claim.status


def _claude(server: FakeAnthropic) -> AnthropicProvider:
    return AnthropicProvider(
        api_key="sk-test",
        main_model="claude-main",
        cheap_model="claude-cheap",
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(server)),
        max_retries=0,
    )


def _tool_turn(name: str, tool_input: dict[str, Any]) -> httpx2.Response:
    return streamed(
        message_start(),
        *tool_use_block(0, "toolu_1", name, tool_input),
        *message_end("tool_use", 5),
    )


def _text_turn(text: str) -> httpx2.Response:
    return streamed(message_start(), *text_block(0, text), *message_end("end_turn", 5))


def _tool_result(server: FakeAnthropic, request: int) -> str:
    blocks = server.body(request)["messages"][-1]["content"]
    return "".join(str(block.get("content", "")) for block in blocks)


async def test_asking_for_the_shopping_list_offline_lists_every_open_item() -> None:
    user, conversation, _ = await _account()
    ws = await connect(user, conversation.id)

    await ws.send_json_to({"type": "message", "text": "what's on my shopping list?"})
    done = of_type(await events_until(ws, "done"), "done")[0]["message"]

    answer = done["content"]
    assert "Oat milk" in answer
    assert "Eggs" in answer
    assert "Rye bread" not in answer  # ticked off: done, not on the list
    assert "caviar" not in answer  # another user's list
    assert "marathon" not in answer
    await ws.disconnect()


async def test_claude_sees_the_goals_as_their_own_section_and_lists_by_type(
    monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    settings.CAIRN_ALIGNMENT_REVIEW = False
    server = FakeAnthropic(
        _tool_turn("memory_list", {"type": "shopping item"}),
        _text_turn("You need oat milk and eggs."),
    )
    monkeypatch.setattr(
        "apps.chat.consumers.provider_for_running_loop", lambda _answerer: _claude(server)
    )
    user, conversation, claims = await _account()
    ws = await connect(user, conversation.id)

    await ws.send_json_to({"type": "message", "text": "what are my goals, and what to buy?"})
    await events_until(ws, "done")

    system = server.body(0)["system"]
    goals = system[system.index("<goals>") : system.index("</goals>")]
    assert (
        f"#{claims['Run the Berlin marathon in under four hours'].number} Run the Berlin" in goals
    )
    assert "Learn enough Spanish" in goals
    assert "Oat milk" not in goals
    assert "<tasks>" not in system  # not asked about
    assert "memory_list" in [tool["name"] for tool in server.body(0)["tools"]]
    listed = _tool_result(server, 1)
    assert f"#{claims['Oat milk'].number} Oat milk" in listed
    assert f"#{claims['Eggs'].number} Eggs" in listed
    assert "Rye bread" not in listed
    assert "caviar" not in listed
    await ws.disconnect()


async def test_claude_ticks_an_item_off_and_restores_it_and_done_is_listed_as_done(
    monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    settings.CAIRN_ALIGNMENT_REVIEW = False
    user, conversation, claims = await _account()
    eggs = claims["Eggs"]
    server = FakeAnthropic(
        _tool_turn("memory_update", {"claim_number": eggs.number, "action": "tick_off"}),
        _text_turn("Ticked off."),
        _tool_turn("memory_list", {"type": "shopping_item", "status": "done"}),
        _text_turn("Done: eggs, rye bread."),
        _tool_turn("memory_update", {"claim_number": eggs.number, "action": "restore"}),
        _text_turn("Eggs are back on the list."),
    )
    monkeypatch.setattr(
        "apps.chat.consumers.provider_for_running_loop", lambda _answerer: _claude(server)
    )
    ws = await connect(user, conversation.id)

    await ws.send_json_to({"type": "message", "text": "I bought the eggs"})
    await events_until(ws, "done")
    assert await _status(eggs) == ClaimStatus.DONE
    assert "is now done" in _tool_result(server, 1)

    await ws.send_json_to({"type": "message", "text": "what did I buy already?"})
    await events_until(ws, "done")
    listed = _tool_result(server, 3)
    assert f"#{eggs.number} Eggs (done" in listed
    assert "Rye bread (done" in listed
    assert "Oat milk" not in listed

    await ws.send_json_to({"type": "message", "text": "oops, I still need eggs"})
    await events_until(ws, "done")
    assert await _status(eggs) == ClaimStatus.ACTIVE
    await ws.disconnect()
