"""Decoding bytes that should be text, and telling them apart from binary content."""

from __future__ import annotations

import codecs
import re

from .errors import BinaryContent

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    # UTF-32's little-endian mark begins with UTF-16's, so it is tried first.
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_SAMPLE_CHARS = 65_536
_HIGH_BYTES = bytes(range(0x80, 0x100))
_MAX_NOISE_RATIO = 0.05
# C0 controls other than tab, newlines, form feed and escape, DEL, and U+FFFD (what an
# undecodable byte becomes): text has almost none of them, binary data is full of them.
_NOISE = re.compile("[\x01-\x08\x0e-\x1a\x1c-\x1f\x7f\ufffd]")
_MANY_BLANK_LINES = re.compile(r"\n[ \t]*(?:\n[ \t]*){2,}")
_TRAILING_SPACE = re.compile(r"[ \t]+\n")


def decode_text(data: bytes) -> str:
    """``data`` as text with ``\\n`` line ends, or ``BinaryContent`` if it is not text.

    A byte-order mark is honoured; otherwise UTF-8 is expected, with Windows-1252 as the
    fallback for legacy files whose high bytes are not UTF-8.
    """
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return _newlines(data.decode(encoding, errors="replace"))
    if b"\x00" in data:
        raise BinaryContent("binary content (NUL bytes) in a file named as text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = _decode_not_utf8(data)
    if _noise_ratio(text[:_SAMPLE_CHARS]) > _MAX_NOISE_RATIO:
        raise BinaryContent("binary content (control bytes) in a file named as text")
    return _newlines(text)


def looks_like_text(head: bytes) -> bool:
    """Whether the first bytes of a file look like text (used to sniff files)."""
    if any(head.startswith(bom) for bom, _ in _BOMS):
        return True
    if b"\x00" in head:
        return False
    # The sample may end inside a multi-byte character; "replace" absorbs that.
    return _noise_ratio(head.decode("utf-8", errors="replace")) <= _MAX_NOISE_RATIO


def normalise_whitespace(text: str) -> str:
    """Tidy text pulled out of a document: no trailing spaces, at most one blank line."""
    text = _TRAILING_SPACE.sub("\n", _newlines(text))
    return _MANY_BLANK_LINES.sub("\n\n", text).strip()


def _decode_not_utf8(data: bytes) -> str:
    as_utf8 = data.decode("utf-8", errors="replace")
    high_bytes = len(data) - len(data.translate(None, _HIGH_BYTES))
    # Mostly valid UTF-8 with a few damaged bytes stays UTF-8; when most high bytes fail
    # to decode, the file is in a legacy single-byte encoding.
    if as_utf8.count("\ufffd") * 10 < high_bytes:
        return as_utf8
    return data.decode("cp1252", errors="replace")


def _noise_ratio(text: str) -> float:
    if not text:
        return 0.0
    return len(_NOISE.findall(text)) / len(text)


def _newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")
