"""Faults: the LLM timing out mid-answer, the database dropping connections between
turns, and Redis going away and coming back."""

from __future__ import annotations

import subprocess
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
from asgiref.sync import sync_to_async
from django.db import connection

from apps.chat.llm.anthropic_provider import AnthropicProvider
from apps.chat.models import Message
from apps.chat.services import conversation_create
from tests.chat.helpers import connect, events_until, of_type
from tests.chat.test_llm_anthropic import FakeAnthropic, message_start, sse, text_block
from tests.factories import UserFactory
from tests.processes import start_redis


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_llm_timing_out_mid_answer_saves_the_partial_and_keeps_the_question(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    head = sse(message_start(), *text_block(0, "You train ", "best in the")[:-1])

    async def body() -> AsyncIterator[bytes]:
        yield head
        raise httpx2.ReadTimeout("the model stopped answering")

    server = FakeAnthropic(
        lambda: httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body())
    )
    provider = AnthropicProvider(
        api_key="sk-test",
        main_model="m",
        cheap_model="c",
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(server)),
    )
    monkeypatch.setattr("apps.chat.consumers.provider_for_running_loop", lambda _answerer: provider)
    user = await sync_to_async(UserFactory)()
    conversation = await sync_to_async(conversation_create)(user=user)
    ws = await connect(user, conversation.id)

    await ws.send_json_to({"type": "message", "text": "When do I train best?"})
    events = await events_until(ws, "done")

    assert of_type(events, "error")[0]["code"] == "provider"
    saved = await sync_to_async(list)(conversation.messages.order_by("order"))
    assert [(m.role, m.status) for m in saved] == [("user", "complete"), ("assistant", "partial")]
    assert saved[0].content == "When do I train best?"
    assert saved[1].content.startswith("You train best in the")
    await ws.disconnect()


def _kill_other_connections() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return int(cursor.fetchone()[0])


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_turn_after_the_database_dropped_every_connection_works() -> None:
    user = await sync_to_async(UserFactory)()
    conversation = await sync_to_async(conversation_create)(user=user)
    ws = await connect(user, conversation.id)
    await ws.send_json_to({"type": "message", "text": "First question"})
    await events_until(ws, "done")

    await sync_to_async(_kill_other_connections)()
    await ws.send_json_to({"type": "message", "text": "Second question"})
    events = await events_until(ws, "done")

    assert of_type(events, "done")[0]["message"]["status"] == "complete"
    count = await sync_to_async(Message.objects.filter(conversation=conversation).count)()
    assert count == 4
    await ws.disconnect()


@pytest.mark.django_db
def test_redis_down_is_reported_clearly_and_recovery_is_automatic(
    own_redis: tuple[int, list[subprocess.Popen[bytes]]],
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
    client: Any,
) -> None:
    from django_q.brokers.redis_broker import Redis as RedisBroker
    from django_q.conf import Conf

    port, servers = own_redis
    url = f"redis://127.0.0.1:{port}/0"
    monkeypatch.setattr(Conf, "REDIS", url)
    settings.Q_CLUSTER = {**settings.Q_CLUSTER, "redis": url}
    monkeypatch.setattr(
        "django_q.brokers.get_broker",
        lambda list_key=None: RedisBroker(list_key=list_key or "cairn-fault"),
    )
    assert client.get("/healthz").status_code == 200

    servers[0].terminate()
    servers[0].wait(timeout=10)
    down = client.get("/healthz")
    assert down.status_code == 503
    assert "Connection" in down.json()["checks"]["queue"]["detail"]

    servers.append(start_redis(port))
    assert client.get("/healthz").status_code == 200
