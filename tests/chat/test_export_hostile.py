"""Hostile history imports (issue 29): every zip shape refused at upload with its reason,
every wrong-typed field a 400 when it is the first conversation and a skipped, reported
conversation when it is a later one, NUL and lone surrogates skipped, and huge shapes read
in bounded memory. Every file is generated here (zipfile, json)."""

from __future__ import annotations

import copy
import io
import json
import struct
import tracemalloc
import zipfile
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.chat.exports import reading, stream
from apps.chat.exports.parse import (
    ParsedConversation,
    SkippedConversation,
    count_conversations,
    iter_export,
)
from apps.chat.models import ChatImport, Conversation
from apps.core.models import Work
from tests.chat.test_exports import chatgpt_export, claude_export

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fake_provider")]
from tests.indexing.conftest import fake_provider  # noqa: E402, F401 - fixture


def zip_bytes(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, data in members.items():
            archive.writestr(zipfile.ZipInfo(name), data, compress_type=method)
    return buffer.getvalue()


def patched(data: bytes, *, local: tuple[int, bytes], central: tuple[int, bytes]) -> bytes:
    """The zip with bytes replaced in its (first) local header and central directory entry."""
    out = bytearray(data)
    for signature, (offset, value) in ((b"PK\x03\x04", local), (b"PK\x01\x02", central)):
        at = data.index(signature) + offset
        out[at : at + len(value)] = value
    return bytes(out)


def export_json(document: Any = None) -> bytes:
    return json.dumps(chatgpt_export() if document is None else document).encode()


def encrypted() -> bytes:
    data = zip_bytes({"conversations.json": export_json()})
    flag = struct.pack("<H", 0x1)
    return patched(data, local=(6, flag), central=(8, flag))


def unknown_method() -> bytes:
    data = zip_bytes({"conversations.json": export_json()}, zipfile.ZIP_STORED)
    method = struct.pack("<H", 99)
    return patched(data, local=(8, method), central=(10, method))


def bad_crc() -> bytes:
    data = zip_bytes({"conversations.json": export_json()}, zipfile.ZIP_STORED)
    at = data.index(b"Dalmatian")
    return data[:at] + b"Dalmatiax" + data[at + 9 :]


def bomb() -> bytes:
    body = b"[" + export_json()[1:-1] + b"," + b"{}," * 2_000_000 + b"{}]"
    return zip_bytes({"conversations.json": body})


ZIP_SHAPES: dict[str, tuple[Callable[[], bytes], str]] = {
    "bomb": (bomb, "zip bomb"),
    "encrypted": (encrypted, "encrypted"),
    "unknown method": (unknown_method, "method Cairn cannot read"),
    "bad CRC": (bad_crc, "checksum"),
    "parent traversal": (
        lambda: zip_bytes({"../conversations.json": export_json()}),
        "unsafe name",
    ),
    "absolute name": (
        lambda: zip_bytes({"/export/conversations.json": export_json(), "a": b"{}"}),
        "unsafe name",
    ),
    "no conversations.json": (
        lambda: zip_bytes({"chat.html": b"<html></html>"}),
        "no conversations.json",
    ),
    "damaged zip": (lambda: b"PK\x03\x04" + b"\x00" * 200, "damaged"),
    "not JSON inside": (
        lambda: zip_bytes({"conversations.json": b"<html>"}),
        "not valid JSON",
    ),
    "no conversations": (lambda: zip_bytes({"conversations.json": b"[]"}), "no conversations"),
    "nested deep": (
        lambda: zip_bytes({"conversations.json": b"[" * 5000 + b"]" * 5000}),
        "nested more than 64 levels deep",
    ),
}


def upload_api(client: APIClient, data: bytes, name: str = "export.zip") -> Any:
    return client.post(
        "/api/v1/imports/", {"file": SimpleUploadedFile(name, data)}, format="multipart"
    )


def upload_page(client: Client, data: bytes, name: str = "export.zip") -> Any:
    page = client.get("/imports/")
    return client.post(
        "/imports/",
        {
            "file": SimpleUploadedFile(name, data),
            "project": str(page.context["form"].initial["project"]),
        },
    )


@pytest.mark.parametrize("shape", ZIP_SHAPES)
def test_a_hostile_zip_is_a_400_naming_file_with_the_reason(
    shape: str, token_client: APIClient, client: Client, user: User
) -> None:
    make, words = ZIP_SHAPES[shape]
    data = make()

    response = upload_api(token_client, data)
    client.force_login(user)
    page = upload_page(client, data)

    assert response.status_code == 400, response.content
    assert words in " ".join(response.json()["file"])
    assert page.status_code == 200
    assert words in page.content.decode()
    assert ChatImport.objects.count() == 0


def test_a_zip_that_unpacks_past_the_setting_is_refused(
    token_client: APIClient, settings: Any
) -> None:
    settings.CAIRN_IMPORT_MAX_UNCOMPRESSED_BYTES = 1000

    response = upload_api(token_client, zip_bytes({"conversations.json": export_json()}))

    assert response.status_code == 400
    assert "unpacks to more than" in response.json()["file"][0]


def set_in(document: list[dict[str, Any]], path: list[Any], value: Any) -> None:
    target: Any = document
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value


# (vendor, path inside the conversation, value, reason)
WRONG_TYPES: dict[str, tuple[str, list[Any], Any, str]] = {
    "author as text": (
        "chatgpt",
        ["mapping", "u2", "message", "author"],
        "user",
        "a message's author is not an object",
    ),
    "metadata as a list": (
        "chatgpt",
        ["mapping", "u2", "message", "metadata"],
        ["a"],
        "a message's metadata is not an object",
    ),
    "children as an object": (
        "chatgpt",
        ["mapping", "u2", "children"],
        {"a2": True},
        "a node's children is not a list",
    ),
    "attachments a number": (
        "chatgpt",
        ["mapping", "u2", "message", "metadata", "attachments"],
        5,
        "a message's attachments is not a list",
    ),
    "message as a list": (
        "chatgpt",
        ["mapping", "u2", "message"],
        [1],
        "a message is not an object",
    ),
    "mapping as a list": ("chatgpt", ["mapping"], [], "its mapping is not an object"),
    "message id over 200 characters": (
        "chatgpt",
        ["mapping", "u2", "message", "id"],
        "m" * 201,
        "a message's id is longer than 200 characters",
    ),
    "conversation id over 200 characters": (
        "chatgpt",
        ["conversation_id"],
        "c" * 201,
        "its conversation_id is longer than 200 characters",
    ),
    "title as an object": ("chatgpt", ["title"], {"x": 1}, "its title is not text"),
    "Claude chat_messages a number": (
        "claude",
        ["chat_messages"],
        5,
        "its chat_messages is not a list",
    ),
    "Claude content block a number": (
        "claude",
        ["chat_messages", 0, "content"],
        [7],
        "a block of a message's content is not an object",
    ),
    "Claude files an object": (
        "claude",
        ["chat_messages", 1, "files"],
        {"a": 1},
        "a message's files is not a list",
    ),
}


def vendor_export(vendor: str) -> list[dict[str, Any]]:
    """Two conversations of the vendor's shape, the second named "Trip plans"."""
    first = (chatgpt_export() if vendor == "chatgpt" else claude_export())[0]
    second = copy.deepcopy(first)
    if vendor == "chatgpt":
        second.update(title="Trip plans", conversation_id="c-trip")
    else:
        second.update(name="Trip plans", uuid="cl-trip")
        for number, message in enumerate(second["chat_messages"]):
            message["uuid"] = f"cm-trip-{number}"
    return [first, second]


@pytest.mark.parametrize("case", WRONG_TYPES)
def test_a_wrong_type_in_the_first_conversation_is_a_400_on_both_doors(
    case: str, token_client: APIClient, client: Client, user: User
) -> None:
    vendor, path, value, reason = WRONG_TYPES[case]
    document = vendor_export(vendor)
    set_in(document, [0, *path], value)
    data = zip_bytes({"conversations.json": json.dumps(document).encode()})

    response = upload_api(token_client, data)
    client.force_login(user)
    page = upload_page(client, json.dumps(document).encode(), "conversations.json")

    assert response.status_code == 400
    assert reason in response.json()["file"][0]
    assert "conversation 1" in response.json()["file"][0]
    assert reason.replace("'", "&#x27;") in page.content.decode()
    assert ChatImport.objects.count() == 0


@pytest.mark.parametrize("case", WRONG_TYPES)
def test_a_wrong_type_in_a_later_conversation_skips_it_and_stores_the_rest(
    case: str,
    token_client: APIClient,
    user: User,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    vendor, path, value, reason = WRONG_TYPES[case]
    document = vendor_export(vendor)
    set_in(document, [1, *path], value)
    with django_capture_on_commit_callbacks(execute=True):
        response = upload_api(
            token_client, zip_bytes({"conversations.json": json.dumps(document).encode()})
        )

    assert response.status_code == 202
    status = token_client.get(f"/api/v1/imports/{response.json()['id']}/").json()
    assert status["status"] == "done"
    assert (status["conversations_total"], status["conversations_done"]) == (2, 2)
    assert status["conversations_skipped"] == 1
    (skipped,) = status["skipped"]
    assert skipped["index"] == 1
    assert skipped["reason"] == reason
    assert skipped["title"] in ("Trip plans", "")
    assert Conversation.objects.filter(user=user).count() == 1


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("tea\x00time", "NUL character"),
        ("half \ud800 a pair", "unpaired surrogate"),
        ("low \udfff alone", "unpaired surrogate"),
    ],
)
def test_nul_and_lone_surrogates_skip_their_conversation_and_are_reported(
    text: str,
    reason: str,
    token_client: APIClient,
    client: Client,
    user: User,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    document = vendor_export("chatgpt") + vendor_export("chatgpt")[1:]
    document[2].update(conversation_id="c-third", title="Third")
    document[1]["mapping"]["u2"]["message"]["content"]["parts"] = [text]
    data = json.dumps(document).encode()  # ensure_ascii: "\u0000", "\ud800" escapes
    with django_capture_on_commit_callbacks(execute=True):
        response = upload_api(token_client, zip_bytes({"conversations.json": data}))

    status = token_client.get(f"/api/v1/imports/{response.json()['id']}/").json()
    assert status["status"] == "done"
    assert status["conversations_skipped"] == 1
    assert status["skipped"][0]["title"] == "Trip plans"
    assert reason in status["skipped"][0]["reason"]
    assert sorted(Conversation.objects.filter(user=user).values_list("external_id", flat=True)) == [
        "c-sailing",
        "c-third",
    ]
    client.force_login(user)
    listing = client.get("/imports/").content.decode()
    assert "1 of 3 conversations skipped: conversation 2 (“Trip plans”): message 3" in listing


def test_bytes_that_are_not_utf8_skip_only_their_conversation() -> None:
    document = vendor_export("chatgpt")
    document[1]["mapping"]["u2"]["message"]["content"]["parts"] = ["BROKEN"]
    data = json.dumps(document).encode().replace(b"BROKEN", b"caf\xe9")

    items = list(iter_export(io.BytesIO(data)))

    assert isinstance(items[0], ParsedConversation)
    assert isinstance(items[1], SkippedConversation)
    assert "unpaired surrogate" in items[1].reason


# Huge shapes: read in bounded memory (tracemalloc's peak, not a time)


def conversation(
    index: int, messages: int = 2, text: str = "hello", *, bulky: bool = True
) -> dict[str, Any]:
    mapping: dict[str, Any] = {
        "root": {"id": "root", "parent": None, "children": [], "message": None}
    }
    parent = "root"
    for number in range(messages):
        node = f"n{number}"
        mapping[parent]["children"] = [node]
        mapping[node] = {
            "id": node,
            "parent": parent,
            "children": [],
            "message": {
                "id": f"m{index}-{number}",
                "author": {"role": "user" if number % 2 == 0 else "assistant"},
                "content": {"content_type": "text", "parts": [text]},
                "metadata": {"bulky": ["x" * 50] * 4} if bulky else {},
            },
        }
        parent = node
    return {
        "title": f"Chat {index}",
        "conversation_id": f"c{index}",
        "mapping": mapping,
        "current_node": parent,
    }


def write_export(path: Path, pieces: Iterator[bytes]) -> Path:
    with path.open("wb") as out:
        for piece in pieces:
            out.write(piece)
    return path


def peak_reading(path: Path) -> tuple[int, list[Any], Counter[str]]:
    """Tracemalloc's peak while the export is read, its first items (index, kind, reason)
    and how many of each kind it held."""
    seen: list[Any] = []
    kinds: Counter[str] = Counter()
    tracemalloc.start()
    try:
        with path.open("rb") as handle:
            for item in iter_export(handle):
                kinds[type(item).__name__] += 1
                if len(seen) < 10:
                    seen.append((item.index, type(item).__name__, getattr(item, "reason", "")))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, seen, kinds


MB = 1024 * 1024


def test_many_empty_objects_are_each_skipped_in_bounded_memory(tmp_path: Path) -> None:
    def pieces() -> Iterator[bytes]:
        yield b"[" + json.dumps(conversation(0)).encode()
        for _ in range(300):
            yield b",{}" * 1000
        yield b"]"

    peak, seen, kinds = peak_reading(write_export(tmp_path / "empties.json", pieces()))

    assert kinds == {"ParsedConversation": 1, "SkippedConversation": 300_000}
    assert seen[1][2] == "it has neither ChatGPT's 'mapping' nor Claude's 'chat_messages'"
    assert peak < 4 * MB  # the same for 3,000 or 300,000


def test_white_space_a_giant_string_and_deep_nesting_are_read_in_bounded_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reading, "MAX_VALUE_BYTES", 4 * MB)

    def pieces() -> Iterator[bytes]:
        yield b"[" + b" " * 200 * 1024 + json.dumps(conversation(0)).encode() + b","
        yield b'{"title": "Giant", "mapping": {"a": {"message": {"content": {"parts": ["'
        for _ in range(24):
            yield b"y" * MB  # 24 MB of one string
        yield b'"]}}}}},'
        yield b'{"title": "Deep", "mapping": ' + b"[" * 200_000 + b"]" * 200_000 + b"},"
        yield json.dumps(conversation(3)).encode() + b"]"

    peak, seen, _ = peak_reading(write_export(tmp_path / "hostile.json", pieces()))

    assert seen == [
        (0, "ParsedConversation", ""),
        (1, "SkippedConversation", "it holds a single value larger than 4 MB"),
        (2, "SkippedConversation", "it is nested more than 64 levels deep"),
        (3, "ParsedConversation", ""),
    ]
    assert peak < 16 * MB


def test_a_conversation_of_100000_messages_is_skipped_in_bounded_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stream, "MAX_MESSAGES", 1_000)

    def pieces() -> Iterator[bytes]:
        yield b"[" + json.dumps(conversation(0, messages=100_000, bulky=False)).encode()
        yield b"," + json.dumps(conversation(1)).encode() + b"]"

    path = write_export(tmp_path / "long.json", pieces())
    peak, seen, _ = peak_reading(path)

    assert seen == [
        (0, "SkippedConversation", "it has more than 1,000 messages"),
        (1, "ParsedConversation", ""),
    ]
    assert peak < 8 * MB  # of a 21 MB file: 1,000 messages kept before the bound
    with path.open("rb") as handle:
        assert count_conversations(handle) == 2


def test_a_conversation_larger_than_the_bound_is_skipped_and_the_next_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reading, "MAX_CONVERSATION_BYTES", 2 * MB)
    big = conversation(1, messages=20, text="z" * 200_000)
    big["title"] = "Big one"
    data = json.dumps([conversation(0), big, conversation(2)]).encode()

    items = list(iter_export(io.BytesIO(data)))

    assert [type(item).__name__ for item in items] == [
        "ParsedConversation",
        "SkippedConversation",
        "ParsedConversation",
    ]
    assert isinstance(items[1], SkippedConversation)
    assert items[1].describe() == "conversation 2 (“Big one”): it is larger than 2 MB"
    assert [item.index for item in iter_export(io.BytesIO(data), start=2)] == [2]


def test_a_file_damaged_half_way_fails_with_the_place_it_broke() -> None:
    data = json.dumps([conversation(0), conversation(1)]).encode()
    broken = data[: data.index(b'"Chat 1"')] + b"\x01 nonsense"

    items = iter_export(io.BytesIO(broken))
    first = next(items)

    assert isinstance(first, ParsedConversation)
    with pytest.raises(stream.ExportError, match="damaged after conversation 1"):
        next(items)


@pytest.mark.parametrize("shift", range(0, 14))
def test_escapes_split_across_reads_are_read_whole(shift: int) -> None:
    """A surrogate pair (an emoji) is kept and a lone surrogate found wherever the 64 KiB
    reads cut them."""

    def document(escape: bytes) -> bytes:
        """The escape beginning ``shift`` bytes before the end of the first read."""
        template = json.dumps([conversation(0, text="PAD")]).encode()
        pad = stream.READ_BYTES - shift - template.index(b"PAD")
        return template.replace(b"PAD", b"p" * pad + escape + b"\\\\ end")

    emoji = document(b"\\ud83d\\ude00")
    lone = document(b"\\ud800")
    assert emoji[stream.READ_BYTES - shift : stream.READ_BYTES - shift + 2] == b"\\u"

    (kept,) = list(iter_export(io.BytesIO(emoji)))
    (skipped,) = list(iter_export(io.BytesIO(lone)))

    assert isinstance(kept, ParsedConversation)
    assert kept.conversation.messages[0].text.endswith("p\U0001f600\\ end")
    assert isinstance(skipped, SkippedConversation)
    assert "unpaired surrogate" in skipped.reason


def test_a_thousand_skipped_conversations_are_counted_and_the_first_hundred_listed(
    token_client: APIClient,
    client: Client,
    user: User,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    data = b"[" + json.dumps(conversation(0)).encode() + b",{}" * 1000 + b"]"
    with django_capture_on_commit_callbacks(execute=True):
        response = upload_api(token_client, data, "conversations.json")

    status = token_client.get(f"/api/v1/imports/{response.json()['id']}/").json()
    assert status["status"] == "done"
    assert (status["conversations_total"], status["conversations_done"]) == (1001, 1001)
    assert status["conversations_skipped"] == 1000
    assert len(status["skipped"]) == 100
    assert status["skipped"][0] == {
        "index": 1,
        "title": "",
        "reason": "it has neither ChatGPT's 'mapping' nor Claude's 'chat_messages'",
    }
    # Skipped conversations cost no writes of their own: one task stores the one that is not.
    storing = Work.objects.filter(
        group=f"import:{response.json()['id']}", task="apps.chat.exports.tasks.chat_import_run"
    )
    assert storing.count() == 1
    client.force_login(user)
    assert "1000 of 1001 conversations skipped: conversation 2: it has neither" in (
        client.get("/imports/").content.decode()
    )
