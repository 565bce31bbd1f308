"""Ranked lists written as lists: "1) Blue, 2) Green", "first: Blue, second: Green",
"My favorite cryptos are XMR, BTC, XLM", "my top 3 X are A, B and C".
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from . import ranked_patterns as rp
from .text import is_assertion, word_set
from .topics import read_topic
from .types import RankedCandidate, Span
from .values import clean_span, quoted_value, value_after, value_region_end, value_type_of

_CUE_WINDOW = 200
_MIN_RUN = 2
_NAME_LIKE_WORDS = 3
_GAP = re.compile(r"[\s,;&]*(?:and\s*|then\s*)?", re.IGNORECASE)
_LIST_END = re.compile(r"[!?;\n]|\.(?=\s|$)")
_ITEM_SPLIT = re.compile(r"\s*,\s*(?:and\s+|&\s+)?|\s+(?:and|&)\s+", re.IGNORECASE)
_ITEM_BREAK = re.compile(r"[(\[{\u2014\u2013]|\s-\s")
_ITEM_STOP_WORDS = word_set(
    """but because so though although i i'm im my which who it it's we also then and or
    plus btw since while whereas"""
)
# An item that is itself a rank marker or a reference belongs to another reading.
_ITEM_OPENS_OTHER = re.compile(r"\s*(?:[#@]|\d{1,2}[).:](?:\s|$))")
_CLAUSE_CUT = re.compile(
    r"\s+(?:because|cause|since|though|although|while|whereas|unless|if|when|which|but)\b",
    re.IGNORECASE,
)
_CLAUSE_MARKER = re.compile(
    r"\s(?:is|are|was|were|will|would|my|i|it)\b|#\d|\bnumber\s+\w+", re.IGNORECASE
)


def _item(text: str, rank: int, marker: Span, value: Span, pattern: str) -> RankedCandidate:
    raw = text[value[0] : value[1]]
    return RankedCandidate(
        rank=rank,
        value=raw,
        value_type=value_type_of(raw),
        explicit_topic=None,
        span=(marker[0], value[1]),
        value_span=value,
        marker_span=marker,
        pattern=pattern,
    )


def _name_like(value: str) -> bool:
    words = value.split()
    return len(words) <= _NAME_LIKE_WORDS and (value[0].isupper() or value[0].isdigit())


def _runs(text: str, pattern: re.Pattern[str], name: str) -> Iterator[list[RankedCandidate]]:
    """Consecutive items (ranks n, n+1, …) with nothing but separators between them."""
    matches = [m for m in pattern.finditer(text) if _separator_allowed(m)]
    run: list[RankedCandidate] = []
    for index, match in enumerate(matches):
        rank = rp.parse_rank(match.group("rank"))
        next_start = matches[index + 1].start("rank") if index + 1 < len(matches) else len(text)
        region_end = min(next_start, value_region_end(text, match.end()))
        value = clean_span(text, match.end(), region_end)
        item = _item(text, rank, match.span("rank"), value, name) if rank and value else None
        joined = (
            item is not None
            and bool(run)
            and item.rank == run[-1].rank + 1
            and _GAP.fullmatch(text, run[-1].value_span[1], match.start("rank")) is not None
        )
        if not joined:
            if len(run) >= _MIN_RUN:
                yield run
            run = []
        if item is not None:
            run.append(item)
    if len(run) >= _MIN_RUN:
        yield run


def _separator_allowed(match: re.Match[str]) -> bool:
    # "1. Blue" only at a line's start: "I scored 1. Then …" is prose.
    sep = match.group("sep").strip()
    return sep != "." or match.group("lead") in ("", "\n", ":")


def read_enumerations(text: str) -> Iterator[RankedCandidate]:
    """Runs of two or more numbered or ordinal items.

    A run counts as a ranked list when a ranking cue ("favorite", "top", "rank", "my
    list") comes within 200 characters before it, or when every item looks like a name
    (at most three words, capitalised or a number), so "1) open the app, 2) log in" is
    not read as a list of favourites.
    """
    for pattern, name in ((rp.ENUMERATED, "enumerated"), (rp.ORDINAL_ENUMERATED, "ordinals")):
        for run in _runs(text, pattern, name):
            start = run[0].span[0]
            cue = rp.RANKING_CUE.search(text, max(0, start - _CUE_WINDOW), start)
            if cue or all(_name_like(item.value) for item in run):
                yield from run


def list_items(text: str, start: int, limit: int | None = None) -> list[Span]:
    """The items of "XMR, BTC and XLM" starting at ``start``, up to the sentence's end.

    An item that opens a new clause ("…, but I also like DOGE", "… and ETH is my #2")
    ends the list; a clause word inside an item cuts it there and ends the list.
    """
    end_match = _LIST_END.search(text, start, start + 400)
    end = end_match.start() if end_match else min(len(text), start + 400)
    items: list[Span] = []
    pos = start
    while pos < end and (limit is None or len(items) < limit):
        while pos < end and text[pos] in " \t":
            pos += 1
        quoted = quoted_value(text, pos)
        if quoted:
            items.append(quoted[1])
            split = _ITEM_SPLIT.match(text, quoted[1][1] + 1, end)
            if not split or not split.group().strip(" "):
                break
            pos = split.end()
            continue
        split = _ITEM_SPLIT.search(text, pos, end)
        item_end = split.start() if split else end
        raw = text[pos:item_end]
        first = raw.strip().split(" ", 1)[0].casefold().replace("\u2019", "'")
        if not raw.strip() or first in _ITEM_STOP_WORDS or _ITEM_OPENS_OTHER.match(raw):
            break
        if _CLAUSE_MARKER.search(raw.strip()):
            break
        last = False
        cut = _CLAUSE_CUT.search(raw) or _ITEM_BREAK.search(raw)
        if cut:
            item_end, last = pos + cut.start(), True
        span = clean_span(text, pos, item_end, allow_clause_cut=False)
        if span is None:
            break
        items.append(span)
        if last or not split:
            break
        pos = split.end()
    return items


def read_lists(text: str) -> Iterator[RankedCandidate]:
    """ "My favorite cryptos are XMR, BTC, XLM" -> ranks 1, 2, 3 (implicit ranks)."""
    for match in rp.LIST_HEAD.finditer(text):
        usable, topic, _ = read_topic(match.group("topic"))
        if not usable or not is_assertion(text, match.start(), match.end()):
            continue
        count = match.group("count")
        limit = rp.parse_rank(count) if count else None
        for rank, span in enumerate(_values(text, match, limit), start=1):
            value = text[span[0] : span[1]]
            yield RankedCandidate(
                rank=rank,
                value=value,
                value_type=value_type_of(value),
                explicit_topic=topic,
                span=(match.start(), span[1]),
                value_span=span,
                marker_span=None,
                pattern="list",
            )


def _values(text: str, head: re.Match[str], limit: int | None) -> list[Span]:
    """A singular head without commas states one value, which may contain "and"
    ("my favorite band is Simon and Garfunkel"); otherwise the value is a list."""
    singular = re.search(r"\bis\b|[:=]|s$", head.group().strip(), re.IGNORECASE) and not re.search(
        r"\bare\b|\u2019re|'re", head.group(), re.IGNORECASE
    )
    end_match = _LIST_END.search(text, head.end(), head.end() + 400)
    sentence_end = end_match.start() if end_match else min(len(text), head.end() + 400)
    if singular and "," not in text[head.end() : sentence_end]:
        found = value_after(text, head.end())
        return [found[1]] if found else []
    return list_items(text, head.end(), limit)
