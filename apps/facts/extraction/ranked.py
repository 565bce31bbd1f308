"""Ranked-list statements: "my #1 crypto is BTC", "BTC is my #1", "Make BTC my #1" …

Every pattern of seeds/001 §1.2.1 yields ``RankedCandidate``s; when two readings overlap,
the more specific pattern wins (the order of ``_READERS``). Enumerations and lists are
in ``ranked_lists.py``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from . import ranked_patterns as rp
from .ranked_lists import read_enumerations, read_lists
from .text import SpanIndex, is_assertion
from .topics import find_topic_phrases, read_topic
from .types import RankedCandidate, Span
from .values import clean_span, value_after, value_before, value_region_end, value_type_of

# How far before an item a topic phrase still names its list (seeds/001 §1.2.1).
CONTEXT_WINDOW = 200
_ON_MY = re.compile(r"\bon\s+my\s+$", re.IGNORECASE)


def _rank_of(match: re.Match[str]) -> int | None:
    marker = match.group("rank")
    if marker is None:
        return None
    if rp.is_ordinal(marker):
        # "my first name is John" is no rank: an ordinal needs "favorite" / "pick".
        groups = match.groupdict()
        if not (groups.get("fav1") or groups.get("fav2")):
            return None
    return rp.parse_rank(marker)


def _candidate(
    text: str,
    *,
    rank: int,
    value_span: Span,
    statement: Span,
    marker: Span | None,
    topic: str | None,
    pattern: str,
) -> RankedCandidate:
    value = text[value_span[0] : value_span[1]]
    return RankedCandidate(
        rank=rank,
        value=value,
        value_type=value_type_of(value),
        explicit_topic=topic,
        span=statement,
        value_span=value_span,
        marker_span=marker,
        pattern=pattern,
    )


def _value_after_reader(
    pattern: re.Pattern[str], name: str
) -> Callable[[str], Iterator[RankedCandidate]]:
    """Readers for heads followed by their value: "my #1 crypto is BTC", "set my #1 to SOL"."""

    def read(text: str) -> Iterator[RankedCandidate]:
        for match in pattern.finditer(text):
            rank = _rank_of(match)
            usable, topic, _ = read_topic(match.groupdict().get("topic"))
            found = value_after(text, match.end()) if rank and usable else None
            if rank and found:
                _, span = found
                yield _candidate(
                    text,
                    rank=rank,
                    value_span=span,
                    statement=(match.start(), span[1]),
                    marker=match.span("rank"),
                    topic=topic,
                    pattern=name,
                )

    return read


def _value_before_reader(
    pattern: re.Pattern[str], name: str
) -> Callable[[str], Iterator[RankedCandidate]]:
    """Readers for "BTC is my #1 crypto", "Paris is my favorite city", "ETH is #2 on my list"."""

    def read(text: str) -> Iterator[RankedCandidate]:
        for match in pattern.finditer(text):
            groups = match.groupdict()
            if groups.get("rank"):
                rank = _rank_of(match)
            else:
                rank = 1 if (groups.get("fav1") or groups.get("fav2")) else None
            usable, topic, used = read_topic(groups.get("topic"))
            span = value_before(text, match.start()) if rank and usable else None
            if rank and span:
                head_end = _head_end(match, used)
                yield _candidate(
                    text,
                    rank=rank,
                    value_span=span,
                    statement=(span[0], head_end),
                    marker=match.span("rank") if groups.get("rank") else None,
                    topic=topic,
                    pattern=name,
                )

    return read


def _head_end(match: re.Match[str], topic_chars_used: int) -> int:
    """Where a "value before" statement ends: after the topic words actually read."""
    if match.groupdict().get("topic") is not None and "topic" in match.re.groupindex:
        topic_start = match.start("topic")
        if topic_chars_used:
            return topic_start + topic_chars_used
        end = topic_start
        while end > match.start() and match.string[end - 1].isspace():
            end -= 1
        return end
    return match.end()


def _read_make(text: str) -> Iterator[RankedCandidate]:
    """ "Make BTC my #1", "put ETH at #2", "move SOL to #3 on my list"."""
    for match in rp.MAKE.finditer(text):
        rank = _rank_of(match)
        marker = match.group("rank")
        if not rank or (
            not match.group("my") and (rp.is_ordinal(marker) or rank > rp.MAX_BARE_RANK)
        ):
            continue
        raw_topic = match.group("topic")
        if raw_topic and not match.group("my") and not _ON_MY.search(text, 0, match.start("topic")):
            raw_topic = None  # "put X at #1 BTC": words after a bare "#1" name no list
        usable, topic, used = read_topic(raw_topic)
        span = clean_span(text, *match.span("value"), allow_clause_cut=False)
        if usable and span:
            yield _candidate(
                text,
                rank=rank,
                value_span=span,
                statement=(match.start(), _head_end(match, used)),
                marker=match.span("rank"),
                topic=topic,
                pattern="make",
            )


def _read_bare_hash(text: str) -> Iterator[RankedCandidate]:
    """ "#1 XMR" (ticker-like values only) and "#2 is ETH" after a ranking cue."""
    for match in rp.BARE_HASH_TICKER.finditer(text):
        rank = rp.parse_rank(match.group("rank"))
        if rank and rank <= rp.MAX_BARE_RANK and rp.is_ticker(match.group("value")):
            yield _candidate(
                text,
                rank=rank,
                value_span=match.span("value"),
                statement=match.span(),
                marker=match.span("rank"),
                topic=None,
                pattern="hash_ticker",
            )
    for match in rp.BARE_HASH_COPULA.finditer(text):
        rank = rp.parse_rank(match.group("rank"))
        cue = rp.RANKING_CUE.search(text, max(0, match.start() - CONTEXT_WINDOW), match.start())
        found = (
            value_after(text, match.end()) if rank and rank <= rp.MAX_BARE_RANK and cue else None
        )
        if rank and found:
            yield _candidate(
                text,
                rank=rank,
                value_span=found[1],
                statement=(match.start(), found[1][1]),
                marker=match.span("rank"),
                topic=None,
                pattern="hash_copula",
            )


# Most specific first: where two readings overlap, the earlier one wins.
_READERS: tuple[Callable[[str], Iterator[RankedCandidate]], ...] = (
    _value_after_reader(rp.VALUE_AFTER, "value_after"),
    _value_after_reader(rp.SET_TO, "set_to"),
    _value_after_reader(rp.ON_LIST_AFTER, "on_list_after"),
    _value_before_reader(rp.VALUE_BEFORE, "value_before"),
    _value_before_reader(rp.ON_LIST_BEFORE, "on_list_before"),
    _read_make,
    read_enumerations,
    _read_bare_hash,
    read_lists,
)


@dataclass(frozen=True, slots=True)
class RankedScan:
    """``candidates``: asserted items in order of appearance; ``rank_spans``: every rank
    marker's span; ``statement_spans``: every ranked statement, asserted or not, which
    later steps must not read again (BTC in "is BTC still my #1?" is no organisation)."""

    candidates: list[RankedCandidate]
    rank_spans: list[Span]
    statement_spans: list[Span]


def find_ranked(text: str) -> RankedScan:
    """Read every ranked statement. Items in questions or conditions ("is BTC my #1?",
    "if my #1 were …") give no candidate, but their markers still count as ranks."""
    accepted: list[RankedCandidate] = []
    claimed = SpanIndex()
    statements: list[Span] = []
    markers: set[Span] = set()
    for reader in _READERS:
        # Items of one list share their head, so a reader's own items may overlap; only
        # readings by an earlier (more specific) reader take precedence.
        read_here: list[Span] = []
        for candidate in reader(text):
            if claimed.overlaps(candidate.span):
                continue
            read_here.append(candidate.span)
            if candidate.marker_span:
                markers.add(candidate.marker_span)
            if is_assertion(text, *candidate.span):
                accepted.append(candidate)
        claimed.extend(read_here)
        statements.extend(read_here)
    statements += _unread_statements(text, {span[0] for span in statements})
    for match in rp.NEGATED_BEFORE.finditer(text):
        value = value_before(text, match.start())
        statements.append((value[0] if value else match.start(), match.end()))
    for match in rp.RANK_CONTEXT.finditer(text):
        markers.add(match.span("a") if match.group("a") else match.span("b"))
    accepted.sort(key=lambda c: (c.span[0], c.value_span[0]))
    return RankedScan(_with_context_topics(text, accepted), sorted(markers), sorted(statements))


def _unread_statements(text: str, read_starts: set[int]) -> list[Span]:
    """Ranked heads whose value was refused ("my #1 is BTC or ETH", "my #1 is not BTC",
    "my favorite thing about Paris is …"): no fact, but the clause is ranked talk, so
    later steps must not read "BTC" in it as an organisation."""
    spans = []
    for pattern in (rp.VALUE_AFTER, rp.SET_TO, rp.ON_LIST_AFTER, rp.LIST_HEAD):
        for match in pattern.finditer(text):
            if match.start() not in read_starts and (
                "rank" not in pattern.groupindex or _rank_of(match)
            ):
                spans.append((match.start(), value_region_end(text, match.end())))
    return spans


def _with_context_topics(text: str, candidates: list[RankedCandidate]) -> list[RankedCandidate]:
    """Give an item without a topic of its own the nearest topic phrase before it.

    "My favorite cryptos: #1 XMR, #2 BTC" — both items belong to ``crypto``. Only a
    phrase *before* the item counts, within ``CONTEXT_WINDOW`` characters: it opens the
    list the item continues. A phrase after the item belongs to the statement it is in.
    """
    phrases = find_topic_phrases(text)
    phrases += [(c.explicit_topic, c.span) for c in candidates if c.explicit_topic]
    # Sorted by where each phrase ends, so the nearest one before an item is a bisection.
    by_end = sorted((span[1], topic) for topic, span in phrases)
    ends = [end for end, _ in by_end]
    result = []
    for candidate in candidates:
        if candidate.explicit_topic is None:
            start = candidate.span[0]
            i = bisect_right(ends, start + 1)
            if i and start - ends[i - 1] <= CONTEXT_WINDOW:
                candidate = replace(candidate, context_topic=by_end[i - 1][1])
        result.append(candidate)
    return result
