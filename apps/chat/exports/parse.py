"""Reading ChatGPT and Claude exports into ``ExportConversation``s, in the vendors'
documented shapes.

ChatGPT: ``conversations.json`` is a list of conversations, each a tree of ``mapping``
nodes (``parent``, ``children``, ``message`` with ``author.role``, ``content.parts`` and
``create_time`` in epoch seconds); the conversation as the user last saw it is the branch
that ends at ``current_node``. Claude: a list of conversations with ``chat_messages``
(``sender`` human / assistant, ``text`` and ``content`` blocks, ``created_at`` ISO times,
``attachments`` and ``files``).

Nothing is dropped silently: images, files, tool calls and other non-text parts become a
bracketed note in the message ("[image]", "[attached file: plan.pdf]").
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

ExportSource = Literal["chatgpt", "claude"]
MEMBER = "conversations.json"
MAX_MEMBER_BYTES = 1024 * 1024 * 1024  # a zip that claims more is refused before reading


class ExportError(ValueError):
    """The file is not an export Cairn can read; the message says why, in plain words."""


@dataclass(frozen=True)
class ExportMessage:
    external_id: str
    role: Literal["user", "assistant"]
    text: str
    created_at: datetime | None


@dataclass(frozen=True)
class ExportConversation:
    external_id: str
    title: str
    created_at: datetime | None
    messages: tuple[ExportMessage, ...]


@dataclass(frozen=True)
class ParsedExport:
    source: ExportSource
    conversations: tuple[ExportConversation, ...]

    @property
    def message_count(self) -> int:
        return sum(len(conversation.messages) for conversation in self.conversations)


def read_export(data: bytes) -> ParsedExport:
    """An export from the bytes of the zip or of ``conversations.json``."""
    if data[:4] == b"PK\x03\x04":
        data = _member(data)
    try:
        document = json.loads(data)
    except (ValueError, RecursionError) as error:
        raise ExportError(
            "This is not a ChatGPT or Claude export: conversations.json is not valid JSON."
        ) from error
    return parse_document(document)


def _member(data: bytes) -> bytes:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as error:
        raise ExportError("This zip file is damaged and cannot be opened.") from error
    with archive:
        members = [info for info in archive.infolist() if info.filename.split("/")[-1] == MEMBER]
        if not members:
            raise ExportError(
                "This zip has no conversations.json: upload the zip that ChatGPT or Claude "
                "e-mailed you (Settings → Data controls → Export data)."
            )
        member = min(members, key=lambda info: info.filename.count("/"))
        if member.file_size > MAX_MEMBER_BYTES:
            raise ExportError("conversations.json in this zip is larger than 1 GB.")
        return archive.read(member)


def parse_document(document: Any) -> ParsedExport:
    if isinstance(document, dict) and isinstance(document.get("conversations"), list):
        document = document["conversations"]
    if not isinstance(document, list):
        raise ExportError(
            "This is not a ChatGPT or Claude export: expected a list of conversations."
        )
    items = [item for item in document if isinstance(item, dict)]
    if not items:
        if document:
            raise ExportError("This is not a ChatGPT or Claude export.")
        return ParsedExport(source="chatgpt", conversations=())
    if all("mapping" in item for item in items):
        return ParsedExport("chatgpt", tuple(_chatgpt(item, i) for i, item in enumerate(items)))
    if all("chat_messages" in item for item in items):
        return ParsedExport("claude", tuple(_claude(item, i) for i, item in enumerate(items)))
    raise ExportError(
        "This is not a ChatGPT or Claude export: its conversations have neither ChatGPT's "
        "'mapping' nor Claude's 'chat_messages'."
    )


# ChatGPT


def _chatgpt(item: Mapping[str, Any], position: int) -> ExportConversation:
    raw_mapping = item.get("mapping")
    mapping: Mapping[str, Any] = raw_mapping if isinstance(raw_mapping, dict) else {}
    messages: list[ExportMessage] = []
    for node in _chatgpt_branch(mapping, item.get("current_node")):
        message = node.get("message")
        if not isinstance(message, dict):
            continue
        role = (message.get("author") or {}).get("role")
        metadata = message.get("metadata") or {}
        if role not in ("user", "assistant") or metadata.get(
            "is_visually_hidden_from_conversation"
        ):
            continue
        text = _chatgpt_text(message.get("content") or {}, metadata)
        if not text:
            continue
        messages.append(
            ExportMessage(
                external_id=str(message.get("id") or node.get("id") or len(messages)),
                role=role,
                text=text,
                created_at=_from_epoch(message.get("create_time")),
            )
        )
    return ExportConversation(
        external_id=str(item.get("conversation_id") or item.get("id") or f"chatgpt-{position}"),
        title=_title(item.get("title")),
        created_at=_from_epoch(item.get("create_time")),
        messages=tuple(messages),
    )


def _chatgpt_branch(mapping: Mapping[str, Any], current: object) -> list[Mapping[str, Any]]:
    """The nodes from the root to ``current_node`` (or, without one, to the last leaf of
    the first branch), in order; a cycle or a missing parent ends the walk."""
    if not isinstance(current, str) or current not in mapping:
        current = _last_leaf(mapping)
    branch: list[Mapping[str, Any]] = []
    seen: set[str] = set()
    while isinstance(current, str) and current in mapping and current not in seen:
        seen.add(current)
        node = mapping[current]
        if not isinstance(node, dict):
            break
        branch.append(node)
        current = node.get("parent")
    return branch[::-1]


def _last_leaf(mapping: Mapping[str, Any]) -> str | None:
    roots = [
        key for key, node in mapping.items() if isinstance(node, dict) and not node.get("parent")
    ]
    current = roots[0] if roots else None
    seen: set[str] = set()
    while current is not None and current not in seen:
        seen.add(current)
        children = (mapping.get(current) or {}).get("children") or []
        if not children:
            return current
        current = children[-1] if isinstance(children[-1], str) else None
    return current


def _chatgpt_text(content: Mapping[str, Any], metadata: Mapping[str, Any]) -> str:
    pieces: list[str] = []
    parts = content.get("parts")
    if isinstance(parts, list):
        for part in parts:
            if isinstance(part, str):
                if part.strip():
                    pieces.append(part)
            elif isinstance(part, dict):
                pieces.append(_note_for_part(part))
    elif isinstance(content.get("text"), str):  # code, execution output, reasoning recaps
        pieces.append(content["text"])
    elif content.get("content_type"):
        pieces.append(f"[{content['content_type']}]")
    for attachment in metadata.get("attachments") or ():
        if isinstance(attachment, dict):
            pieces.append(f"[attached file: {attachment.get('name') or 'unnamed'}]")
    return "\n\n".join(piece.strip() for piece in pieces if piece.strip())


def _note_for_part(part: Mapping[str, Any]) -> str:
    kind = str(part.get("content_type") or "attachment")
    if "image" in kind:
        return "[image]"
    if "audio" in kind:
        return "[audio]"
    if isinstance(part.get("text"), str):
        return part["text"]
    return f"[{kind}]"


# Claude


def _claude(item: Mapping[str, Any], position: int) -> ExportConversation:
    messages: list[ExportMessage] = []
    for index, message in enumerate(item.get("chat_messages") or ()):
        if not isinstance(message, dict):
            continue
        sender = message.get("sender")
        role: Literal["user", "assistant"] | None = (
            "user" if sender == "human" else "assistant" if sender == "assistant" else None
        )
        if role is None:
            continue
        text = _claude_text(message)
        if not text:
            continue
        messages.append(
            ExportMessage(
                external_id=str(message.get("uuid") or f"{position}-{index}"),
                role=role,
                text=text,
                created_at=_from_iso(message.get("created_at")),
            )
        )
    return ExportConversation(
        external_id=str(item.get("uuid") or f"claude-{position}"),
        title=_title(item.get("name")),
        created_at=_from_iso(item.get("created_at")),
        messages=tuple(messages),
    )


def _claude_text(message: Mapping[str, Any]) -> str:
    pieces: list[str] = []
    blocks = message.get("content")
    if isinstance(blocks, list) and blocks:
        for block in blocks:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                pieces.append(block["text"])
            elif kind == "tool_use":
                pieces.append(f"[tool use: {block.get('name') or 'a tool'}]")
            elif kind == "tool_result":
                pieces.append("[tool result]")
            elif kind:
                pieces.append(f"[{kind}]")
    elif isinstance(message.get("text"), str):
        pieces.append(message["text"])
    for key in ("attachments", "files"):
        for attachment in _dicts(message.get(key)):
            pieces.append(f"[attached file: {attachment.get('file_name') or 'unnamed'}]")
    return "\n\n".join(piece.strip() for piece in pieces if piece.strip())


def _dicts(value: object) -> Iterable[Mapping[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


# Shared


def _title(value: object) -> str:
    return " ".join(str(value).split())[:200] if value else ""


def _from_epoch(value: object) -> datetime | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        moment = datetime.fromtimestamp(float(value), tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return moment if 1990 <= moment.year <= 2200 else None


def _from_iso(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment if 1990 <= moment.year <= 2200 else None
