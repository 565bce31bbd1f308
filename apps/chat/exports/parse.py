"""Reading ChatGPT and Claude exports into ``ExportConversation``s, in the vendors'
documented shapes, one conversation at a time (``iter_export``).

ChatGPT: ``conversations.json`` is a list of conversations, each a tree of ``mapping``
nodes (``parent``, ``children``, ``message`` with ``author.role``, ``content.parts`` and
``create_time`` in epoch seconds); the conversation as the user last saw it is the branch
that ends at ``current_node``. Claude: a list of conversations with ``chat_messages``
(``sender`` human / assistant, ``text`` and ``content`` blocks, ``created_at`` ISO times,
``attachments`` and ``files``).

Nothing is dropped silently: images, files, tool calls and other non-text parts become a
bracketed note in the message ("[image]", "[attached file: plan.pdf]"), and a conversation
that cannot be stored as it is (a field of the wrong type, text PostgreSQL refuses, past a
bound of size) is skipped with the reason in words, never an exception.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, BinaryIO, Literal

from django.core.files import File

from apps.core.validation import text_problem

from .archive import open_member
from .stream import ExportError, ItemStream, RawItem

__all__ = ["ExportError", "count_conversations", "iter_export"]

ExportSource = Literal["chatgpt", "claude"]
SkipKind = Literal["shape", "text", "size"]
MAX_ID_CHARS = 200  # Conversation.external_id and Message.external_id


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
class ParsedConversation:
    index: int  # in the export, from 0
    source: ExportSource
    conversation: ExportConversation


@dataclass(frozen=True)
class SkippedConversation:
    index: int
    title: str
    reason: str
    kind: SkipKind  # "shape": not what ChatGPT or Claude write (a foreign file, at first)

    def describe(self) -> str:
        """'conversation 3 (“Trip plans”): a message's author is not an object'"""
        named = f" (“{self.title}”)" if self.title else ""
        return f"conversation {self.index + 1}{named}: {self.reason}"

    def as_record(self) -> dict[str, object]:
        return {"index": self.index, "title": self.title, "reason": self.reason}


ExportItem = ParsedConversation | SkippedConversation


def iter_export(handle: BinaryIO | File, *, start: int = 0) -> Iterator[ExportItem]:
    """The conversations of an export (its zip or ``conversations.json``), from the one
    numbered ``start``; raises ExportError only for a file that cannot be read on."""
    with open_member(handle) as stream:
        for raw in ItemStream(stream, start=start):
            yield conversation_read(raw)


def count_conversations(handle: BinaryIO | File) -> int:
    """How many conversations the export holds, read past without being built."""
    with open_member(handle) as stream:
        return sum(1 for _ in ItemStream(stream, build=False))


class _Invalid(Exception):
    pass


def conversation_read(raw: RawItem) -> ExportItem:
    title = _safe_title(raw.title)
    if raw.problem:
        return SkippedConversation(
            raw.index, title, raw.problem, "shape" if raw.foreign else "size"
        )
    item = raw.value
    if not isinstance(item, dict):
        return SkippedConversation(raw.index, "", "it is not an object", "shape")
    title = _safe_title(item.get("title") if "mapping" in item else item.get("name"))
    try:
        if "mapping" in item:
            source: ExportSource = "chatgpt"
            conversation = _chatgpt(item, raw.index)
        elif "chat_messages" in item:
            source = "claude"
            conversation = _claude(item, raw.index)
        else:
            raise _Invalid("it has neither ChatGPT's 'mapping' nor Claude's 'chat_messages'")
    except _Invalid as invalid:
        return SkippedConversation(raw.index, title, str(invalid), "shape")
    problem = _text_problem(conversation)
    if problem:
        return SkippedConversation(raw.index, title, problem, "text")
    return ParsedConversation(raw.index, source, conversation)


def _text_problem(conversation: ExportConversation) -> str | None:
    """What the site's input guard refuses in the text that would be stored."""
    fields = [("its title", conversation.title), ("its id", conversation.external_id)]
    for number, message in enumerate(conversation.messages, start=1):
        fields += [
            (f"message {number}'s id", message.external_id),
            (f"message {number}", message.text),
        ]
    for name, value in fields:
        problem = text_problem(value)
        if problem:
            return f"{name}: {problem}"
    return None


def _safe_title(value: object) -> str:
    if not isinstance(value, str):
        return ""
    title = _title(value)
    return "" if text_problem(title) else title


# Types, checked where they are read


def _object(value: object, what: str, *, required: bool = False) -> Mapping[str, Any]:
    if value is None and not required:
        return {}
    if not isinstance(value, dict):
        raise _Invalid(f"{what} is not an object")
    return value


def _list(value: object, what: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise _Invalid(f"{what} is not a list")
    return value


def _text(value: object, what: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise _Invalid(f"{what} is not text")


def _id(value: object, what: str) -> str | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise _Invalid(f"{what} is not text")
    text = str(value)
    if len(text) > MAX_ID_CHARS:
        raise _Invalid(f"{what} is longer than {MAX_ID_CHARS} characters")
    return text


# ChatGPT


def _chatgpt(item: Mapping[str, Any], position: int) -> ExportConversation:
    mapping = _object(item.get("mapping"), "its mapping")
    for node in mapping.values():
        node = _object(node, "a node of its mapping", required=True)
        if not all(
            isinstance(child, str) for child in _list(node.get("children"), "a node's children")
        ):
            raise _Invalid("a node's children are not all ids")
        if node.get("parent") is not None and not isinstance(node.get("parent"), str):
            raise _Invalid("a node's parent is not an id")
        if node.get("message") is not None:
            _object(node["message"], "a message")
    messages: list[ExportMessage] = []
    for node in _chatgpt_branch(mapping, _text(item.get("current_node"), "its current_node")):
        message = node.get("message")
        if message is None:
            continue
        role = _object(message.get("author"), "a message's author").get("role")
        metadata = _object(message.get("metadata"), "a message's metadata")
        content = _object(message.get("content"), "a message's content")
        if role not in ("user", "assistant") or metadata.get(
            "is_visually_hidden_from_conversation"
        ):
            continue
        text = _chatgpt_text(content, metadata)
        if not text:
            continue
        messages.append(
            ExportMessage(
                external_id=_id(message.get("id"), "a message's id")
                or _id(node.get("id"), "a node's id")
                or str(len(messages)),
                role=role,
                text=text,
                created_at=_from_epoch(message.get("create_time")),
            )
        )
    return ExportConversation(
        external_id=_id(item.get("conversation_id"), "its conversation_id")
        or _id(item.get("id"), "its id")
        or f"chatgpt-{position}",
        title=_title(_text(item.get("title"), "its title")),
        created_at=_from_epoch(item.get("create_time")),
        messages=tuple(messages),
    )


def _chatgpt_branch(mapping: Mapping[str, Any], current: str | None) -> list[Mapping[str, Any]]:
    """The nodes from the root to ``current_node`` (or, without one, to the last leaf of
    the first branch), in order; a cycle or a missing parent ends the walk."""
    walk: object = current if current in mapping else _last_leaf(mapping)
    branch: list[Mapping[str, Any]] = []
    seen: set[str] = set()
    while isinstance(walk, str) and walk in mapping and walk not in seen:
        seen.add(walk)
        node = mapping[walk]
        branch.append(node)
        walk = node.get("parent")
    return branch[::-1]


def _last_leaf(mapping: Mapping[str, Any]) -> str | None:
    roots = [key for key, node in mapping.items() if not node.get("parent")]
    current = roots[0] if roots else None
    seen: set[str] = set()
    while current is not None and current not in seen:
        seen.add(current)
        children = (mapping.get(current) or {}).get("children") or []
        if not children:
            return current
        current = children[-1]
    return current


def _chatgpt_text(content: Mapping[str, Any], metadata: Mapping[str, Any]) -> str:
    pieces: list[str] = []
    parts = _list(content.get("parts"), "a message's parts")
    if parts:
        for part in parts:
            if isinstance(part, str):
                if part.strip():
                    pieces.append(part)
            elif isinstance(part, dict):
                pieces.append(_note_for_part(part))
    elif isinstance(content.get("text"), str):  # code, execution output, reasoning recaps
        pieces.append(content["text"])
    elif isinstance(content.get("content_type"), str) and content["content_type"]:
        pieces.append(f"[{content['content_type']}]")
    for attachment in _list(metadata.get("attachments"), "a message's attachments"):
        name = _object(attachment, "an attachment", required=True).get("name")
        pieces.append(f"[attached file: {name if isinstance(name, str) and name else 'unnamed'}]")
    return "\n\n".join(piece.strip() for piece in pieces if piece.strip())


def _note_for_part(part: Mapping[str, Any]) -> str:
    kind = part.get("content_type")
    kind = kind if isinstance(kind, str) and kind else "attachment"
    if "image" in kind:
        return "[image]"
    if "audio" in kind:
        return "[audio]"
    if isinstance(part.get("text"), str):
        return str(part["text"])
    return f"[{kind}]"


# Claude


def _claude(item: Mapping[str, Any], position: int) -> ExportConversation:
    messages: list[ExportMessage] = []
    for index, message in enumerate(_list(item.get("chat_messages"), "its chat_messages")):
        message = _object(message, "a message", required=True)
        sender = message.get("sender")
        role: Literal["user", "assistant"] | None = (
            "user" if sender == "human" else "assistant" if sender == "assistant" else None
        )
        text = _claude_text(message)
        if role is None or not text:
            continue
        messages.append(
            ExportMessage(
                external_id=_id(message.get("uuid"), "a message's uuid") or f"{position}-{index}",
                role=role,
                text=text,
                created_at=_from_iso(message.get("created_at")),
            )
        )
    return ExportConversation(
        external_id=_id(item.get("uuid"), "its uuid") or f"claude-{position}",
        title=_title(_text(item.get("name"), "its name")),
        created_at=_from_iso(item.get("created_at")),
        messages=tuple(messages),
    )


def _claude_text(message: Mapping[str, Any]) -> str:
    pieces: list[str] = []
    blocks = _list(message.get("content"), "a message's content")
    if blocks:
        for block in blocks:
            block = _object(block, "a block of a message's content", required=True)
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                pieces.append(block["text"])
            elif kind == "tool_use":
                name = block.get("name")
                pieces.append(f"[tool use: {name if isinstance(name, str) and name else 'a tool'}]")
            elif kind == "tool_result":
                pieces.append("[tool result]")
            elif isinstance(kind, str) and kind:
                pieces.append(f"[{kind}]")
    else:
        pieces.append(_text(message.get("text"), "a message's text") or "")
    for key, what in (("attachments", "attachments"), ("files", "files")):
        for attachment in _list(message.get(key), f"a message's {what}"):
            name = _object(attachment, "an attachment", required=True).get("file_name")
            pieces.append(
                f"[attached file: {name if isinstance(name, str) and name else 'unnamed'}]"
            )
    return "\n\n".join(piece.strip() for piece in pieces if piece.strip())


# Shared


def _title(value: str | None) -> str:
    return " ".join(value.split())[:200] if value else ""


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
