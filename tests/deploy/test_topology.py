"""The deployment the README describes for several machines, run for real and broken on
purpose (issue 26): a standalone PostgreSQL on TCP with an ordinary role and a password,
Redis on a port of its own, two `serve web` processes and a `serve worker`, driven by real
websocket and HTTP clients.

One scenario, in order: sockets opened at the start stay idle throughout; a turn on one web
process, its user's events on the other; an upload indexed by the worker and found by
search on the other web process; PostgreSQL restarted (a turn sent during the outage is
told "not saved" and is not in the database; turns after it work); Redis stopped (a turn is
saved and answered, and indexed once Redis is back); at the end the idle sockets, open for
more than 30 s, still answer, every message told "saved" is in the database and indexed,
and the ledger owes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
import websockets

from tests.processes import ROOT, RedisServer, free_port, process_env, wait_for_port
from tests.standalone_pg import StandalonePostgres

IDLE_SECONDS = 30
SETUP = """
from django.contrib.sessions.backends.db import SessionStore
from apps.accounts.models import User
from apps.accounts.services import api_token_create
from apps.chat.services import conversation_create
user = User.objects.create_user(email="drill@example.com", password="a long drill password")
session = SessionStore()
session["_auth_user_id"] = str(user.pk)
session["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
session["_auth_user_hash"] = user.get_session_auth_hash()
session.create()
_, key = api_token_create(user=user, name="drill")
print(session.session_key, key, conversation_create(user=user).pk)
"""


@dataclass
class Deployment:
    pg: StandalonePostgres
    redis: RedisServer
    web: list[int]
    log: Path
    cookie: str = ""
    token: str = ""
    conversation: str = ""

    def sql(self, query: str, *params: object) -> list[tuple[Any, ...]]:
        with psycopg.connect(self.pg.url) as connection:
            return list(connection.execute(query, params).fetchall())

    def http(self, port: int, path: str, data: bytes | None = None, **headers: str) -> Any:
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}{path}",
            data=data,
            headers={"Authorization": f"Token {self.token}", **headers},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310 -- http to 127.0.0.1
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def rest_turn(self, port: int, text: str) -> tuple[int, Any]:
        body = json.dumps({"text": text}).encode()
        path = f"/api/v1/conversations/{self.conversation}/messages/"
        return self.http(port, path, body, **{"Content-Type": "application/json"})

    def socket(self, port: int, path: str) -> Any:
        return websockets.connect(
            f"ws://127.0.0.1:{port}{path}",
            additional_headers={"Cookie": self.cookie, "Origin": f"http://127.0.0.1:{port}"},
            open_timeout=30,
        )

    def wait_until(self, condition: Any, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(psycopg.OperationalError):
                if condition():
                    return
            time.sleep(0.3)
        raise AssertionError(f"{what} within {timeout} s; logs:\n{self.log.read_text()[-6000:]}")


def _start(
    role: str, env: dict[str, str], log: Path, port: int | None = None
) -> subprocess.Popen[bytes]:
    with log.open("ab") as output:
        return subprocess.Popen(
            [sys.executable, "-m", "config.serve", role],
            cwd=ROOT,
            env={**env, **({"HOST": "127.0.0.1", "PORT": str(port)} if port else {})},
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


@pytest.fixture
def deployment(tmp_path: Path, migrated_postgres: Path) -> Iterator[Deployment]:
    # Migrated once per run by its role, as the release step (tests/conftest.py).
    pg = StandalonePostgres(tmp_path / "pg", copy_of=migrated_postgres)
    redis = RedisServer()
    log = tmp_path / "processes.log"
    processes: list[subprocess.Popen[bytes]] = []
    pg.start()
    redis.start()
    env = process_env(
        DATABASE_URL=pg.url,
        REDIS_URL=redis.url,
        SECRET_KEY="topology-drill-secret-key-not-for-production",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        CAIRN_DB_NAME=None,
        Q_WORKERS="1",
        CAIRN_WORK_SWEEP_SECONDS="1",
        CAIRN_WORK_LEASE_SECONDS="5",
        CAIRN_OFFLINE_WORD_DELAY="0",
        CAIRN_EMBEDDING_PROVIDER="tests.indexing.fakes.HashEmbeddingProvider",
    )
    try:
        setup = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", SETUP],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        )
        session, token, conversation = setup.stdout.split()[-3:]
        ports = [free_port(), free_port()]
        processes += [_start("web", env, log, port) for port in ports]
        processes.append(_start("worker", env, log))
        for port in ports:
            wait_for_port(port, timeout=120)
        yield Deployment(pg, redis, ports, log, f"sessionid={session}", token, conversation)
    finally:
        for process in processes:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
        redis.stop()
        with contextlib.suppress(RuntimeError):
            pg.discard()  # its folder too: left in /tmp by every run before


async def _socket_turn(d: Deployment, port: int, text: str) -> list[dict[str, Any]]:
    async with d.socket(port, f"/ws/chat/{d.conversation}/") as ws:
        await ws.send(json.dumps({"type": "message", "text": text}))
        events = []
        while True:
            event = json.loads(await asyncio.wait_for(ws.recv(), timeout=60))
            events.append(event)
            if event["type"] in ("done", "error") and event.get("code") != "provider":
                return events


async def _pong(ws: Any) -> bool:
    await ws.send(json.dumps({"type": "ping"}))
    while True:
        event = json.loads(await asyncio.wait_for(ws.recv(), timeout=30))
        if event["type"] == "pong":
            return True


async def _scenario(d: Deployment) -> None:
    a, b = d.web
    opened = time.monotonic()
    async with (
        d.socket(a, f"/ws/chat/{d.conversation}/") as idle_chat,
        d.socket(b, "/ws/events/") as events_on_b,
    ):
        assert json.loads(await events_on_b.recv())["type"] == "hello"

        # A turn on one web process
        turn = await _socket_turn(d, a, "The harbour master at Vis is called Ivana.")
        assert turn[0]["type"] == "ack"
        assert turn[-1]["type"] == "done"

        # An upload through the other; the worker indexes it and its progress reaches the
        # events socket on that process; search on the first finds it
        boundary = "cairn-drill"
        body = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="files"; '
            f'filename="ferry.txt"\r\nContent-Type: text/plain\r\n\r\n'
            "The ferry to Vis leaves Split at 9:15 every morning.\r\n"
            f"--{boundary}--\r\n"
        ).encode()
        status, _ = await asyncio.to_thread(
            d.http,
            b,
            "/api/v1/documents/",
            body,
            **{"Content-Type": f"multipart/form-data; boundary={boundary}"},
        )
        assert status == 201
        event = json.loads(await asyncio.wait_for(events_on_b.recv(), timeout=60))
        assert event["type"] != "hello"
        await asyncio.to_thread(
            d.wait_until,
            lambda: d.sql("SELECT status FROM indexing_document") == [("indexed",)],
            60,
            "the upload was not indexed",
        )
        status, found = await asyncio.to_thread(d.http, a, "/api/v1/search/?q=ferry+to+Vis")
        assert status == 200
        assert any("9:15" in hit["text"] for hit in found["results"]), found

        # PostgreSQL stopped: a turn is told it was not saved, and it is not
        d.pg.stop()
        status, refused = await asyncio.to_thread(d.rest_turn, a, "Lost to the outage?")
        assert (status, refused["saved"]) == (503, False)
        d.pg.start()
        assert not d.sql("SELECT 1 FROM chat_message WHERE content = 'Lost to the outage?'")
        after = await _socket_turn(d, b, "After the restart: the mooring costs 40 euros.")
        assert after[-1]["type"] == "done"

        # Redis stopped: a turn is saved and answered, and indexed once Redis is back
        d.redis.stop()
        status, saved = await asyncio.to_thread(d.rest_turn, a, "Redis is down; remember Komiža.")
        assert (status, saved["saved"]) == (201, True)
        d.redis.start()
        await asyncio.to_thread(
            d.wait_until,
            lambda: (
                d.sql(
                    "SELECT count(*) FROM chat_message m WHERE m.content <> '' AND NOT EXISTS "
                    "(SELECT 1 FROM indexing_chunk c WHERE c.message_id = m.id)"
                )
                == [(0,)]
            ),
            90,
            "messages saved during the outages were not all indexed",
        )

        # The sockets opened at the start, idle all along, still answer
        await asyncio.sleep(max(0.0, IDLE_SECONDS - (time.monotonic() - opened)))
        assert await _pong(idle_chat)
        assert await _pong(events_on_b)


@pytest.mark.redis
def test_two_web_processes_a_worker_and_their_faults(deployment: Deployment) -> None:
    asyncio.run(_scenario(deployment))

    d = deployment
    said = {
        "The harbour master at Vis is called Ivana.",
        "After the restart: the mooring costs 40 euros.",
        "Redis is down; remember Komiža.",
    }
    stored = {row[0] for row in d.sql("SELECT content FROM chat_message WHERE role = 'user'")}
    assert stored == said  # every turn told "saved", and nothing told "not saved"
    answers = d.sql("SELECT status FROM chat_message WHERE role = 'assistant'")
    assert answers == [("complete",)] * 3
    assert d.sql("SELECT count(*) FROM core_work WHERE state <> 'done'") == [(0,)]
