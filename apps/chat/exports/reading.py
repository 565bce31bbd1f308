"""The bytes of ``conversations.json`` as yajl reads them (issue 29).

``Reader`` hands yajl 64 KiB at a time and stops it (``Trip``) when one value or one
conversation grows past its bound, before yajl would hold it whole. Two things yajl cannot
read without stopping are turned into marks before it sees them and turned back after
(``restore``): the escape of a lone surrogate (``"\\ud800"``) and bytes that are not UTF-8.
Both come back as the lone surrogate they stand for, which the site's input guard then
refuses, so that one conversation is skipped instead of the whole file.

``boundary`` is the byte scanner that finds where the next conversation begins once yajl
has been stopped, or where conversation N begins for a task that goes on from there.
"""

from __future__ import annotations

import codecs
import re
import zipfile
import zlib
from typing import BinaryIO

READ_BYTES = 64 * 1024
MAX_VALUE_BYTES = 8 * 1024 * 1024  # one string, number or run of white space
MAX_CONVERSATION_BYTES = 128 * 1024 * 1024
MAX_ESCAPES_BACK = 64  # escapes walked back over to find where a read may end
BAD_CHECKSUM = "This zip is damaged: conversations.json does not match its checksum (CRC)."


class ExportError(ValueError):
    """The file is not an export Cairn can read; the message says why, in plain words."""


class Trip(Exception):
    """A conversation that yajl must not read on: skip it by scanning bytes instead."""

    def __init__(self, reason: str, *, foreign: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.foreign = foreign  # no export is shaped so, however large


def mb(size: int) -> str:
    return f"{size / (1024 * 1024):g} MB"


# Lone surrogates (escaped) and bytes that are not UTF-8, marked in Plane 15's private use
# area (U+F0000 + the surrogate's offset) so that yajl reads them, and restored after.
_ESCAPE_HINT = re.compile(r"\\u[dD][89a-fA-F]")
_ESCAPES = re.compile(
    r"\\\\|\\u(?:[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|([dD][89a-fA-F][0-9a-fA-F]{2}))"
)
_SURROGATES = re.compile("[\ud800-\udfff]", re.UNICODE)
_MARKS = re.compile("[\U000f0000-\U000f07ff]")


def _mark_code(code: int) -> str:
    return chr(0xF0000 + code - 0xD800)


def restore(text: str) -> str:
    return _MARKS.sub(lambda m: chr(ord(m.group()) - 0xF0000 + 0xD800), text)


def _cut(text: str) -> int:
    """Where to end this piece so that no escape (nor a surrogate pair) is split: before
    a backslash that has none in the 12 characters before it."""
    last = text.rfind("\\")
    if last == -1 or last < len(text) - 12:
        return len(text)
    for _ in range(MAX_ESCAPES_BACK):
        before = text.rfind("\\", 0, last)
        if before == -1 or before < last - 12:
            return last
        last = before
    return len(text)  # a hostile run of escapes: read on, unmarked where it is cut


class Reader:
    """The bytes yajl reads, and where a conversation too large for it is stopped."""

    def __init__(self, raw: BinaryIO, prefix: bytes = b"") -> None:
        self.raw = raw
        self.prefix = prefix
        self.decoder = codecs.getincrementaldecoder("utf-8-sig")(errors="surrogateescape")
        self.carry = ""
        self.done = False
        self.handed = 0
        self.event_mark = 0  # ``handed`` when the last event was read
        self.item_mark: int | None = None  # ``handed`` when the current item began
        self.marked = False

    def read(self, size: int = -1) -> bytes:
        if size == 0:
            return b""
        if self.handed - self.event_mark > MAX_VALUE_BYTES:
            raise Trip(f"it holds a single value larger than {mb(MAX_VALUE_BYTES)}")
        if self.item_mark is not None and self.handed - self.item_mark > MAX_CONVERSATION_BYTES:
            raise Trip(f"it is larger than {mb(MAX_CONVERSATION_BYTES)}")
        if self.prefix:
            data, self.prefix = self.prefix, b""
            self.handed += len(data)
            return data
        while not self.done:
            data = self._next()
            if data:
                self.handed += len(data)
                return data
        return b""

    def _next(self) -> bytes:
        try:
            raw = self.raw.read(READ_BYTES)
        except zipfile.BadZipFile as error:  # zipfile compares the CRC at the end
            raise ExportError(BAD_CHECKSUM) from error
        except (OSError, EOFError, zlib.error, NotImplementedError) as error:
            raise ExportError(f"This export is damaged and cannot be read ({error}).") from error
        self.done = not raw
        text = self.carry + self.decoder.decode(raw, final=self.done)
        cut = len(text) if self.done else _cut(text)
        text, self.carry = text[:cut], text[cut:]
        if _ESCAPE_HINT.search(text):
            text = _ESCAPES.sub(self._escape, text)
        if not text.isascii():
            try:
                return text.encode("utf-8")
            except UnicodeEncodeError:
                self.marked = True
                text = _SURROGATES.sub(lambda m: _mark_code(ord(m.group())), text)
        return text.encode("utf-8")

    def _escape(self, match: re.Match[str]) -> str:
        if match.group(1) is None:
            return match.group(0)
        self.marked = True
        return _mark_code(int(match.group(1), 16))


# The byte scanner: from a point whose state is known, to the comma that ends an element
# of the top-level array (or its closing bracket). Strings are read past whole.
_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*("?)|[\[\]{},]', re.S)
_STRING_REST = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*', re.S)


def boundary(raw: BinaryIO, offset: int, depth: int, commas: int) -> tuple[int, bool] | None:
    """(offset after the ``commas``-th comma of the top-level array, False), or (offset of
    its closing bracket, True), or None when the file ends first."""
    raw.seek(offset)
    base, in_string, escaped = offset, False, False
    while chunk := raw.read(READ_BYTES):
        start = 0
        if in_string:
            start = 1 if escaped else 0
            end = _STRING_REST.match(chunk, start).end()  # type: ignore[union-attr]
            if end == len(chunk) or chunk[end] != 0x22:  # the string goes on
                escaped = end < len(chunk)  # it ends in a lone backslash
                base += len(chunk)
                continue
            in_string, escaped, start = False, False, end + 1
        for match in _TOKEN.finditer(chunk, start):
            char = chunk[match.start()]
            if char == 0x22:
                if not match.group(1):  # the string goes on in the next chunk
                    in_string, escaped = True, match.end() == len(chunk) - 1
                    break
            elif char in b"[{":
                depth += 1
            elif char in b"]}":
                depth -= 1
                if depth == 0:
                    return base + match.start(), True
            elif depth == 1:
                commas -= 1
                if commas == 0:
                    return base + match.end(), False
        base += len(chunk)
    return None
