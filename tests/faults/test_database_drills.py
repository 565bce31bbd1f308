"""Database drills (issue 26): the site (uvicorn) runs against a standalone PostgreSQL
(tests/standalone_pg.py) that is stopped and restarted under it while a real websocket
client chats. What the page is told must match what the database holds: every message
told "saved" is there, every one that is not was told "not saved", and an answer whose
save met a restart is saved by the retry."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import pytest
import websockets

from tests.processes import ROOT, process_env, running_site
from tests.standalone_pg import StandalonePostgres, standalone_postgres

# The events that end a turn for the page.
FINAL_ERRORS = ("not_saved", "internal", "busy", "rate_limited", "empty", "invalid")

SETUP = """
import json
import uuid
from django.test import Client
from apps.accounts.services import api_token_create
from tests.factories import UserFactory
user = UserFactory(email=f"drill-{uuid.uuid4().hex}@example.com")
client = Client()
client.force_login(user)
cookie = client.cookies["sessionid"].value
_, token = api_token_create(user=user, name="drill")
print(json.dumps({"cookie": cookie, "token": token}))
"""


@dataclass
class Drill:
    pg: StandalonePostgres
    port: int
    cookie: str
    conversation: str
    log: Path
    token: str

    def socket(self) -> Any:
        return websockets.connect(
            f"ws://127.0.0.1:{self.port}/ws/chat/{self.conversation}/",
            additional_headers={
                "Cookie": f"sessionid={self.cookie}",
                "Origin": f"http://127.0.0.1:{self.port}",
            },
        )

    def post(self, text: str) -> tuple[int, dict[str, Any]]:
        """The REST turn, as an integration posts it: (status, body)."""
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/api/v1/conversations/{self.conversation}/messages/",
            data=json.dumps({"text": text}).encode(),
            headers={"Authorization": f"Token {self.token}", "Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=90) as response:  # noqa: S310
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def rows(self) -> list[tuple[str, str, str, str]]:
        """(id, role, status, content) of the conversation's messages, in order."""
        with psycopg.connect(self.pg.url) as connection:
            return [
                (str(row[0]), row[1], row[2], row[3])
                for row in connection.execute(
                    "SELECT id, role, status, content FROM chat_message "
                    'WHERE conversation_id = %s ORDER BY "order"',
                    [self.conversation],
                )
            ]


@dataclass
class Told:
    """What the page was told about one turn."""

    text: str
    events: list[dict[str, Any]] = field(default_factory=list)

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == kind]

    @property
    def saved(self) -> bool:
        """Told "saved": acknowledged, or told it was saved when the turn failed after."""
        return bool(self.of("ack")) or any(
            e["message"].startswith("Your message was saved") for e in self.of("error")
        )

    @property
    def not_saved(self) -> bool:
        return any(e.get("code") == "not_saved" for e in self.of("error"))


async def turn(ws: Any, text: str, timeout: float = 90) -> Told:
    told = Told(text=text)
    await ws.send(json.dumps({"type": "message", "text": text}))
    while True:
        event = json.loads(await asyncio.wait_for(ws.recv(), timeout=timeout))
        told.events.append(event)
        if event["type"] in ("done", "answer_unsaved"):
            return told
        if event["type"] == "error" and event["code"] in FINAL_ERRORS:
            return told


@dataclass
class Site:
    pg: StandalonePostgres
    port: int
    log: Path
    cookie: str
    token: str


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, migrated_postgres: Path) -> Iterator[Site]:
    """The standalone PostgreSQL, migrated, and the site on it: once for the drills."""
    root = tmp_path_factory.mktemp("drills")
    with standalone_postgres(root / "pg", copy_of=migrated_postgres) as pg:
        env = {**process_env(), "DATABASE_URL": pg.url}
        log = root / "site.log"
        with running_site(
            lifespan=False,
            log=log,
            DATABASE_URL=pg.url,
            REDIS_URL=None,  # the drill is the database's; Redis has its own
            CAIRN_OFFLINE_WORD_DELAY="0.05",
            CAIRN_CHAT_RATE_LIMIT="1000/60",
        ) as port:
            # The drills' user, logged in (made through Django on the standalone database:
            # the test's own database is not the site's).
            made = subprocess.run(
                [sys.executable, "manage.py", "shell", "-c", SETUP],
                cwd=ROOT,
                env=env,
                check=False,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert made.returncode == 0, made.stderr[-3000:]
            ids = json.loads(made.stdout.strip().splitlines()[-1])
            yield Site(pg, port, log, ids["cookie"], ids["token"])


@pytest.fixture
def drill(site: Site, request: pytest.FixtureRequest) -> Drill:
    """A conversation of its own for each drill, started through the API (a title makes
    it a new one), whose rows the drill reads."""
    request_new = urllib.request.Request(
        f"http://127.0.0.1:{site.port}/api/v1/conversations/",
        data=json.dumps({"title": request.node.name[:200]}).encode(),
        headers={"Authorization": f"Token {site.token}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request_new, timeout=60) as response:  # noqa: S310
        assert response.status == 201
        conversation = json.loads(response.read())["id"]
    return Drill(site.pg, site.port, site.cookie, conversation, site.log, site.token)


def test_a_ten_second_database_stop_never_says_saved_for_what_was_not(drill: Drill) -> None:
    told: list[Told] = []
    posted: list[tuple[int, dict[str, Any]]] = []

    async def scenario() -> None:
        async with drill.socket() as ws:
            told.append(await turn(ws, "Before the outage: the boat is blue."))
            await asyncio.to_thread(drill.pg.stop)
            stopped = time.monotonic()
            n = 0
            while time.monotonic() - stopped < 10:  # the outage: turns keep coming
                n += 1
                told.append(await turn(ws, f"During the outage, turn {n}: the oars are red."))
                await asyncio.sleep(0.5)
            # The REST turn, while the database is still down: 503, not saved, in words.
            posted.append(await asyncio.to_thread(drill.post, "REST during the outage."))
            await asyncio.to_thread(drill.pg.start)
            told.append(await turn(ws, "After the outage: where is the boat?"))
            posted.append(await asyncio.to_thread(drill.post, "REST after the outage."))
            # Answers kept as unsaved are saved now, as the page's "Save again" does.
            for unsaved in [e for t in told for e in t.of("answer_unsaved")]:
                await ws.send(json.dumps({"type": "save_answer", "id": unsaved["id"]}))
                while json.loads(await asyncio.wait_for(ws.recv(), 30))["type"] != "answer_saved":
                    pass

    asyncio.run(scenario())
    rows = drill.rows()
    saved_texts = {content for _, role, _, content in rows if role == "user"}
    saved_ids = {row_id for row_id, *_ in rows}
    for each in told:
        if each.saved:  # told "saved": it is there, and so is every answer told done
            assert each.text in saved_texts, each.events
            for done in each.of("done"):
                assert done["message"]["id"] in saved_ids
        else:  # not there: the page was told so, in words
            assert each.text not in saved_texts
            assert each.not_saved, each.events
            assert each.of("error")[0]["message"].startswith("Your message was not saved: ")
    assert sum(each.not_saved for each in told) >= 1  # the drill did meet the outage
    assert told[0].of("done")[0]["message"]["status"] == "complete"
    assert told[-1].of("done")[0]["message"]["status"] == "complete"
    (down_status, down), (up_status, up) = posted
    assert (down_status, down["saved"], down["code"]) == (503, False, "not_saved")
    assert down["detail"] == "Your message was not saved: the database could not be reached."
    assert "REST during the outage." not in saved_texts
    assert (up_status, up["saved"]) == (201, True)
    assert "REST after the outage." in saved_texts


def _wait_for_line(path: Path, text: str, *, after: int, timeout: float = 60) -> None:
    """Until ``text`` is written to the log past its first ``after`` bytes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with path.open("rb") as log:
            log.seek(after)
            if text.encode() in log.read():
                return
        time.sleep(0.05)
    raise AssertionError(f"{text!r} never appeared in {path}")


def test_a_restart_during_the_answers_save_is_ridden_out_by_the_retry(drill: Drill) -> None:
    logged = drill.log.stat().st_size  # the module's site logged the other drills too

    async def scenario() -> Told:
        async with drill.socket() as ws:
            told = Told(text="Tell me about the boat.")
            await ws.send(json.dumps({"type": "message", "text": told.text}))
            while True:
                event = json.loads(await asyncio.wait_for(ws.recv(), 90))
                told.events.append(event)
                if event["type"] == "delta":
                    break
            # The answer is streaming: the database goes down, and comes back only once a
            # save of the answer has failed (0.5 s later, as a quick restart would).
            await asyncio.to_thread(drill.pg.stop)
            await asyncio.to_thread(_wait_for_line, drill.log, "failed (try 1)", after=logged)
            await asyncio.sleep(0.5)
            await asyncio.to_thread(drill.pg.start)
            while told.events[-1]["type"] not in ("done", "answer_unsaved"):
                told.events.append(json.loads(await asyncio.wait_for(ws.recv(), 90)))
            return told

    told = asyncio.run(scenario())

    assert told.saved
    assert not told.of("answer_unsaved")
    done = told.of("done")[0]["message"]
    streamed = "".join(e["text"] for e in told.of("delta"))
    rows = drill.rows()
    assert [(role, status) for _, role, status, _ in rows] == [
        ("user", "complete"),
        ("assistant", "complete"),
    ]
    assert rows[1][0] == done["id"]
    assert streamed.strip()[:30] in rows[1][3]
