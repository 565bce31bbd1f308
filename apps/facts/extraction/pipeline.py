"""``extract_facts``: one user message in, the facts to store out (seeds/001 §1.2.1).

Order matters and is the seed's: ranked lists first (so their values are not read again
as entities or quantities), then URLs, e-mails, dates, quantities, entity phrases and
finally bare named entities; each step skips the spans earlier steps claimed.

Only statements count: nothing is extracted from a question ("can you mail x@y.io?")
or a condition ("if my #1 were BTC …"), though their rank markers are still reported.

Confidence says how the fact was read: a ranked item 0.95 when its statement names the
list, 0.9 from a topic phrase before it, 0.85 anchored to a list the message names,
0.8 by recency, 0.75 by the keyword map; a labelled e-mail or URL 0.95 and a bare one
0.8; a labelled date 0.95 (0.9 if relative) and a bare one 0.1 less; quantities 0.9
labelled and 0.8 bare; entity phrases 0.9 and bare recogniser mentions 0.7.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from .contacts import find_emails, find_urls
from .dates import find_dates
from .entities import find_entity_phrases, find_named_entities
from .keys import ranked_key
from .nlp import get_nlp
from .quantities import find_quantities
from .ranked import find_ranked
from .text import SpanIndex, is_assertion
from .topics import resolve_topic
from .types import (
    ExtractedFact,
    ExtractionResult,
    RankedCandidate,
    Span,
    TopicResolution,
    TopicSource,
)

if TYPE_CHECKING:
    from spacy.language import Language

# Longer messages are read only this far, so a 100 KB paste costs tens of milliseconds
# (bench/bench_facts_extract.py), and nobody states a favourite 20,000 characters in.
MAX_EXTRACT_CHARS = 20_000

_CONFIDENCE = {"explicit": 0.95, "context": 0.9, "anchored": 0.85, "recent": 0.8, "keyword": 0.75}


def message_rank_spans(text: str) -> tuple[Span, ...]:
    """The spans of ``text`` that are ranks ("#1" in "my #1 crypto is BTC"), exactly as
    ``extract_facts`` reads them: the reply pipeline, the transcript, the composer's chips
    and the REST resolver all ask this one function, so ``#N`` reads one way everywhere
    (DESIGN §5, issue 18)."""
    return tuple(find_ranked(text[:MAX_EXTRACT_CHARS]).rank_spans)


def extract_facts(
    text: str,
    *,
    now: datetime,
    existing_topics: Sequence[str] = (),
    recent_topic: str | None = None,
    explicit_topic: str | None = None,
    nlp: Language | None = None,
) -> ExtractionResult:
    """Extract the facts a **user** message states (never call it on assistant text).

    ``now`` is the message's time; relative dates resolve against its calendar date (pass
    the user's local time when known). ``existing_topics`` are the project's ranked
    lists (the ``<topic>`` of its current ``user.favorites.<topic>.<rank>`` keys) and
    ``recent_topic`` the one this conversation updated last, if the caller knows it;
    both feed topic resolution (``resolve_topic``). ``explicit_topic`` is the user's
    answer after an ambiguous result: it names the list for every ranked item that
    does not name its own. ``nlp`` replaces the process-wide spaCy pipeline (tests).
    """
    body = text[:MAX_EXTRACT_CHARS]
    scan = find_ranked(body)
    ranked, unresolved, ambiguous = _ranked_facts(
        body,
        scan.candidates,
        existing_topics=existing_topics,
        recent_topic=recent_topic,
        explicit_topic=explicit_topic,
    )
    if ambiguous:
        # Nothing is stored until the user says which list they meant (seeds/001 §1.2.3).
        return ExtractionResult(
            facts=(),
            ambiguous_topics=ambiguous,
            rank_spans=tuple(scan.rank_spans),
            unresolved_ranks=tuple(unresolved),
            truncated=len(text) > MAX_EXTRACT_CHARS,
        )
    claimed = SpanIndex(scan.statement_spans)
    facts = list(ranked)
    pipeline = nlp if nlp is not None else get_nlp()
    steps: tuple[Callable[[], list[ExtractedFact]], ...] = (
        lambda: find_urls(body, claimed),
        lambda: find_emails(body, claimed),
        lambda: find_dates(body, claimed, now),
        lambda: find_quantities(body, claimed),
        lambda: find_entity_phrases(body, claimed, pipeline),
        lambda: find_named_entities(body, claimed, pipeline),
    )
    for step in steps:
        # A question or a condition states nothing ("can you mail x@y.io?", "if I move to
        # Berlin …"); its words are still claimed, so no later step reads them.
        found = step()
        facts += [f for f in found if is_assertion(body, *f.span)]
        claimed.extend(f.span for f in found)

    return ExtractionResult(
        facts=_latest_per_key(facts),
        rank_spans=tuple(scan.rank_spans),
        unresolved_ranks=tuple(unresolved),
        truncated=len(text) > MAX_EXTRACT_CHARS,
    )


def _latest_per_key(facts: list[ExtractedFact]) -> tuple[ExtractedFact, ...]:
    """One fact per key, in order of appearance; a later statement of a key wins
    ("my #1 is BTC. Actually, my #1 is ETH")."""
    by_key: dict[str, ExtractedFact] = {}
    for fact in sorted(facts, key=lambda f: (f.span[0], f.value_span[0])):
        by_key.pop(fact.key, None)
        by_key[fact.key] = fact
    return tuple(sorted(by_key.values(), key=lambda f: (f.value_span[0], f.span[0])))


def _ranked_facts(
    text: str,
    candidates: list[RankedCandidate],
    *,
    existing_topics: Sequence[str],
    recent_topic: str | None,
    explicit_topic: str | None,
) -> tuple[list[ExtractedFact], list[RankedCandidate], tuple[str, ...]]:
    """Key each ranked item by its topic; returns (facts, unresolved items, ambiguous topics)."""
    # Values never name a topic ("pecan pie" is not the list "pie"), and a statement
    # that names its own topic speaks for itself, not for the items around it.
    ignore = [c.value_span for c in candidates] + [c.span for c in candidates if c.explicit_topic]
    shared: TopicResolution | None = None
    facts, unresolved = [], []
    for candidate in candidates:
        own = candidate.explicit_topic or candidate.context_topic or explicit_topic
        if own:
            resolution = resolve_topic(text, explicit_topic=own, existing_topics=existing_topics)
            source: TopicSource | None = (
                "context"
                if own == candidate.context_topic and not candidate.explicit_topic
                else "explicit"
            )
        else:
            if shared is None:
                shared = resolve_topic(
                    text,
                    existing_topics=existing_topics,
                    recent_topic=recent_topic,
                    ignore_spans=ignore,
                )
            resolution, source = shared, shared.source
        if resolution.topic is None:
            unresolved.append(candidate)
            continue
        facts.append(
            ExtractedFact(
                key=ranked_key(resolution.topic, candidate.rank),
                value=candidate.value,
                value_type=candidate.value_type,
                kind="ranked",
                topic=resolution.topic,
                rank=candidate.rank,
                span=candidate.span,
                value_span=candidate.value_span,
                confidence=_CONFIDENCE.get(source or "", 0.75),
            )
        )
    ambiguous = shared.candidates if shared is not None and shared.ambiguous else ()
    return facts, unresolved, ambiguous
