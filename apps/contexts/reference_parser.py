"""The one parser for ``@references`` and ``#N`` claim numbers in a chat message.

Pure Python with no Django import, so the reply pipeline, the API and the benchmarks can
call it anywhere. ``static/js/references.js`` is the same parser for the page; both run
every case of ``tests/fixtures/reference_cases.json``, which is what keeps them in step.
Change a rule here, change it there and add a case to the table.

Forms (DESIGN §5):

* ``@memory:<uuid>`` / ``@mem:<uuid>`` (keyword in any case) -> kind ``"uuid"``; the uuid
  is canonical (8-4-4-4-12 hex) or 32 bare hex digits and the identifier is its
  lower-case hyphenated form. Anything else after the colon is not a uuid reference
  (the resolver could never find it), and the bare keyword is not a reference either.
* ``@claim_42`` (``claim`` in any case) and ``#42`` -> kind ``"number"``, identifier
  ``"claim_42"``; leading zeros are dropped (``#007`` -> ``claim_7``). At most 18 digits,
  so the number always fits a 64-bit integer: a longer ``#N`` is not a reference and a
  longer ``@claim_N`` is an ordinary friendly identifier.
* ``@<identifier>`` -> kind ``"friendly"``: ``[A-Za-z][A-Za-z0-9_-]*``, 3 to 128
  characters, kept exactly as typed (case included; the resolver decides how to
  compare). Bare ``@memory`` and ``@mem`` are not references.

Rules:

* Start: the ``@`` or ``#`` must begin the text or follow white space, an opening
  bracket (``( [ { <``), a straight, curly or angle opening quote or markdown emphasis
  ``*``. So ``user@domain.com``, ``a/#3`` and ``x@abc`` never match.
* End: a trailing run of ``-`` / ``_`` is punctuation, not identifier (``@abc-`` is
  ``abc``); identifiers that generators or users create must not end in one. The token
  must then end cleanly: not followed by ``@`` (``@abc@def`` is neither, it reads like an
  address), by ``_`` or an ASCII letter or digit (``#42nd``, ``#42_x``), by a letter,
  digit or mark of any script (``@cafés`` is not ``@caf``), nor by ``.``, ``,`` or ``-``
  that is itself followed by an ASCII letter or digit (``@example.com``, ``#1,000``,
  ``#1-3``). Other punctuation ends a token: ``@abc,`` ``(@abc)`` ``@abc.`` ``@abc's``.
* Code: nothing inside a markdown inline code span (a run of N backticks up to the next
  run of exactly N within the same paragraph) or a fenced code block (a line starting
  with up to three spaces and three or more backticks or tildes, up to a closing fence
  of the same character and at least the same length, or to the end) is a reference. Lines are split
  on ``\\n``; fences inside list items or block quotes, backslash-escaped backticks and
  indented code blocks are not recognised, because chat text indents freely.
* Order and duplicates: references come in order of appearance; a second occurrence of
  the same (kind, identifier) — ``#42`` after ``@claim_42`` included — is left out of
  ``references`` but still removed from ``clean_text``.
* Ranks: ``#1`` in "my #1 crypto" *is* returned; the reply pipeline drops a ``#N`` that
  lies inside a rank the facts extractor found (DESIGN §5), by comparing spans.
* Spans: ``start`` / ``end`` are code-point offsets into the text given
  (``text[start:end] == raw``); the JavaScript parser reports the same numbers.
* Size: only the first ``MAX_PARSE_CHARS`` characters are searched (the rest passes
  through to ``clean_text`` untouched) and a token that reaches that limit is not a
  reference, so hostile input stays cheap. After ``MAX_REFERENCES`` distinct references
  the search stops and later tokens stay text, so no message can make the resolver run
  thousands of look-ups.

``clean_text`` is the text with every reference token (and the ``-`` / ``_`` run after
it) removed, tidied only where a token was, so the question reads on without them:

* tokens separated only by spaces and at most one ``,`` or ``;`` go as one group
  (``@abc, @def``), and a bracket or quote pair holding nothing but such a group goes
  with it (``(@abc)``, ``"@abc"``, ``**@abc**``);
* a line that held only references goes with its line break (and so does the blank line
  after it when one is already before it);
* at a line's start the indentation stays and the spaces and any ``,`` ``;`` ``:``
  after the group go (``@abc: summarise this`` -> ``summarise this``); at a line's end
  the spaces before it go; before ``, . ; : ! ? ) ] }`` the space before it goes; after
  an opening bracket the space after it goes; between words one side's spaces stay;
* then the whole is stripped. Text without references comes back only stripped.

White space here is an explicit list shared with the JavaScript (Python's
``str.isspace`` and JavaScript's ``\\s`` differ); a zero-width space or a direction mark
(U+200B, U+200E, U+200F) also counts before a token, as bidirectional and CJK input
puts them there. "Letter, digit or mark" is the Unicode category, which may differ
between the two runtimes only for characters added in the newest Unicode versions.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

ReferenceKind = Literal["uuid", "number", "friendly"]

MAX_PARSE_CHARS = 100_000
MIN_IDENTIFIER_LENGTH = 3
MAX_IDENTIFIER_LENGTH = 128
MAX_NUMBER_DIGITS = 18
MAX_REFERENCES = 100

WHITESPACE = (
    " \t\n\r\f\v\u00a0\u1680"
    + "".join(chr(code) for code in range(0x2000, 0x200B))
    + "\u2028\u2029\u202f\u205f\u3000"
)
# Removing a token never joins or splits lines, so the tidy-up treats "\n" apart.
_INLINE_SPACE = WHITESPACE.replace("\n", "")
_CLOSERS = {
    "(": ")",
    "[": "]",
    "{": "}",
    "<": ">",
    '"': '"',
    "'": "'",
    "\u201c": "\u201d",
    "\u2018": "\u2019",
    "\u00ab": "\u00bb",
    "*": "*",
}
# Invisible marks that right-to-left and CJK input methods put before a word count as a gap.
_PRECEDERS = frozenset(WHITESPACE) | frozenset(_CLOSERS) | frozenset("\u200b\u200e\u200f")
_OPENERS = frozenset(_CLOSERS)
_TRAILING_PUNCTUATION = frozenset(",.;:!?)]}")
_SEPARATORS = frozenset(",;")
_LEADING_SEPARATORS = frozenset(",;:")
_ASCII_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_ASCII_WORD = _ASCII_ALNUM | {"_"}
_BARE_KEYWORDS = frozenset({"memory", "mem"})

# One alternation, so a position can only ever produce one token: that is what makes
# "@memory:<uuid>" a single uuid reference and never also a friendly "@memory".
_TOKEN = re.compile(
    r"@(?:[Mm][Ee][Mm](?:[Oo][Rr][Yy])?:"
    r"(?P<uuid>[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}"
    r"|[0-9A-Fa-f]{32})"
    r"|(?P<word>[A-Za-z][A-Za-z0-9_-]*))"
    r"|#(?P<digits>[0-9]+)"
)
_CLAIM_NUMBER = re.compile(rf"[Cc][Ll][Aa][Ii][Mm]_([0-9]{{1,{MAX_NUMBER_DIGITS}}})")
_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})")
_FENCE_CLOSE = re.compile(r" {0,3}(`{3,}|~{3,})[ \t\r]*")
_BACKTICKS = re.compile(r"`+")
_BLANK_LINE = re.compile(r"\n[ \t\r]*\n")


@dataclass(frozen=True, slots=True)
class ParsedReference:
    kind: ReferenceKind
    identifier: str
    raw: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class ParsedMessage:
    clean_text: str
    references: tuple[ParsedReference, ...]


def parse_references(text: str, *, ranks: Sequence[tuple[int, int]] = ()) -> ParsedMessage:
    """Return ``text`` without its references, and the references in order (see module).

    ``ranks`` are spans the facts extractor read as ranks ("my #1 crypto is BTC"): a
    ``#N`` inside one is a rank, so it stays in the text and is not a reference — nor does
    it count as a first occurrence that would hide a later ``#N`` of the same number.
    """
    if "@" not in text and "#" not in text:
        return ParsedMessage(clean_text=text.strip(WHITESPACE), references=())

    length = len(text)
    limit = min(length, MAX_PARSE_CHARS)
    code = _code_regions(text, limit)
    code_index = 0
    tokens: list[tuple[int, int]] = []
    references: list[ParsedReference] = []
    seen: set[tuple[str, str]] = set()

    # str.find jumps to each "@" or "#" at C speed; the regular expression then runs only
    # there. A regular-expression search would step through every character instead.
    position = 0
    next_at = text.find("@", 0, limit)
    next_hash = text.find("#", 0, limit)
    while len(references) < MAX_REFERENCES:
        if 0 <= next_at < position:
            next_at = text.find("@", position, limit)
        if 0 <= next_hash < position:
            next_hash = text.find("#", position, limit)
        if next_at == -1 and next_hash == -1:
            break
        start = next_hash if next_at == -1 or 0 <= next_hash < next_at else next_at
        position = start + 1
        while code_index < len(code) and code[code_index][1] <= start:
            code_index += 1
        if code_index < len(code) and code[code_index][0] <= start:
            position = code[code_index][1]
            continue
        if start and text[start - 1] not in _PRECEDERS:
            continue
        match = _TOKEN.match(text, start, limit)
        if match is None:
            continue
        greedy_end = position = match.end()
        if greedy_end == limit < length or not _ends_cleanly(text, greedy_end):
            continue

        kind: ReferenceKind
        end = greedy_end
        if (uuid := match.group("uuid")) is not None:
            hexits = uuid.replace("-", "").lower()
            kind = "uuid"
            identifier = (
                f"{hexits[:8]}-{hexits[8:12]}-{hexits[12:16]}-{hexits[16:20]}-{hexits[20:]}"
            )
        elif (digits := match.group("digits")) is not None:
            if len(digits) > MAX_NUMBER_DIGITS:
                continue
            if any(
                rank_start <= start and greedy_end <= rank_end for rank_start, rank_end in ranks
            ):
                continue
            kind = "number"
            identifier = "claim_" + (digits.lstrip("0") or "0")
        else:
            word = match.group("word").rstrip("-_")
            if not MIN_IDENTIFIER_LENGTH <= len(word) <= MAX_IDENTIFIER_LENGTH:
                continue
            if word.lower() in _BARE_KEYWORDS:
                continue
            end = start + 1 + len(word)
            if claim := _CLAIM_NUMBER.fullmatch(word):
                kind = "number"
                identifier = "claim_" + (claim.group(1).lstrip("0") or "0")
            else:
                kind = "friendly"
                identifier = word

        # The trailing "-" / "_" run is not identifier, yet it goes with the token.
        tokens.append((start, greedy_end))
        if (kind, identifier) not in seen:
            seen.add((kind, identifier))
            references.append(
                ParsedReference(
                    kind=kind, identifier=identifier, raw=text[start:end], start=start, end=end
                )
            )

    return ParsedMessage(
        clean_text=_remove_tokens(text, _removal_groups(text, tokens)),
        references=tuple(references),
    )


def _ends_cleanly(text: str, end: int) -> bool:
    if end >= len(text):
        return True
    follower = text[end]
    if follower < "\x80":
        if follower == "@" or follower in _ASCII_WORD:
            return False
        return not (follower in ".,-" and end + 1 < len(text) and text[end + 1] in _ASCII_ALNUM)
    return unicodedata.category(follower)[0] not in "LNM"


def _code_regions(text: str, limit: int) -> list[tuple[int, int]]:
    """Sorted, disjoint [start, end) ranges of fenced blocks and inline code spans."""
    # Looking for one character first is many times cheaper than a substring search.
    has_backtick = text.find("`", 0, limit) != -1
    has_fence = (has_backtick and text.find("```", 0, limit) != -1) or (
        text.find("~", 0, limit) != -1 and text.find("~~~", 0, limit) != -1
    )
    if not has_backtick and not has_fence:
        return []
    fences = _fenced_blocks(text, limit) if has_fence else []
    if not has_backtick:
        return fences
    spans = _inline_code_spans(text, limit, fences)
    return sorted(fences + spans) if fences and spans else fences or spans


def _fenced_blocks(text: str, limit: int) -> list[tuple[int, int]]:
    blocks: list[tuple[int, int]] = []
    fence = ""
    fence_start = 0
    for line_start, line_end in _fence_lines(text, limit):
        if not fence:
            opening = _FENCE_OPEN.match(text, line_start, line_end)
            # A backtick fence's info string cannot hold a backtick: "```x```" is inline.
            if opening and not (
                opening.group(1)[0] == "`" and text.find("`", opening.end(), line_end) != -1
            ):
                fence = opening.group(1)
                fence_start = line_start
        else:
            closing = _FENCE_CLOSE.match(text, line_start, line_end)
            if (
                closing
                and closing.end() == line_end
                and closing.group(1)[0] == fence[0]
                and len(closing.group(1)) >= len(fence)
            ):
                blocks.append((fence_start, line_end))
                fence = ""
    if fence:
        blocks.append((fence_start, limit))
    return blocks


def _fence_lines(text: str, limit: int) -> Iterator[tuple[int, int]]:
    """Start and end of each line that begins (after up to 3 spaces) with ``` or ~~~."""
    # Only such lines can open or close a fence, so jump from marker to marker rather
    # than visit every line; each marker's next position is kept so neither is re-sought.
    position = 0
    next_tick = text.find("```", 0, limit)
    next_tilde = text.find("~~~", 0, limit)
    while True:
        if 0 <= next_tick < position:
            next_tick = text.find("```", position, limit)
        if 0 <= next_tilde < position:
            next_tilde = text.find("~~~", position, limit)
        if next_tick == -1 and next_tilde == -1:
            return
        marker = next_tilde if next_tick == -1 or 0 <= next_tilde < next_tick else next_tick
        line_start = marker
        while line_start > 0 and marker - line_start < 3 and text[line_start - 1] == " ":
            line_start -= 1
        line_end = text.find("\n", marker, limit)
        if line_end == -1:
            line_end = limit
        if line_start == 0 or text[line_start - 1] == "\n":
            yield line_start, line_end
        position = line_end + 1


def _inline_code_spans(
    text: str, limit: int, fences: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    # A code span cannot cross a paragraph break or a fenced block, so each run of
    # backticks carries the number of such boundaries before it and pairs only within it.
    boundaries = sorted(
        [m.start() for m in _BLANK_LINE.finditer(text, 0, limit)] + [start for start, _ in fences]
    )
    runs: list[tuple[int, int, int]] = []  # (start, end, paragraph)
    boundary_index = 0
    fence_index = 0
    run_start = text.find("`", 0, limit)
    while run_start != -1:
        run = _BACKTICKS.match(text, run_start, limit)
        run_end = run.end() if run else run_start + 1
        while fence_index < len(fences) and fences[fence_index][1] <= run_start:
            fence_index += 1
        if fence_index < len(fences) and fences[fence_index][0] <= run_start:
            run_end = max(run_end, fences[fence_index][1])
        else:
            while boundary_index < len(boundaries) and boundaries[boundary_index] < run_start:
                boundary_index += 1
            runs.append((run_start, run_end, boundary_index))
        run_start = text.find("`", run_end, limit)

    next_same: list[int] = [-1] * len(runs)
    last_seen: dict[tuple[int, int], int] = {}
    for index in range(len(runs) - 1, -1, -1):
        run_start, run_end, paragraph = runs[index]
        key = (paragraph, run_end - run_start)
        next_same[index] = last_seen.get(key, -1)
        last_seen[key] = index

    spans: list[tuple[int, int]] = []
    index = 0
    while index < len(runs):
        closer = next_same[index]
        if closer == -1:
            index += 1
        else:
            spans.append((runs[index][0], runs[closer][1]))
            index = closer + 1
    return spans


def _removal_groups(text: str, tokens: list[tuple[int, int]]) -> list[list[int]]:
    """Merge tokens split by spaces and one "," or ";", and widen over a wrapping pair."""
    length = len(text)
    groups: list[list[int]] = []
    for start, end in tokens:
        groups.append([start, end])
        while True:
            group = groups[-1]
            if len(groups) > 1 and _is_separator_gap(text, groups[-2][1], group[0]):
                groups[-2][1] = group[1]
                groups.pop()
                continue
            before, after = group[0] - 1, group[1]
            if before >= 0 and after < length and _CLOSERS.get(text[before]) == text[after]:
                group[0], group[1] = before, after + 1
                continue
            break
    return groups


def _is_separator_gap(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] is inline spaces with at most one "," or ";" among them."""
    # Scanning from the right keeps repeated widening linear: the character next to the
    # group is the one that changes.
    index = end - 1
    while index >= start and text[index] in _INLINE_SPACE:
        index -= 1
    if index >= start and text[index] in _SEPARATORS:
        index -= 1
    while index >= start and text[index] in _INLINE_SPACE:
        index -= 1
    return index < start


def _remove_tokens(text: str, groups: list[list[int]]) -> str:
    if not groups:
        return text.strip(WHITESPACE)
    out = _Output(text[: groups[0][0]])
    for index, (_, group_end) in enumerate(groups):
        next_start = groups[index + 1][0] if index + 1 < len(groups) else len(text)
        out.join(text[group_end:next_start])
    return out.value().strip(WHITESPACE)


class _Output:
    """The cleaned text so far, as pieces, with the look-behind that a join needs."""

    def __init__(self, first: str) -> None:
        self._pieces: list[str] = [first] if first else []

    def value(self) -> str:
        return "".join(self._pieces)

    def _trailing_space(self) -> tuple[int, str | None]:
        """Count of trailing inline spaces, and the character before them (None: start)."""
        count = 0
        for piece in reversed(self._pieces):
            stripped = piece.rstrip(_INLINE_SPACE)
            count += len(piece) - len(stripped)
            if stripped:
                return count, stripped[-1]
        return count, None

    def _drop_trailing(self, count: int) -> None:
        while count:
            piece = self._pieces.pop()
            if len(piece) > count:
                self._pieces.append(piece[: len(piece) - count])
                return
            count -= len(piece)

    def _ends_with_blank_line(self) -> bool:
        tail = ""
        for piece in reversed(self._pieces):
            tail = piece + tail
            if len(tail) >= 2:
                break
        return tail == "" or tail.endswith("\n\n")

    def join(self, segment: str) -> None:
        """Append the text that followed a removed group, tidying the seam."""
        left_space, before = self._trailing_space()
        right_space = len(segment) - len(segment.lstrip(_INLINE_SPACE))
        after = segment[right_space] if right_space < len(segment) else None
        at_line_start = before is None or before == "\n"
        at_line_end = after is None or after == "\n"

        if at_line_start and at_line_end:
            self._drop_trailing(left_space)
            segment = segment[right_space + 1 :]
            if segment.startswith("\n") and self._ends_with_blank_line():
                segment = segment[1:]
        elif at_line_start:
            segment = segment[right_space:]
            # "@abc: summarise" asks to summarise; the colon addressed the reference.
            if segment and segment[0] in _LEADING_SEPARATORS:
                segment = segment[1:].lstrip(_INLINE_SPACE)
        elif before in _OPENERS and not left_space:
            segment = segment[right_space:]
        elif at_line_end:
            self._drop_trailing(left_space)
            segment = segment[right_space:]
        elif after in _TRAILING_PUNCTUATION and not right_space:
            self._drop_trailing(left_space)
        elif left_space and right_space:
            segment = segment[right_space:]
        if segment:
            self._pieces.append(segment)
