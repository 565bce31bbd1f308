"""``conversations.json`` read one conversation at a time, in memory bounded whatever the
file's shape (issue 29: a 9 KiB zip of three million ``{}`` cost a worker 212 MB).

ijson (yajl, in C) turns the bytes (``reading.Reader``) into events; each conversation is
built from them keeping only the fields Cairn reads (``CONVERSATION``), so ChatGPT's bulky
metadata costs nothing. A conversation past a bound (messages, nesting, size of one value
or of the whole) is given back as a problem in words instead; when yajl itself would have
to hold it (one huge string, nesting thousands deep) the parser is stopped, the byte
scanner (``reading.boundary``) finds where the next conversation begins, and a fresh
parser goes on from there.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

import ijson

from .reading import READ_BYTES, ExportError, Reader, Trip, boundary, mb, restore

__all__ = ["READ_BYTES", "ExportError", "ItemStream", "RawItem"]

MAX_DEPTH = 64  # levels inside one conversation; ChatGPT's own go about 10 deep
# What one conversation may keep: about 2 KB of Python objects a message, so at most some
# 20 MB for the messages and as much again for their text (longer ones are skipped).
MAX_MESSAGES = 10_000
MAX_KEPT_VALUES = 200_000
MAX_KEPT_CHARS = 16 * 1024 * 1024


# What is kept of a conversation: a dict names the keys kept (their values by their own
# schema), ``Each`` applies to every value of an object or element of an array, ``ANY``
# keeps the whole value (within the bounds). Anything else is read past, never built.
ANY = None


@dataclass(frozen=True)
class Each:
    schema: object
    messages: bool = False  # each one counts towards MAX_MESSAGES


_NAMED = Each({"name": ANY, "file_name": ANY})
_CHATGPT_MESSAGE = {
    "id": ANY,
    "author": {"role": ANY},
    "create_time": ANY,
    "content": {
        "content_type": ANY,
        "parts": Each({"content_type": ANY, "text": ANY}),
        "text": ANY,
    },
    "metadata": {"is_visually_hidden_from_conversation": ANY, "attachments": _NAMED},
}
_CLAUDE_MESSAGE = {
    "uuid": ANY,
    "sender": ANY,
    "text": ANY,
    "created_at": ANY,
    "content": Each({"type": ANY, "text": ANY, "name": ANY}),
    "attachments": _NAMED,
    "files": _NAMED,
}
CONVERSATION = {
    "title": ANY,
    "name": ANY,
    "create_time": ANY,
    "created_at": ANY,
    "current_node": ANY,
    "conversation_id": ANY,
    "id": ANY,
    "uuid": ANY,
    "mapping": Each(
        {"id": ANY, "parent": ANY, "children": ANY, "message": _CHATGPT_MESSAGE}, messages=True
    ),
    "chat_messages": Each(_CLAUDE_MESSAGE, messages=True),
}
_DROP = object()  # a value read past


@dataclass(frozen=True)
class RawItem:
    """One element of the array: its kept fields, or why it could not be read whole."""

    index: int
    value: object
    problem: str = ""
    title: str = ""  # as far as it was read, when there is a problem
    foreign: bool = False  # the problem is a shape no export has (nesting), not a size


class ItemStream:
    """The elements of the export's array of conversations (or of its "conversations"
    list), each built as far as ``CONVERSATION`` keeps it; ``build=False`` only counts.
    Elements before ``start`` are read past without being built."""

    def __init__(self, raw: BinaryIO, *, start: int = 0, build: bool = True) -> None:
        self.raw = raw
        self.start = start
        self.build = build
        self.reader = Reader(raw)
        self.level = 0  # depth of the array of conversations, once found
        self.index = 0  # of the next element
        self.title = ""  # of the element being read, once seen
        self.known = (0, 0, 0)  # (byte offset, depth, index) where a byte scan may begin
        if start and self._bare_array():
            self._skip_to_start()

    def _bare_array(self) -> bool:
        if not self.raw.seekable():
            return False
        self.raw.seek(0)
        head = self.raw.read(1024).lstrip(b"\xef\xbb\xbf \t\r\n")
        self.raw.seek(0)
        return head[:1] == b"["

    def _skip_to_start(self) -> None:
        """Past the first ``start`` elements by the byte scanner, twice as fast as yajl's
        events (a continuing task reads the export from its beginning)."""
        found = boundary(self.raw, 0, 0, self.start)
        if found is None:
            return  # the parser will say what is wrong
        offset, ended = found
        self.index = self.start
        self.known = (offset, 1, self.start)
        self.raw.seek(offset)
        self.reader = Reader(self.raw, prefix=b"[]" if ended else b"[")

    def __iter__(self) -> Iterator[RawItem]:
        while True:
            try:
                yield from self._parse()
                return
            except Trip as trip:
                if self.level != 1:
                    raise ExportError(
                        f"This is not a ChatGPT or Claude export: {trip.reason}."
                    ) from trip
                if self.index >= self.start:
                    yield RawItem(self.index, None, trip.reason, self.title, trip.foreign)
                if not self._resume():
                    return
            except (ijson.JSONError, UnicodeDecodeError) as error:
                raise self._damaged() from error

    def _damaged(self) -> ExportError:
        if self.index == 0:
            return ExportError(
                "This is not a ChatGPT or Claude export: conversations.json is not valid JSON."
            )
        return ExportError(
            f"conversations.json is damaged after conversation {self.index}: "
            "what follows is not valid JSON."
        )

    def _resume(self) -> bool:
        """Past the element that tripped; False when the array ended with it."""
        if not self.raw.seekable():
            raise ExportError(
                f"conversations.json cannot be read past conversation {self.index + 1}."
            )
        offset, depth, index = self.known
        found = boundary(self.raw, offset, depth, self.index - index + 1)
        if found is None:
            raise ExportError(f"conversations.json ends inside conversation {self.index + 1}.")
        offset, ended = found
        if ended:
            return False
        self.index += 1
        self.known = (offset, 1, self.index)
        self.raw.seek(offset)
        self.reader = Reader(self.raw, prefix=b"[")
        return True

    def _parse(self) -> Iterator[RawItem]:
        reader = self.reader
        events = ijson.basic_parse(reader, buf_size=READ_BYTES, use_float=True)
        self.level = depth = 0
        builder: _Builder | None = None
        conversations_key = False  # the wrapper's "conversations" key was just read
        for event, value in events:
            reader.event_mark = reader.handed
            if builder is not None:
                if builder.feed(event, value):
                    continue
                item, builder, reader.item_mark = builder.item(self.index), None, None
                self.index += 1
                if item.index >= self.start:
                    yield item
            elif event in ("start_map", "start_array"):
                depth += 1
                if self.level and depth == self.level + 1:
                    reader.item_mark = reader.handed
                    self.title = ""
                    builder = _Builder(event, self, build=self.build and self.index >= self.start)
                    depth -= 1  # the builder counts the element's own levels
                elif event == "start_array" and (depth == 1 or (depth == 2 and conversations_key)):
                    self.level = depth
                elif depth > MAX_DEPTH:
                    raise ExportError("This is not a ChatGPT or Claude export: nested too deeply.")
                conversations_key = False
            elif event in ("end_map", "end_array"):
                depth -= 1
                if depth == 0 or (self.level and depth < self.level):
                    break
            elif event == "map_key":
                conversations_key = depth == 1 and value == "conversations"
            elif self.level and depth == self.level:
                self.index += 1  # a bare value where a conversation belongs
                if self.index - 1 >= self.start:
                    yield RawItem(self.index - 1, value if self.build else None)
            elif depth == 0:
                break
            else:
                conversations_key = False
        if not self.level:
            raise ExportError(
                "This is not a ChatGPT or Claude export: expected a list of conversations."
            )


class _Builder:
    """One conversation from its events: what ``CONVERSATION`` keeps, within the bounds."""

    def __init__(self, event: str, owner: ItemStream, *, build: bool) -> None:
        self.owner = owner
        self.depth = 1
        self.drop = 0  # > 0: inside a value read past, this many levels deep
        self.problem = ""
        self.values = self.chars = self.messages = 0
        root: dict[str, object] | list[object] = {} if event == "start_map" else []
        self.root: object = root
        # Each frame: [container, schema of the container, schema of the next value, key]
        self.stack: list[list[object]] = []
        if not build:
            self.drop, self.root = 1, None
        elif event == "start_array":
            self.drop = 1  # an array where a conversation belongs: kept empty
        else:
            self.stack.append([root, CONVERSATION, _DROP, None])

    def feed(self, event: str, value: object) -> bool:
        """Take one event; False once the conversation has ended."""
        if event in ("start_map", "start_array"):
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise Trip(f"it is nested more than {MAX_DEPTH} levels deep", foreign=True)
            if self.drop:
                self.drop += 1
                return True
            frame = self.stack[-1]
            schema = frame[2]
            if schema is _DROP:
                self.drop = 1
                return True
            container: dict[str, object] | list[object] = {} if event == "start_map" else []
            self._place(frame, container)
            if self.drop:  # a bound was passed: the rest is read past
                self.drop += 1
            elif schema is ANY or isinstance(schema, Each) or event == "start_map":
                self.stack.append([container, schema, self._child(schema), None])
            else:
                self.drop = 1  # kept empty: its type is all the check needs
            return True
        if event in ("end_map", "end_array"):
            self.depth -= 1
            if self.drop:
                self.drop -= 1
            elif self.stack:
                self.stack.pop()
            return self.depth > 0
        if self.drop:
            return True
        frame = self.stack[-1]
        if event == "map_key":
            assert isinstance(value, str)
            schema = frame[1]
            frame[3] = value
            if isinstance(schema, Each):
                frame[2] = schema.schema
                if schema.messages:
                    self._count_message()
            elif isinstance(schema, dict):
                frame[2] = schema.get(value, _DROP)
            else:
                frame[2] = ANY
        elif frame[2] is not _DROP:
            self._place(frame, value)
        return True

    @staticmethod
    def _child(schema: object) -> object:
        return schema.schema if isinstance(schema, Each) else ANY if schema is ANY else _DROP

    def _count_message(self) -> None:
        self.messages += 1
        if self.messages > MAX_MESSAGES:
            self._give_up(f"it has more than {MAX_MESSAGES:,} messages")

    def _place(self, frame: list[object], value: object) -> None:
        marked = self.owner.reader.marked
        self.values += 1
        if isinstance(value, str):
            self.chars += len(value)
            if marked:
                value = restore(value)
        container = frame[0]
        if isinstance(container, dict):
            key = frame[3]
            assert isinstance(key, str)
            container[restore(key) if marked else key] = value
            self.chars += len(key)
            if container is self.root and key in ("title", "name") and isinstance(value, str):
                self.owner.title = value
        else:
            assert isinstance(container, list)
            container.append(value)
            schema = frame[1]
            if isinstance(schema, Each) and schema.messages:
                self._count_message()
        if self.values > MAX_KEPT_VALUES:
            self._give_up(f"it holds more than {MAX_KEPT_VALUES:,} values")
        elif self.chars > MAX_KEPT_CHARS:
            self._give_up(f"its text is longer than {mb(MAX_KEPT_CHARS)}")

    def _give_up(self, reason: str) -> None:
        """Read the rest of the conversation past, keeping nothing."""
        if self.problem:
            return
        self.problem, self.root = reason, None
        self.drop = len(self.stack)  # the containers still open inside the conversation
        self.stack.clear()

    def item(self, index: int) -> RawItem:
        if self.problem:
            return RawItem(index, None, self.problem, self.owner.title)
        return RawItem(index, self.root)
