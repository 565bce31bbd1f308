"""The typed values the extraction layer hands to its callers.

Spans are ``(start, end)`` code-point offsets into the text given to ``extract_facts``
(``text[start:end]``), the same convention as ``apps.contexts.reference_parser``, so the
reply pipeline can compare a ``#N`` reference's span with the ranks found here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Span = tuple[int, int]
ValueType = Literal["string", "number", "bool", "date", "json"]
FactKind = Literal["ranked", "email", "url", "date", "quantity", "entity"]
# Where a ranked item's topic came from, in the order seeds/001 §1.2.2 tries them.
TopicSource = Literal["explicit", "context", "anchored", "recent", "keyword"]


@dataclass(frozen=True, slots=True)
class ExtractedFact:
    """One fact ready to be written as a ``ProjectFact`` (DESIGN §4).

    ``span`` covers the statement that states the fact ("my #1 crypto is BTC", "my work
    email is a@b.io"); ``value_span`` covers only the value ("BTC", "a@b.io"). For a bare
    mention the two are equal. ``topic`` and ``rank`` are set for ranked items only.
    """

    key: str
    value: str
    value_type: ValueType
    kind: FactKind
    topic: str | None
    rank: int | None
    span: Span
    confidence: float
    value_span: Span = (0, 0)


@dataclass(frozen=True, slots=True)
class RankedCandidate:
    """A ranked-list item before its topic is known.

    ``explicit_topic`` is the topic the statement names itself ("my #1 *crypto* is BTC");
    ``context_topic`` is, for an item without one, the nearest topic phrase within 200
    characters before it ("My favorite cryptos: #1 XMR, #2 BTC"). ``marker_span`` is the
    rank token ("#1", "second", "1)") or ``None`` for an implicit rank (a list's n-th item).
    """

    rank: int
    value: str
    value_type: ValueType
    explicit_topic: str | None
    span: Span
    value_span: Span
    marker_span: Span | None
    pattern: str
    context_topic: str | None = None


@dataclass(frozen=True, slots=True)
class TopicResolution:
    """The outcome of ``resolve_topic``.

    Exactly one of three shapes: resolved (``topic`` set, ``candidates`` empty),
    ambiguous (``topic`` ``None``, two or more ``candidates`` to ask the user about), or
    unresolvable (``topic`` ``None``, no candidates: nothing in the message or the
    project says which list is meant).
    """

    topic: str | None
    candidates: tuple[str, ...] = ()
    source: TopicSource | None = None

    @property
    def ambiguous(self) -> bool:
        return self.topic is None and len(self.candidates) > 1


@dataclass(frozen=True, slots=True)
class ExtractionResult:
    """Everything ``extract_facts`` found in one user message.

    * ``facts`` — what to store now, in order of appearance, one per key (a later
      statement of the same key in the message wins). Empty whenever
      ``ambiguous_topics`` is not: an ambiguous message stores nothing (seeds/001
      §1.2.3 step 5); the caller asks which list was meant and extracts again with
      ``explicit_topic``.
    * ``ambiguous_topics`` — the candidate topics, sorted, when the list a ranked item
      belongs to cannot be told apart.
    * ``rank_spans`` — the span of every rank marker read as a rank (``#2`` in "#2 on my
      list is ETH", and in a question such as "what is my #1?"), sorted. The reply
      pipeline drops a ``#N`` reference whose span lies inside one of them.
    * ``unresolved_ranks`` — ranked items that got no key: their topic is ambiguous or
      cannot be resolved at all.
    * ``truncated`` — the text was longer than ``MAX_EXTRACT_CHARS`` and only its start
      was read.
    """

    facts: tuple[ExtractedFact, ...]
    ambiguous_topics: tuple[str, ...] = ()
    rank_spans: tuple[Span, ...] = ()
    unresolved_ranks: tuple[RankedCandidate, ...] = field(default=())
    truncated: bool = False

    def in_rank(self, span: Span) -> bool:
        """Whether ``span`` (e.g. a ``#N`` reference's) lies inside a rank marker found here."""
        start, end = span
        return any(r_start <= start and end <= r_end for r_start, r_end in self.rank_spans)
