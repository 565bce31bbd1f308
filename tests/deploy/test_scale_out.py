"""The README's scale-out, run for real: Redis for channels and jobs, two ASGI processes
and two django-q2 workers serving the same conversations."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
import websockets
from django.test import Client

from apps.chat.models import Message
from apps.chat.services import conversation_create
from tests.factories import UserFactory
from tests.processes import ROOT, free_port, process_env, wait_for_port


@pytest.fixture
def cluster(transactional_db: None, redis_url: str) -> Iterator[list[int]]:
    # The processes share this test's database, so they see what the test commits.
    env = process_env(
        REDIS_URL=redis_url,
        ALLOWED_HOSTS="127.0.0.1,localhost",
        Q_WORKERS="1",
        CAIRN_OFFLINE_WORD_DELAY="0",
    )
    ports = [free_port(), free_port()]
    processes = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "config.asgi:application",
                "--port",
                str(port),
                "--log-level",
                "warning",
                "--lifespan",
                "off",
            ],
            cwd=ROOT,
            env=env,
        )
        for port in ports
    ] + [
        subprocess.Popen(
            [sys.executable, "manage.py", "qcluster"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(2)
    ]
    try:
        for port in ports:
            wait_for_port(port)
        yield ports
    finally:
        for process in processes:
            process.send_signal(signal.SIGINT)
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


async def _turn(port: int, cookie: str, conversation_id: str, text: str) -> dict[str, Any]:
    async with websockets.connect(
        f"ws://127.0.0.1:{port}/ws/chat/{conversation_id}/",
        additional_headers={"Cookie": cookie, "Origin": f"http://127.0.0.1:{port}"},
    ) as ws:
        await ws.send(json.dumps({"type": "message", "text": text}))
        while True:
            event = json.loads(await asyncio.wait_for(ws.recv(), timeout=60))
            if event["type"] == "done":
                return dict(event["message"])


@pytest.mark.redis
def test_two_web_processes_and_two_workers_serve_one_conversation(cluster: list[int]) -> None:
    user = UserFactory()
    conversation = conversation_create(user=user)
    client = Client()
    client.force_login(user)
    cookie = f"sessionid={client.cookies['sessionid'].value}"

    first = asyncio.run(_turn(cluster[0], cookie, str(conversation.id), "We moved to Oslo."))
    second = asyncio.run(_turn(cluster[1], cookie, str(conversation.id), "Where did we move?"))

    assert first["status"] == second["status"] == "complete"
    orders = list(
        Message.objects.filter(conversation=conversation)
        .order_by("order")
        .values_list("role", flat=True)
    )
    assert orders == ["user", "assistant", "user", "assistant"]
    # The workers index both user messages through the Redis queue.
    deadline = time.monotonic() + 90
    from apps.indexing.models import Chunk

    while time.monotonic() < deadline:
        indexed = Chunk.objects.filter(
            message__conversation=conversation, message__role="user"
        ).count()
        if indexed >= 2:
            break
        time.sleep(0.5)
    assert indexed >= 2
