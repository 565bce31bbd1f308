"""Load, as people bring it, on the deployments the README describes.

Issue 26 (the default): 50 chats × 3 turns at a person's pace (a turn every 2–8 s, drawn
from a fixed seed, so every deployment gets the same load) over websockets, each chat with
the events socket the page keeps open beside it, plus 5 clients calling
``/api/v1/search/`` with an API token in a loop, against

- ``two``: two uvicorn web processes and a separate ``manage.py qcluster`` worker, with
  REDIS_URL set (a redis-server of the benchmark's own on a free port): the scale-out;
- ``one``: one uvicorn and one qcluster, as ``make run`` runs them, on the same Redis;
- ``one-local`` (only when asked): the same without REDIS_URL (in-memory channel layer,
  ORM queue), as ``make run`` runs on a machine without Redis.

Chats and search clients are spread over the web processes; a chat's events socket is
on the other process than its chat socket, so every indexing event crosses processes.
All processes share the embedded database (bench/_django.py). Printed for each, side by
side with the ratio two / one:

- dropped sockets: chat or events sockets the server closed (target 0);
- lost messages: user messages (acked) and answers (done) the clients were told about
  that are not in the database afterwards, or not with that text (target 0);
- not indexed: once the ledger of work has nothing due or running, the messages that
  should have chunks (every user message, every complete answer) and have none (target 0);
- turn overhead: time from sending a message to its ``ack`` and to the first ``delta``
  (the offline provider, no word delay: what is measured is Cairn), p50 / p95;
- search latency, p50 / p95, and its errors.

Issue 8's figures (N users at once, as fast as they can, one process): ``--legacy``.

Run: .venv/bin/python bench/bench_load.py [--chats 50] [--turns 3] [--search-clients 5]
         [--topologies two one] [--seed 26]
     .venv/bin/python bench/bench_load.py --legacy [--users 10 50 200] [--turns 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench import _django  # noqa: E402
from bench._server import (  # noqa: E402
    free_port,
    start_qcluster,
    start_redis,
    start_uvicorn,
    stop_group,
)
from bench.bench_chat import _session_cookie  # noqa: E402
from bench.providers import summary  # noqa: E402

QUESTIONS = [
    "What do I prefer in the morning?",
    "my #1 city is Lisbon",
    "Remind me what I decided about the garden",
    "How is the marathon plan going?",
]
SEARCHES = ["morning workouts", "Lisbon", "garden decision", "marathon plan", "what I prefer"]
EMAIL_PREFIX = "loadchat-"
TOPOLOGIES = {
    # name: (web processes, with Redis)
    "two": (2, True),
    "one": (1, True),
    "one-local": (1, False),
}
LABELS = {
    "two": "2 web + worker, Redis",
    "one": "1 web + worker, Redis",
    "one-local": "1 web + worker, no Redis",
}


# Issue 26: a person's pace on a deployment


@dataclass
class Load:
    chats: int
    turns: int
    search_clients: int
    seed: int
    pace: tuple[float, float]
    drain_timeout: float


@dataclass
class Outcome:
    """What the clients saw, and what the database says afterwards."""

    ack_ms: list[float] = field(default_factory=list)
    first_ms: list[float] = field(default_factory=list)
    turn_ms: list[float] = field(default_factory=list)
    search_ms: list[float] = field(default_factory=list)
    search_errors: Counter[str] = field(default_factory=Counter)
    turn_errors: Counter[str] = field(default_factory=Counter)
    dropped: Counter[str] = field(default_factory=Counter)
    drop_reasons: Counter[str] = field(default_factory=Counter)
    turns_sent: int = 0
    turns_done: int = 0
    # Message id -> the text the client was told it has.
    told: dict[str, str] = field(default_factory=dict)
    wall_s: float = 0.0
    lost: int = 0
    lost_detail: list[str] = field(default_factory=list)
    should_index: int = 0
    not_indexed: int = 0
    drain_s: float = float("nan")
    drained: bool = False
    work_failed: int = 0
    memory_mb: float = 0.0


def _ws_headers(port: int, cookie: str) -> dict[str, str]:
    return {"Cookie": cookie, "Origin": f"http://127.0.0.1:{port}"}


async def _events(port: int, cookie: str, outcome: Outcome, stop: asyncio.Event) -> None:
    """The page's events socket, kept open (idle but for indexing events) while its chat
    runs; a close before ``stop`` is a dropped socket, after which it reconnects as the
    page does."""
    import websockets

    while not stop.is_set():
        try:
            async with websockets.connect(
                f"ws://127.0.0.1:{port}/ws/events/",
                additional_headers=_ws_headers(port, cookie),
                open_timeout=60,
            ) as ws:
                receiving = asyncio.ensure_future(_drain_socket(ws))
                stopping = asyncio.ensure_future(stop.wait())
                await asyncio.wait({receiving, stopping}, return_when=asyncio.FIRST_COMPLETED)
                if receiving.done():
                    stopping.cancel()
                    outcome.dropped["events"] += 1
                    outcome.drop_reasons[f"events: {_describe(receiving.exception())}"] += 1
                    await asyncio.sleep(1)
                else:
                    receiving.cancel()
        except (OSError, TimeoutError) as error:
            outcome.dropped["events"] += 1
            outcome.drop_reasons[f"events connect: {_describe(error)}"] += 1
            await asyncio.sleep(1)


async def _drain_socket(ws: Any) -> None:
    while True:
        await ws.recv()


def _describe(error: BaseException | None) -> str:
    if error is None:
        return "closed"
    rcvd = getattr(error, "rcvd", None)
    if rcvd is not None:
        return f"close code {rcvd.code}"
    return f"{type(error).__name__} ({error})"


async def _chat(
    index: int,
    ports: list[int],
    cookie: str,
    conversation_id: str,
    load: Load,
    outcome: Outcome,
) -> None:
    """One person: an events socket on one process, a chat socket on the other, and a turn
    every few seconds. A socket the server drops is counted and opened again (as the page
    does); the turn it carried is lost to the client, not necessarily to the database."""
    import websockets

    rng = random.Random(f"{load.seed}-{index}")
    port = ports[index % len(ports)]
    events_port = ports[(index + 1) % len(ports)]
    stop = asyncio.Event()
    events = asyncio.ensure_future(_events(events_port, cookie, outcome, stop))
    url = f"ws://127.0.0.1:{port}/ws/chat/{conversation_id}/"
    ws = None
    try:
        for turn in range(load.turns):
            await asyncio.sleep(rng.uniform(*load.pace))
            if ws is None:
                ws = await websockets.connect(
                    url,
                    max_size=None,
                    additional_headers=_ws_headers(port, cookie),
                    open_timeout=60,
                )
            text = f"{QUESTIONS[(index + turn) % len(QUESTIONS)]} (chat {index} turn {turn})"
            try:
                await _turn(ws, text, outcome)
            except websockets.ConnectionClosed as closed:
                outcome.dropped["chat"] += 1
                outcome.drop_reasons[f"chat: {_describe(closed)}"] += 1
                ws = None
            except TimeoutError:
                outcome.turn_errors["no answer in 120 s"] += 1
    except Exception as error:  # counted and reported, the run goes on
        outcome.turn_errors[f"client: {type(error).__name__}"] += 1
        print(f"  chat {index}: {type(error).__name__}: {error}", flush=True)
    finally:
        if ws is not None:
            await ws.close()  # a close of a socket already closed does nothing
        stop.set()
        await events


async def _turn(ws: Any, text: str, outcome: Outcome) -> None:
    outcome.turns_sent += 1
    start = time.perf_counter()
    await ws.send(json.dumps({"type": "message", "text": text}))
    first = None
    while True:
        event = json.loads(await asyncio.wait_for(ws.recv(), timeout=120))
        elapsed = (time.perf_counter() - start) * 1000
        if event["type"] == "ack":
            outcome.ack_ms.append(elapsed)
            outcome.told[event["message_id"]] = text
        elif event["type"] == "delta" and first is None:
            first = elapsed
            outcome.first_ms.append(elapsed)
        elif event["type"] == "error":
            outcome.turn_errors[event.get("code", "?")] += 1
            if event.get("code") not in ("cancelled", "provider"):
                return  # only an answer that failed or stopped is still followed by "done"
        elif event["type"] == "done":
            # The answer as saved, whatever its status: the page shows it as such.
            outcome.told[event["message"]["id"]] = event["message"]["content"]
            outcome.turn_ms.append(elapsed)
            outcome.turns_done += 1
            return


def _search_get(port: int, key: str, query: str) -> tuple[float, str | None]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/v1/search/?" + urllib.parse.urlencode({"q": query, "k": 10}),
        headers={"Authorization": f"Token {key}"},
    )
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            response.read()
            error = None if response.status == 200 else f"HTTP {response.status}"
    except urllib.error.HTTPError as failure:
        error = f"HTTP {failure.code}"
    except OSError as failure:
        error = type(failure).__name__
    return (time.perf_counter() - start) * 1000, error


async def _searcher(
    index: int, ports: list[int], key: str, outcome: Outcome, stop: asyncio.Event
) -> None:
    """A client of the API searching in a loop, as fast as it is answered, until the chats
    are over."""
    port = ports[index % len(ports)]
    n = 0
    while not stop.is_set():
        query = SEARCHES[(index + n) % len(SEARCHES)]
        elapsed, error = await asyncio.to_thread(_search_get, port, key, query)
        if error is None:
            outcome.search_ms.append(elapsed)
        else:
            outcome.search_errors[error] += 1
        n += 1


def _people(count: int, search_clients: int) -> list[tuple[str, str, str | None]]:
    """Fresh users, each with a claim and a conversation: (session cookie, conversation id,
    API token key for the first ``search_clients``)."""
    from apps.accounts.models import User
    from apps.accounts.services import api_token_create
    from apps.chat.services import conversation_create
    from apps.claims.services import claim_create

    User.objects.filter(email__startswith=EMAIL_PREFIX).delete()
    people = []
    for n in range(count):
        user = User.objects.create_user(email=f"{EMAIL_PREFIX}{n}@bench.invalid", password="x" * 12)
        claim_create(user=user, statement="I prefer morning workouts before work")
        key = api_token_create(user=user, name="bench")[1] if n < search_clients else None
        people.append((_session_cookie(user), str(conversation_create(user=user).id), key))
    return people


def _wait_until_ready(ports: list[int], keys: list[str], since: float) -> None:
    """Each web process answers a search (its embedding model loaded) and the worker has
    swept the ledger at its start (its heartbeat is newer than ``since``)."""
    from apps.core.models import WorkerBeat

    deadline = time.monotonic() + 120
    for port in ports:
        while True:
            _, error = _search_get(port, keys[0], "warm up")
            if error is None:
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"the web process on {port} does not answer: {error}")
            time.sleep(0.5)
    while not WorkerBeat.objects.filter(seen_at__gte=_from_timestamp(since)).exists():
        if time.monotonic() > deadline:
            raise RuntimeError("the worker did not start")
        time.sleep(0.5)


def _from_timestamp(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, tz=UTC)


def _drain(outcome: Outcome, timeout: float) -> None:
    """Wait until the ledger has nothing due or running (the worker caught up with every
    turn's indexing and extraction), up to ``timeout``."""
    from apps.core.models import OPEN_STATES, Work

    start = time.monotonic()
    while Work.objects.filter(state__in=OPEN_STATES).exists():
        if time.monotonic() - start > timeout:
            return
        time.sleep(0.5)
    outcome.drained = True
    outcome.drain_s = time.monotonic() - start


def _audit(outcome: Outcome, since: float) -> None:
    """Lost messages and messages left unindexed, read from the database."""
    from django.db.models import Exists, OuterRef

    from apps.chat.models import Message
    from apps.chat.pipeline.sources import without_footer
    from apps.core.models import Work, WorkState
    from apps.indexing.models import Chunk

    saved = dict(Message.objects.filter(pk__in=list(outcome.told)).values_list("pk", "content"))
    for message_id, text in outcome.told.items():
        content = saved.get(uuid.UUID(message_id))
        if content is None:
            outcome.lost_detail.append(f"{message_id}: missing")
        elif content != text:
            outcome.lost_detail.append(f"{message_id}: saved with another text")
    outcome.lost = len(outcome.lost_detail)

    messages = Message.objects.filter(conversation__user__email__startswith=EMAIL_PREFIX).annotate(
        chunked=Exists(Chunk.objects.filter(message_id=OuterRef("pk")))
    )
    for message in messages:
        wanted = message.role == Message.Role.USER or message.status == Message.Status.COMPLETE
        if wanted and without_footer(message.content).strip():
            outcome.should_index += 1
            outcome.not_indexed += not message.chunked
    outcome.work_failed = Work.objects.filter(
        state=WorkState.FAILED, created_at__gte=_from_timestamp(since)
    ).count()


def _rss_mb(processes: list[Any]) -> float:
    total = 0.0
    for process in processes:
        try:
            parent = psutil.Process(process.pid)
            for each in [parent, *parent.children(recursive=True)]:
                total += each.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return total / 2**20


def run_topology(name: str, load: Load, redis_url: str | None, logs: Path) -> Outcome:
    web_count, with_redis = TOPOLOGIES[name]
    people = _people(load.chats, max(1, load.search_clients))  # one token for the warm-up
    keys = [key for _, _, key in people if key is not None]
    env = {
        **os.environ,
        "CAIRN_DB_NAME": "cairn_bench",
        "ALLOWED_HOSTS": "127.0.0.1",
        "CAIRN_CHAT_RATE_LIMIT": "100000/60",
        "CAIRN_OFFLINE_WORD_DELAY": "0",
        "CAIRN_Q_SYNC": "false",
        "CAIRN_WARM_UP": "1",  # as `make run` serves: models loaded at start
    }
    if with_redis:
        assert redis_url is not None
        env["REDIS_URL"] = redis_url
    else:
        env.pop("REDIS_URL", None)
    outcome = Outcome()
    since = time.time() - 1
    worker = start_qcluster(env, log=logs / f"{name}-worker.log")
    servers: list[Any] = []
    try:
        ports = [free_port() for _ in range(web_count)]
        for n, port in enumerate(ports):
            servers.append(
                start_uvicorn("config.asgi:application", port, env, log=logs / f"{name}-web{n}.log")
            )
        _wait_until_ready(ports, keys, since)

        async def everyone() -> None:
            stop = asyncio.Event()
            searchers = [
                asyncio.ensure_future(_searcher(n, ports, key, outcome, stop))
                for n, key in enumerate(keys[: load.search_clients])
            ]
            await asyncio.gather(
                *(
                    _chat(n, ports, cookie, conversation_id, load, outcome)
                    for n, (cookie, conversation_id, _) in enumerate(people)
                )
            )
            outcome.memory_mb = _rss_mb([*servers, worker])
            stop.set()
            await asyncio.gather(*searchers)

        start = time.perf_counter()
        asyncio.run(everyone())
        outcome.wall_s = time.perf_counter() - start
        _drain(outcome, load.drain_timeout)
        _audit(outcome, since)
    finally:
        for server in servers:
            server.terminate()
        for server in servers:
            server.wait(timeout=30)
        stop_group(worker)
    return outcome


def _p(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _rows(outcome: Outcome) -> list[tuple[str, str, float | None]]:
    """(label, shown value, value whose ratio is shown)."""
    o = outcome
    searches = len(o.search_ms) + sum(o.search_errors.values())
    return [
        ("dropped sockets (target 0)", _dropped(o), None),
        ("lost messages (target 0)", f"{o.lost} of {len(o.told)}", None),
        ("not indexed after the run (target 0)", f"{o.not_indexed} of {o.should_index}", None),
        ("turns answered", f"{o.turns_done} of {o.turns_sent}", None),
        ("turn errors", _counts(o.turn_errors), None),
        ("ack ms p50", _ms(o.ack_ms, 0.5), _p(o.ack_ms, 0.5)),
        ("ack ms p95", _ms(o.ack_ms, 0.95), _p(o.ack_ms, 0.95)),
        ("first delta ms p50", _ms(o.first_ms, 0.5), _p(o.first_ms, 0.5)),
        ("first delta ms p95", _ms(o.first_ms, 0.95), _p(o.first_ms, 0.95)),
        ("whole turn ms p95", _ms(o.turn_ms, 0.95), _p(o.turn_ms, 0.95)),
        ("search ms p50", _ms(o.search_ms, 0.5), _p(o.search_ms, 0.5)),
        ("search ms p95", _ms(o.search_ms, 0.95), _p(o.search_ms, 0.95)),
        ("searches / s", f"{searches / o.wall_s:.1f}", searches / o.wall_s),
        ("search errors", _counts(o.search_errors), None),
        (
            "ledger drained in s after the run",
            f"{o.drain_s:.1f}" if o.drained else "not drained",
            None,
        ),
        ("failed work", str(o.work_failed), None),
        ("memory at the end MB", f"{o.memory_mb:.0f}", o.memory_mb),
        ("run s", f"{o.wall_s:.1f}", None),
    ]


def _ms(values: list[float], q: float) -> str:
    return f"{_p(values, q):.1f}" if values else "-"


def _dropped(outcome: Outcome) -> str:
    total = sum(outcome.dropped.values())
    if not total:
        return "0"
    return f"{total} ({_counts(outcome.dropped)})"


def _counts(counter: Counter[str]) -> str:
    if not counter:
        return "0"
    return ", ".join(f"{key} {value}" for key, value in counter.most_common())


def report(results: dict[str, Outcome], load: Load) -> None:
    names = list(results)
    print(
        f"\n{load.chats} chats × {load.turns} turns, a turn every {load.pace[0]:g}–"
        f"{load.pace[1]:g} s (seed {load.seed}), {load.search_clients} search clients",
        flush=True,
    )
    base = "one" if "one" in results else names[-1]
    others = [name for name in names if name != base]
    header = f"{'':<38}" + "".join(f"{LABELS[name]:>26}" for name in names)
    header += "".join(f"{'ratio ' + name + '/' + base:>20}" for name in others)
    print(header)
    table = {name: _rows(results[name]) for name in names}
    for row, (label, _, _) in enumerate(table[names[0]]):
        line = f"{label:<38}" + "".join(f"{table[name][row][1]:>26}" for name in names)
        for name in others:
            value, reference = table[name][row][2], table[base][row][2]
            known = value is not None and reference and not math.isnan(value / reference)
            ratio = f"{value / reference:.2f}" if known else ""
            line += f"{ratio:>20}"
        print(line)
    for name, outcome in results.items():
        for reason, count in outcome.drop_reasons.most_common():
            print(f"  {name}: dropped {count} × {reason}")
        for detail in outcome.lost_detail[:10]:
            print(f"  {name}: lost {detail}")
    print(flush=True)


def run_compare(load: Load, topologies: list[str]) -> None:
    logs = Path(tempfile.mkdtemp(prefix="bench-load-"))
    redis, redis_url = start_redis(logs)
    print(f"Redis of the bench's own: {redis_url}; process logs in {logs}", flush=True)
    results: dict[str, Outcome] = {}
    try:
        for name in topologies:
            print(f"== {LABELS[name]}", flush=True)
            results[name] = run_topology(name, load, redis_url, logs)
    finally:
        redis.terminate()
        redis.wait(timeout=10)
        from apps.accounts.models import User

        User.objects.filter(email__startswith=EMAIL_PREFIX).delete()
    report(results, load)


# Issue 8: N users at once, as fast as they can, against one process


async def _user(
    port: int, cookie: str, conversation_id: str, turns: int, stats: dict[str, list[float]]
) -> None:
    import websockets

    def page(path: str) -> float:
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}{path}", headers={"Cookie": cookie}
        )
        start = time.perf_counter()
        with urllib.request.urlopen(request, timeout=60) as response:
            response.read()
        return (time.perf_counter() - start) * 1000

    try:
        stats["http"].append(await asyncio.to_thread(page, f"/c/{conversation_id}/"))
        async with websockets.connect(
            f"ws://127.0.0.1:{port}/ws/chat/{conversation_id}/",
            max_size=None,
            additional_headers={"Cookie": cookie, "Origin": f"http://127.0.0.1:{port}"},
            open_timeout=60,
        ) as ws:
            for turn in range(turns):
                start = time.perf_counter()
                await ws.send(
                    json.dumps({"type": "message", "text": QUESTIONS[turn % len(QUESTIONS)]})
                )
                first = None
                while True:
                    event = json.loads(await asyncio.wait_for(ws.recv(), timeout=120))
                    if event["type"] == "delta" and first is None:
                        first = (time.perf_counter() - start) * 1000
                    elif event["type"] == "error" and event.get("code") != "cancelled":
                        stats["errors"].append(1)
                    elif event["type"] == "done":
                        break
                stats["first"].append(first or float("nan"))
                stats["turn"].append((time.perf_counter() - start) * 1000)
        stats["http"].append(await asyncio.to_thread(page, "/knowledge/"))
    except Exception as error:  # counted and reported, the run goes on
        stats["errors"].append(1)
        print(f"  error: {type(error).__name__}: {error}")


def run_level(users: int, turns: int) -> None:
    from apps.accounts.models import User
    from apps.chat.services import conversation_create
    from apps.claims.services import claim_create

    User.objects.filter(email__startswith="loaduser-").delete()
    sessions = []
    for n in range(users):
        user = User.objects.create_user(email=f"loaduser-{n}@bench.invalid", password="x" * 12)
        claim_create(user=user, statement="I prefer morning workouts before work")
        sessions.append((_session_cookie(user), str(conversation_create(user=user).id)))
    port = free_port()
    env = {
        **os.environ,
        "CAIRN_DB_NAME": "cairn_bench",
        "ALLOWED_HOSTS": "127.0.0.1",
        "CAIRN_CHAT_RATE_LIMIT": "100000/60",
        "CAIRN_OFFLINE_WORD_DELAY": "0",
        "CAIRN_Q_SYNC": "false",
        "CAIRN_WARM_UP": "1",  # as `make run` serves: models loaded at start
    }
    # The worker runs beside the server, as in `make run`: indexing and memory extraction
    # of every turn are queued to it and compete for the same two cores.
    worker = start_qcluster(env)
    server = None
    try:
        server = start_uvicorn("config.asgi:application", port, env)
        time.sleep(2)  # the warm-up (models, about a second) finishes before users arrive
        stats: dict[str, list[float]] = {"first": [], "turn": [], "http": [], "errors": []}
        start = time.perf_counter()

        async def everyone() -> None:
            await asyncio.gather(
                *(_user(port, cookie, cid, turns, stats) for cookie, cid in sessions)
            )

        asyncio.run(everyone())
        wall = time.perf_counter() - start
        done = len(stats["turn"])
        print(
            f"N={users:<4} {done} turns in {wall:.1f} s = {done / wall:.1f} turns/s, "
            f"errors {len(stats['errors'])}"
        )
        print(f"       memory (RSS)    {_memory(server.pid, worker.pid)}")
        print(f"       first delta ms  {summary(stats['first'])}")
        print(f"       whole turn ms   {summary(stats['turn'])}")
        print(f"       HTTP page ms    {summary(stats['http'])}")
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
        stop_group(worker)
        User.objects.filter(email__startswith="loaduser-").delete()


def _memory(server_pid: int, worker_pid: int) -> str:
    """Resident memory of each process: the ASGI server, and the django-q2 cluster's
    processes (its monitor, pusher and workers are children of the one started)."""
    parts = [f"server {psutil.Process(server_pid).memory_info().rss / 2**20:.0f} MB"]
    cluster = psutil.Process(worker_pid)
    processes = [cluster, *cluster.children(recursive=True)]
    sizes = sorted((p.memory_info().rss / 2**20 for p in processes), reverse=True)
    parts.append(
        f"worker cluster {len(sizes)} processes: "
        + ", ".join(f"{size:.0f}" for size in sizes)
        + f" MB (sum {sum(sizes):.0f} MB)"
    )
    return "; ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--legacy", action="store_true", help="issue 8's figures instead")
    parser.add_argument("--users", type=int, nargs="*", default=[10, 50, 200], help="--legacy")
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--chats", type=int, default=50)
    parser.add_argument("--search-clients", type=int, default=5)
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--pace", type=float, nargs=2, default=[2.0, 8.0], metavar=("MIN", "MAX"))
    parser.add_argument("--drain-timeout", type=float, default=600)
    parser.add_argument("--topologies", nargs="+", choices=list(TOPOLOGIES), default=["two", "one"])
    args = parser.parse_args()
    # The bench process itself reads and writes the database only; the processes it starts
    # get the Redis of its own (never the shared one a developer's shell may name).
    os.environ.pop("REDIS_URL", None)
    _django.setup()
    if args.legacy:
        for users in args.users:
            run_level(users, args.turns)
        return
    load = Load(
        chats=args.chats,
        turns=args.turns,
        search_clients=max(0, min(args.search_clients, args.chats)),
        seed=args.seed,
        pace=(args.pace[0], args.pace[1]),
        drain_timeout=args.drain_timeout,
    )
    run_compare(load, args.topologies)


if __name__ == "__main__":
    main()
