"""Peak memory of the worker's reading of an export against its size (issue 29).

Exports of generated ChatGPT conversations, with the bulky per-message metadata real ones
carry, are written to disk as zips of 1 MB to a few hundred MB of ``conversations.json``
(streamed: the generator holds one conversation at a time). A child process then does
what the worker does with one (count the conversations, then read each), and reports its
resident memory before reading and at its peak while reading (VmHWM, reset first).
"""

from __future__ import annotations

import gc
import json
import os
import random
import subprocess
import sys
import time
import zipfile
from pathlib import Path

MB = 1024 * 1024
WORDS = [
    "the",
    "sail",
    "harbour",
    "anchor",
    "wind",
    "plan",
    "route",
    "coast",
    "island",
    "weather",
    "crew",
    "boat",
    "dinner",
    "morning",
    "question",
    "answer",
    "code",
    "python",
    "error",
    "function",
    "table",
    "list",
    "idea",
]


def _conversation(rng: random.Random, index: int) -> dict[str, object]:
    mapping: dict[str, dict[str, object]] = {
        "root": {"id": "root", "parent": None, "children": [], "message": None}
    }
    parent = "root"
    for number in range(rng.choice((4, 10, 20, 40, 80))):
        node = f"{index}-{number}"
        text = " ".join(rng.choice(WORDS) for _ in range(rng.choice((8, 30, 120, 400))))
        mapping[parent]["children"] = [node]
        mapping[node] = {
            "id": node,
            "parent": parent,
            "children": [],
            "message": {
                "id": node,
                "author": {
                    "role": "user" if number % 2 == 0 else "assistant",
                    "name": None,
                    "metadata": {},
                },
                "create_time": 1_714_550_400.0 + index * 3600 + number * 30,
                "update_time": None,
                "content": {"content_type": "text", "parts": [text]},
                "status": "finished_successfully",
                "end_turn": True,
                "weight": 1.0,
                "metadata": {
                    "citations": [],
                    "content_references": [],
                    "message_type": None,
                    "model_slug": "gpt-4o",
                    "default_model_slug": "gpt-4o",
                    "parent_id": parent,
                    "request_id": f"{rng.getrandbits(64):016x}-{number}",
                    "finish_details": {"type": "stop", "stop_tokens": [200002]},
                    "is_complete": True,
                    "timestamp_": "absolute",
                },
                "recipient": "all",
                "channel": None,
            },
        }
        parent = node
    return {
        "title": f"Chat {index}",
        "create_time": 1_714_550_400.0 + index * 3600,
        "update_time": 1_714_550_400.0 + index * 3600 + 600,
        "mapping": mapping,
        "moderation_results": [],
        "current_node": parent,
        "plugin_ids": None,
        "conversation_id": f"conv-{index}",
        "conversation_template_id": None,
        "id": f"conv-{index}",
    }


def write_export(path: Path, size: int, seed: int = 7) -> tuple[int, int]:
    """A zip whose conversations.json is about ``size`` bytes: (its size, conversations)."""
    rng = random.Random(seed)
    written = count = 0
    with (
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive,
        archive.open("conversations.json", "w", force_zip64=True) as member,
    ):
        member.write(b"[")
        while written < size:
            data = json.dumps(_conversation(rng, count)).encode()
            member.write(data if count == 0 else b"," + data)
            written += len(data) + 1
            count += 1
        member.write(b"]")
    return written + 1, count


def _status_mb(field: str) -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def _reset_peak() -> None:
    """Linux resets the peak resident size (VmHWM) when 5 is written to clear_refs."""
    with open("/proc/self/clear_refs", "w") as clear_refs:
        clear_refs.write("5")


def child(path: str) -> None:
    """What the worker does with an export, reported as JSON on stdout."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    import django

    django.setup()
    from apps.chat.exports.parse import ParsedConversation, count_conversations, iter_export

    gc.collect()
    _reset_peak()
    before = _status_mb("VmRSS")
    start = time.perf_counter()
    with open(path, "rb") as handle:
        total = count_conversations(handle)
        messages = parsed = 0
        for item in iter_export(handle):
            if isinstance(item, ParsedConversation):
                parsed += 1
                messages += len(item.conversation.messages)
    seconds = time.perf_counter() - start
    peak = _status_mb("VmHWM")
    print(
        json.dumps(
            {
                "before": before,
                "peak": peak,
                "total": total,
                "parsed": parsed,
                "messages": messages,
                "seconds": seconds,
            }
        )
    )


def memory_table(sizes_mb: list[float], directory: Path) -> None:
    print(
        f"{'conversations.json':>18} {'zip':>9} {'conversations':>13} {'messages':>9} "
        f"{'RSS before':>10} {'peak RSS':>9} {'growth':>8} {'count+read':>10}"
    )
    for size_mb in sizes_mb:
        path = directory / f"export-{size_mb:g}mb.zip"
        size, _ = write_export(path, int(size_mb * MB))
        run = subprocess.run(
            [sys.executable, __file__, path], capture_output=True, text=True, check=True
        )
        figures = json.loads(run.stdout.strip().splitlines()[-1])
        print(
            f"{size / MB:15.1f} MB {path.stat().st_size / MB:6.1f} MB {figures['total']:13,} "
            f"{figures['messages']:9,} {figures['before']:7.0f} MB {figures['peak']:6.0f} MB "
            f"{figures['peak'] - figures['before']:5.0f} MB "
            f"{size / MB / figures['seconds']:5.1f} MB/s",
            flush=True,
        )
        path.unlink()


def _hostile_files(directory: Path) -> dict[str, Path]:
    """The shapes of issue 29's probe, each after one ordinary conversation."""
    first = json.dumps(_conversation(random.Random(1), 0)).encode()
    pieces: dict[str, list[bytes]] = {
        "3 million {}": [b"[", first, b",{}" * 3_000_000, b"]"],
        "200 KiB of white space": [b"[", b" " * 200 * 1024, first, b" " * 200 * 1024, b"]"],
        "one 300 MB string": [
            b"[",
            first,
            b',{"title": "x", "mapping": {"a": {"message": {"content": {"parts": ["',
            *([b"y" * MB] * 300),
            b'"]}}}}}]',
        ],
        "nested 1 million deep": [
            b"[",
            first,
            b',{"mapping": ',
            b"[" * 1_000_000,
            b"]" * 1_000_000,
            b"}]",
        ],
        "100,000 messages": [b"[", json.dumps(_long(100_000)).encode(), b",", first, b"]"],
    }
    paths = {}
    for name, parts in pieces.items():
        # Bare JSON, as the upload accepts it too: zipped, most are refused as bombs.
        path = directory / f"hostile-{len(paths)}.json"
        with path.open("wb") as member:
            for part in parts:
                member.write(part)
        paths[name] = path
    return paths


def _long(messages: int) -> dict[str, object]:
    conversation = _conversation(random.Random(2), 1)
    mapping: dict[str, object] = {}
    parent = None
    for number in range(messages):
        node = f"n{number}"
        mapping[node] = {
            "id": node,
            "parent": parent,
            "children": [f"n{number + 1}"] if number + 1 < messages else [],
            "message": {
                "id": node,
                "author": {"role": "user"},
                "content": {"content_type": "text", "parts": ["hello there"]},
            },
        }
        parent = node
    conversation.update(mapping=mapping, current_node=parent)
    return conversation


def hostile_table(directory: Path) -> None:
    """The worker's peak reading each hostile shape, as bare ``conversations.json`` (as
    zips the upload refuses all but two as bombs)."""
    print(
        f"{'hostile conversations.json':<28} {'RSS before':>10} {'peak RSS':>9} {'growth':>8}  read"
    )
    for name, path in _hostile_files(directory).items():
        run = subprocess.run(
            [sys.executable, __file__, path], capture_output=True, text=True, check=True
        )
        figures = json.loads(run.stdout.strip().splitlines()[-1])
        print(
            f"{name:<28} {figures['before']:7.0f} MB {figures['peak']:6.0f} MB "
            f"{figures['peak'] - figures['before']:5.0f} MB  {figures['total']} conversations, "
            f"{figures['parsed']} stored",
            flush=True,
        )
        path.unlink()


if __name__ == "__main__":
    child(sys.argv[1])
