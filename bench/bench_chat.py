"""Issue 7: the platform's own cost per chat turn, and many conversations at once.

1. Overhead per turn, from the websocket receiving a message to the first delta, with a
   zero-latency provider, for a user with 10,000 claims and 100,000 chunks (the first
   user of bench_search.py's data; without it, bench_knowledge.py's 10,000 claims):
   target p95 ≤ 60 ms. In process, through the real consumer.
2. 100 concurrent websocket conversations streaming 200 deltas each through a real
   uvicorn server on 127.0.0.1: every delta arrives, in order; the latency Cairn adds
   per delta (client receipt − provider emission) is reported.

Run: .venv/bin/python bench/bench_chat.py [--clients 100] [--deltas 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench import _django  # noqa: E402
from bench._server import free_port, start_uvicorn  # noqa: E402

# What the measured turns ask, in turn (bench/turn_phases.py asks the same).
QUESTIONS = (
    "What do I prefer for breakfast?",
    "Plan my garden budget #42",
    "How is my marathon training going?",
    "my #1 crypto is BTC",
    "Remind me about the piano lessons",
    "What did I decide about the server?",
)


def _session_cookie(user) -> str:  # type: ignore[no-untyped-def]
    from django.test import Client

    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


async def _overhead(user, conversation, turns: int) -> list[float]:  # type: ignore[no-untyped-def]
    from channels.testing import WebsocketCommunicator
    from django.conf import settings

    from apps.chat import consumers
    from bench.providers import InstantProvider
    from config.asgi import application

    settings.CAIRN_CHAT_RATE_LIMIT = "100000/60"  # measuring the turn, not the limiter
    consumers.provider_for_running_loop = lambda _answerer=None: InstantProvider(5)  # type: ignore[assignment]
    cookie = await asyncio.to_thread(_session_cookie, user)
    ws = WebsocketCommunicator(
        application,
        f"/ws/chat/{conversation.id}/",
        headers=[(b"origin", b"http://localhost"), (b"cookie", cookie.encode())],
    )
    assert (await ws.connect())[0]
    samples = []
    for turn in range(turns):
        start = time.perf_counter()
        await ws.send_json_to({"type": "message", "text": QUESTIONS[turn % len(QUESTIONS)]})
        while (event := await ws.receive_json_from(timeout=60))["type"] != "delta":
            if event["type"] == "error":
                raise RuntimeError(event)
        samples.append((time.perf_counter() - start) * 1000)
        while (await ws.receive_json_from(timeout=30))["type"] != "done":
            pass
    await ws.disconnect()
    return samples


async def _one_client(
    port: int, cookie: str, conversation_id: str, deltas: int
) -> tuple[list[float], bool, float]:
    import websockets

    latencies: list[float] = []
    async with websockets.connect(
        f"ws://127.0.0.1:{port}/ws/chat/{conversation_id}/",
        max_size=None,
        additional_headers={"Cookie": cookie, "Origin": f"http://127.0.0.1:{port}"},
    ) as ws:
        start = time.perf_counter()
        await ws.send(json.dumps({"type": "message", "text": "Stream me a long answer"}))
        expected = 0
        in_order = True
        while True:
            event = json.loads(await ws.recv())
            if event["type"] == "delta":
                from bench.providers import parse_delta

                index, sent = parse_delta(event["text"])
                in_order &= index == expected
                expected += 1
                latencies.append((time.time() - sent) * 1000)
            elif event["type"] == "done":
                break
        return latencies, in_order and expected == deltas, time.perf_counter() - start


async def _concurrent(port: int, sessions: list[tuple[str, str]], deltas: int) -> None:
    from bench.providers import summary

    start = time.perf_counter()
    results = await asyncio.gather(
        *(_one_client(port, cookie, cid, deltas) for cookie, cid in sessions)
    )
    wall = time.perf_counter() - start
    complete = sum(1 for _, ok, _ in results if ok)
    latencies = [value for lats, _, _ in results for value in lats]
    turns = [seconds * 1000 for _, _, seconds in results]
    print(
        f"{len(sessions)} conversations x {deltas} deltas: {complete}/{len(sessions)} "
        f"complete and in order, {len(latencies):,} deltas received "
        f"(expected {len(sessions) * deltas:,}) in {wall:.1f} s"
    )
    print(f"  added latency per delta (ms)   {summary(latencies)}")
    print(f"  whole turn (ms)                {summary(turns)}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--deltas", type=int, default=200)
    parser.add_argument("--turns", type=int, default=60)
    args = parser.parse_args()
    _django.setup(sync_jobs=False)
    from apps.accounts.models import User
    from apps.chat.services import conversation_create
    from bench import bench_knowledge
    from bench.search_data import USERS as SEARCH_USERS
    from bench.search_data import data_ready

    # The account: 10,000 claims and 100,000 chunks (bench_search.py's first user,
    # whose chunks are in its Personal project, where the conversation is created).
    if data_ready():
        owner = User.objects.get(email=SEARCH_USERS[0])
        label = "10,000 claims, 100,000 chunks"
    else:
        print("bench_search.py's data is not built: measuring on 10,000 claims, no chunks")
        owner_email = f"bench{bench_knowledge.USERS // 2}@example.com"
        if not User.objects.filter(email=owner_email).exists():
            bench_knowledge.main()
        owner = User.objects.get(email=owner_email)
        label = "10,000 claims"
    conversation = conversation_create(user=owner, title="overhead bench")
    try:
        samples = asyncio.run(_overhead(owner, conversation, args.turns))
    finally:
        # The account is bench_search.py's too: its turns would be indexed by the next
        # worker (bench_import.py's) and change what later runs search.
        conversation.delete()
    _django.report(f"turn overhead to first delta ({label})", samples[5:], 60)

    User.objects.filter(email__startswith="load-").delete()
    sessions = []
    for n in range(args.clients):
        user = User.objects.create_user(email=f"load-{n}@bench.invalid", password="x" * 12)
        sessions.append((_session_cookie(user), str(conversation_create(user=user).id)))
    port = free_port()
    env = {
        **os.environ,
        "BENCH_DELTAS": str(args.deltas),
        "CAIRN_DB_NAME": "cairn_bench",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "CAIRN_CHAT_RATE_LIMIT": "1000/60",
        "CAIRN_Q_SYNC": "false",
    }
    server = start_uvicorn("bench.asgi_bench:application", port, env)
    try:
        asyncio.run(_concurrent(port, sessions, args.deltas))
    finally:
        server.terminate()
        server.wait(timeout=20)
        User.objects.filter(email__startswith="load-").delete()


if __name__ == "__main__":
    main()
