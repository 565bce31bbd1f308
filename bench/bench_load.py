"""Issue 8: load. N users at once, each with a conversation, over websockets and HTTP,
against a real uvicorn server (the offline provider, no word delay) on 127.0.0.1.

Reports turns per second, time to first delta and whole turns (p50 / p95 / p99), HTTP page
latency, errors, and the memory of each process (the ASGI server, and the django-q2
worker cluster running beside it as in `make run`), for N = 10, 50 and 200.

Run: .venv/bin/python bench/bench_load.py [--users 10 50 200] [--turns 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench import _django  # noqa: E402
from bench._server import free_port, start_qcluster, start_uvicorn, stop_group  # noqa: E402
from bench.bench_chat import _session_cookie  # noqa: E402
from bench.providers import summary  # noqa: E402

QUESTIONS = [
    "What do I prefer in the morning?",
    "my #1 city is Lisbon",
    "Remind me what I decided about the garden",
    "How is the marathon plan going?",
]


async def _user(
    port: int, cookie: str, conversation_id: str, turns: int, stats: dict[str, list[float]]
) -> None:
    import urllib.request

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
    parser.add_argument("--users", type=int, nargs="*", default=[10, 50, 200])
    parser.add_argument("--turns", type=int, default=3)
    args = parser.parse_args()
    _django.setup()
    for users in args.users:
        run_level(users, args.turns)


if __name__ == "__main__":
    main()
