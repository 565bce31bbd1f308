"""The chat websocket end to end on the offline provider (and Claude over a mocked
transport for a failure mid-stream)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx2
import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from apps.chat.llm.anthropic_provider import AnthropicProvider
from apps.chat.models import Conversation, Message
from apps.chat.services import conversation_create
from apps.claims.services import claim_create
from config.asgi import application
from tests.chat.helpers import ORIGIN, connect, events_until, of_type
from tests.chat.test_llm_anthropic import FakeAnthropic, message_start, streamed, text_block
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@sync_to_async
def _setup(**claims: str) -> tuple[Any, Conversation]:
    user = UserFactory()
    for friendly_id, statement in claims.items():
        claim_create(
            user=user,
            statement=statement,
            friendly_id=friendly_id,
            claim_types=["preference"],
            possible_questions=["When do I train?"],
        )
    return user, conversation_create(user=user)


@sync_to_async
def _messages(conversation: Conversation) -> list[Message]:
    return list(conversation.messages.order_by("order"))


async def test_a_referenced_claim_is_resolved_used_and_cited() -> None:
    user, conversation = await _setup(prefer_morning="I prefer morning workouts")
    ws = await connect(user, conversation.id)

    await ws.send_json_to({"type": "message", "text": "When should I train? @prefer_morning"})
    events = await events_until(ws, "done")

    ack = of_type(events, "ack")[0]
    assert ack["references"][0]["found"] is True
    assert ack["references"][0]["kind"] == "claim"
    memory = of_type(events, "memory")[0]["items"]
    assert memory[0]["label"] == "REFERENCED @prefer_morning"
    assert of_type(events, "delta")
    done = of_type(events, "done")[0]["message"]
    assert done["status"] == "complete"
    assert "[1]" in done["content"]
    assert "I prefer morning workouts" in done["content"]  # the footer names the source
    assert any(source["cited"] for source in done["sources"])
    saved = await _messages(conversation)
    assert [m.role for m in saved] == ["user", "assistant"]
    assert saved[0].content == "When should I train? @prefer_morning"
    assert saved[1].memory_used[0]["label"] == "REFERENCED @prefer_morning"
    await ws.disconnect()


async def test_cancel_mid_stream_saves_the_partial_answer(settings: Any) -> None:
    settings.CAIRN_OFFLINE_WORD_DELAY = 0.05
    user, conversation = await _setup(
        **{f"long_{n}": f"Claim number {n} about long answers" for n in range(6)}
    )
    ws = await connect(user, conversation.id)
    text = "Tell me everything " + " ".join(f"@long_{n}" for n in range(6))

    await ws.send_json_to({"type": "message", "text": text})
    await events_until(ws, "delta")
    await ws.send_json_to({"type": "cancel"})
    events = await events_until(ws, "done")

    assert of_type(events, "error")[0]["code"] == "cancelled"
    done = of_type(events, "done")[0]["message"]
    assert done["status"] == "partial"
    saved = await _messages(conversation)
    assert saved[0].content == text
    assert saved[1].status == "partial"
    assert saved[1].content
    await ws.disconnect()


async def test_an_oversize_message_is_refused_and_nothing_is_saved() -> None:
    user, conversation = await _setup()
    ws = await connect(user, conversation.id)

    await ws.send_json_to({"type": "message", "text": "x" * 40_000})
    event = await ws.receive_json_from()

    assert (event["type"], event["code"]) == ("error", "too_large")
    assert await _messages(conversation) == []
    await ws.send_json_to({"type": "message", "text": "   "})
    assert (await ws.receive_json_from())["code"] == "empty"
    await ws.send_to(text_data="{not json")
    assert (await ws.receive_json_from())["code"] == "invalid"
    await ws.send_json_to({"type": "message", "text": "hi", "attached_claim_ids": ["nope"]})
    assert (await ws.receive_json_from())["code"] == "invalid"
    await ws.disconnect()


async def test_another_users_conversation_closes_with_4404() -> None:
    _, conversation = await _setup()
    intruder = await sync_to_async(UserFactory)()
    client = Client()
    await sync_to_async(client.force_login)(intruder)
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    ws = WebsocketCommunicator(
        application, f"/ws/chat/{conversation.id}/", headers=[ORIGIN, (b"cookie", cookie)]
    )

    assert await ws.connect() == (True, None)  # accepted, so the close code reaches the page
    assert await ws.receive_output() == {"type": "websocket.close", "code": 4404}


async def test_an_anonymous_socket_closes_with_4401() -> None:
    _, conversation = await _setup()
    ws = WebsocketCommunicator(application, f"/ws/chat/{conversation.id}/", headers=[ORIGIN])

    assert await ws.connect() == (True, None)
    assert await ws.receive_output() == {"type": "websocket.close", "code": 4401}


async def test_a_provider_error_mid_stream_keeps_the_user_message_and_the_partial_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = FakeAnthropic(
        streamed(
            message_start(),
            *text_block(0, "Morning ", "is best")[:-1],
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
        )
    )
    provider = AnthropicProvider(
        api_key="sk-test",
        main_model="claude-main",
        cheap_model="claude-cheap",
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(server)),
        max_retries=0,
    )
    monkeypatch.setattr("apps.chat.consumers.provider_for_running_loop", lambda _answerer: provider)
    user, conversation = await _setup()
    ws = await connect(user, conversation.id)

    await ws.send_json_to({"type": "message", "text": "When do I train best?"})
    events = await events_until(ws, "done")

    assert "".join(e["text"] for e in of_type(events, "delta")) == "Morning is best"
    assert of_type(events, "error")[0]["code"] == "provider"
    done = of_type(events, "done")[0]["message"]
    assert done["status"] == "partial"
    assert "overloaded" in done["error"].lower()
    saved = await _messages(conversation)
    assert [(m.role, m.status) for m in saved] == [("user", "complete"), ("assistant", "partial")]
    assert saved[1].content.startswith("Morning is best")
    await ws.disconnect()


async def test_a_second_message_while_answering_is_refused_as_busy(settings: Any) -> None:
    settings.CAIRN_OFFLINE_WORD_DELAY = 0.05
    user, conversation = await _setup(a_claim="Some claim to talk about at length")
    ws = await connect(user, conversation.id)

    await ws.send_json_to({"type": "message", "text": "Talk about @a_claim"})
    await events_until(ws, "delta")
    await ws.send_json_to({"type": "message", "text": "and another"})
    events = await events_until(ws, "done")

    assert any(e["type"] == "error" and e["code"] == "busy" for e in events)
    await asyncio.sleep(0)
    await ws.disconnect()


async def test_a_complete_answer_is_indexed_as_memory() -> None:
    user, conversation = await _setup(prefer_morning="I prefer morning workouts")
    ws = await connect(user, conversation.id)

    await ws.send_json_to({"type": "message", "text": "When should I train? @prefer_morning"})
    done = of_type(await events_until(ws, "done"), "done")[0]["message"]
    await ws.disconnect()

    @sync_to_async
    def chunks_of_answer() -> list[str]:
        from apps.indexing.models import Chunk

        return list(Chunk.objects.filter(message_id=done["id"]).values_list("text", flat=True))

    texts = await chunks_of_answer()
    assert texts
    assert "Sources:" not in " ".join(texts)  # the answer as written, without its footer


async def test_a_ranked_statement_of_no_known_list_says_it_was_not_saved() -> None:
    user, conversation = await _setup()
    ws = await connect(user, conversation.id)

    await ws.send_json_to({"type": "message", "text": "make BTC my #1"})
    events = await events_until(ws, "done")
    await ws.disconnect()

    ack = of_type(events, "ack")[0]
    assert ack["facts"]["stored"] == 0
    assert ack["facts"]["unresolved"] == ["#1 BTC"]
    assert any(
        notice.startswith("Not saved: #1 BTC — which list is it?") for notice in ack["notices"]
    )


async def test_a_big_referenced_context_brings_its_newest_claims_and_says_so(
    settings: Any,
) -> None:
    settings.CAIRN_REFERENCE_CLAIM_LIMIT = 2
    user, conversation = await _setup()

    @sync_to_async
    def tree() -> None:
        from apps.contexts.services import context_add_claims, context_create

        context = context_create(user=user, name="Boat", friendly_id="boat_context")
        claims = [claim_create(user=user, statement=f"Boat fact number {n}") for n in range(5)]
        context_add_claims(context=context, claims=claims)

    await tree()
    ws = await connect(user, conversation.id)
    await ws.send_json_to({"type": "message", "text": "What about @boat_context?"})
    events = await events_until(ws, "done")
    await ws.disconnect()

    ack = of_type(events, "ack")[0]
    referenced = [
        item
        for item in of_type(events, "memory")[0]["items"]
        if item["label"].startswith("REFERENCED")
    ]
    assert len(referenced) == 2
    assert "@boat_context holds 5 claims: the newest 2 were used, 3 left out." in " ".join(
        ack["notices"]
    )
