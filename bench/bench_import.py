"""Indexing of an imported chat history against the raw embedder (issue 16: ratio ≥ 0.8).

A ChatGPT export of generated conversations (short and long turns, as people chat) is
imported as the Import page does it: ``chat_import_create`` queues the import to a real
``manage.py qcluster`` (started as ``make run`` starts it, warmed up first), which stores
the conversations and queues their messages for indexing, a few hundred per task. Timed
from the moment storing is done until the import is searchable: messages indexed per
second. In the same
run the raw provider embeds the same message texts alone. The rounds rotate which goes
first, so that load from other processes falls on both alike.

Then (issue 29) the worker's peak memory reading exports of 1 MB to a few hundred MB
(``bench/_import_memory.py``: a child process counts and reads each, as the task does), a
table that should show it flat.

Run: .venv/bin/python bench/bench_import.py [--conversations 90] [--messages 40] [--rounds 3]
     [--memory-sizes 1,10,100,300] [--skip-indexing] [--skip-memory]
Uses the database cairn_bench (never the dev one).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import _django
from bench._import_memory import hostile_table, memory_table
from bench._server import start_qcluster, stop_group
from bench.bench_indexing import sentence

TARGET_RATIO = 0.8


def export(
    rng: random.Random, conversations: int, messages: int, tag: str
) -> tuple[bytes, list[str]]:
    """A ChatGPT export (zip) and the texts of its messages, in order."""
    items, texts = [], []
    start = 1_714_550_400.0
    for c in range(conversations):
        mapping: dict[str, dict[str, object]] = {
            "root": {"id": "root", "parent": None, "children": [], "message": None}
        }
        parent = "root"
        for m in range(messages):
            node = f"{tag}-{c}-{m}"
            words = " ".join(sentence(rng) for _ in range(rng.choice((1, 1, 2, 3, 6))))
            texts.append(words)
            mapping[parent]["children"] = [node]  # type: ignore[index]
            mapping[node] = {
                "id": node,
                "parent": parent,
                "children": [],
                "message": {
                    "id": node,
                    "author": {"role": "user" if m % 2 == 0 else "assistant"},
                    "create_time": start + c * 3600 + m * 30,
                    "content": {"content_type": "text", "parts": [words]},
                    "metadata": {},
                },
            }
            parent = node
        items.append(
            {
                "title": f"Chat {tag} {c}",
                "create_time": start,
                "mapping": mapping,
                "current_node": parent,
                "conversation_id": f"{tag}-{c}",
            }
        )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("conversations.json", json.dumps(items))
    return buffer.getvalue(), texts


def import_by_worker(user: object, data: bytes, timeout: float = 900) -> tuple[float, float, int]:
    """(seconds storing, seconds from stored to searchable, messages indexed)."""
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.db import transaction

    from apps.chat.exports.store import chat_import_create
    from apps.chat.models import ChatImport
    from apps.projects.services import project_ensure_personal

    with transaction.atomic():
        chat_import = chat_import_create(
            user=user,  # type: ignore[arg-type]
            project=project_ensure_personal(user=user),  # type: ignore[arg-type]
            upload=SimpleUploadedFile("export.zip", data),
        )
    queued = time.perf_counter()
    deadline = time.monotonic() + timeout
    stored_at = None
    while True:
        row = ChatImport.objects.get(pk=chat_import.pk)
        now = time.perf_counter()
        if stored_at is None and row.status in (ChatImport.Status.INDEXING, ChatImport.Status.DONE):
            stored_at = now
        if row.status == ChatImport.Status.DONE:
            assert stored_at is not None
            return stored_at - queued, now - stored_at, row.messages_indexed
        if row.status == ChatImport.Status.FAILED:
            raise RuntimeError(row.error)
        if time.monotonic() > deadline:
            raise RuntimeError("the worker did not finish the import in time")
        time.sleep(0.02)


def units_settled(user: object, timeout: float = 900) -> tuple[float, int]:
    """(seconds until the follow-up work an import left, its turns' memory units, is done;
    the units written): after the import is searchable, the worker still builds them."""
    from apps.core.models import OPEN_STATES, Work
    from apps.indexing.models import MemoryUnit

    start = time.perf_counter()
    deadline = time.monotonic() + timeout
    while Work.objects.filter(state__in=OPEN_STATES).exists():
        if time.monotonic() > deadline:
            raise RuntimeError("the worker did not build the units in time")
        time.sleep(0.05)
    units = MemoryUnit.objects.filter(user_id=user.pk).count()  # type: ignore[attr-defined]
    return time.perf_counter() - start, units


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--conversations", type=int, default=90)
    parser.add_argument("--messages", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2, help="Q_WORKERS (make run's: 2)")
    parser.add_argument("--memory-sizes", default="1,10,100,300", help="MB of conversations.json")
    parser.add_argument("--skip-indexing", action="store_true")
    parser.add_argument("--skip-memory", action="store_true")
    options = parser.parse_args()
    if not options.skip_indexing:
        indexing(options)
    if not options.skip_memory:
        print("\nPeak memory of the worker reading an export (a child process: count, then read)")
        with tempfile.TemporaryDirectory() as directory:
            memory_table([float(size) for size in options.memory_sizes.split(",")], Path(directory))
            print("\nPeak memory of the worker reading the hostile shapes of issue 29")
            hostile_table(Path(directory))


def indexing(options: argparse.Namespace) -> None:
    _django.setup(sync_jobs=False)

    from django_q.brokers import get_broker

    from apps.accounts.models import User
    from apps.indexing.embeddings import get_embedding_provider

    provider = get_embedding_provider()
    rng = random.Random(7)
    provider.embed_documents([sentence(rng) for _ in range(256)])  # load and warm the model
    get_broker().purge_queue()
    worker = start_qcluster(
        {
            **os.environ,
            "CAIRN_DB_NAME": "cairn_bench",
            "CAIRN_Q_SYNC": "false",
            "Q_WORKERS": str(options.workers),
        }
    )
    totals = {
        "raw": 0.0, "worker": 0.0, "store": 0.0, "messages": 0.0, "indexed": 0.0,
        "units": 0.0, "units_time": 0.0,
    }  # fmt: skip
    try:
        User.objects.filter(email__endswith="@import-bench.invalid").delete()
        warm, _ = export(random.Random(1), 4, 10, "warm")
        warm_user = User.objects.create(email="warm@import-bench.invalid")
        import_by_worker(warm_user, warm, timeout=180)
        units_settled(warm_user)
        print(
            f"{options.rounds} rounds of {options.conversations} conversations × "
            f"{options.messages} messages; worker: qcluster with {options.workers} worker "
            f"processes, {get_broker().info()} broker",
            flush=True,
        )
        for index in range(options.rounds):
            data, texts = export(rng, options.conversations, options.messages, f"r{index}")
            user = User.objects.create(email=f"round{index}@import-bench.invalid")

            def run_raw(texts: list[str] = texts) -> float:
                start = time.perf_counter()
                provider.embed_documents(texts)
                return time.perf_counter() - start

            # Each phase alone: the units of a round are built before the next phase
            # starts (they are timed apart, after the import is searchable).
            if index % 2 == 0:
                raw = run_raw()
                store, indexing, indexed = import_by_worker(user, data)
                units_time, units = units_settled(user)
            else:
                store, indexing, indexed = import_by_worker(user, data)
                units_time, units = units_settled(user)
                raw = run_raw()
            totals["units"] += units
            totals["units_time"] += units_time
            totals["raw"] += raw
            totals["worker"] += indexing
            totals["store"] += store
            totals["messages"] += len(texts)
            totals["indexed"] += indexed
            print(
                f"  round {index}: {len(texts)} messages  raw embedder {raw:6.2f} s  "
                f"stored in {store:6.2f} s  indexed in {indexing:6.2f} s  "
                f"(ratio {raw / indexing:4.2f}); then {units} memory units in "
                f"{units_time:5.2f} s",
                flush=True,
            )
    finally:
        stop_group(worker)
        User.objects.filter(email__endswith="@import-bench.invalid").delete()
    raw_rate = totals["messages"] / totals["raw"]
    rate = totals["indexed"] / totals["worker"]
    ratio = rate / raw_rate
    print(f"{'raw embedder (same message texts)':<46} {raw_rate:7.1f} messages/s")
    print(
        f"{'import, indexed by the worker':<46} {rate:7.1f} messages/s  "
        f"indexed {int(totals['indexed'])}/{int(totals['messages'])}  ratio {ratio:4.2f}  "
        f"target ≥ {TARGET_RATIO}  {'OK' if ratio >= TARGET_RATIO else 'UNDER'}"
    )
    print(
        f"{'memory units, built after searchable':<46} "
        f"{totals['units'] / max(totals['units_time'], 1e-9):7.1f} units/s  "
        f"{totals['units']:.0f} units, {totals['units_time']:.1f} s after "
        f"{totals['worker']:.1f} s of indexing"
    )
    print(
        f"{'import, stored (parse + write)':<46} "
        f"{totals['messages'] / totals['store']:7.1f} messages/s"
    )


if __name__ == "__main__":
    main()
