"""DESIGN §7 step 3: the facts a user message states, extracted and stored synchronously.

The counts returned are what was written (seeds/001 §1.3: Facts-S, Facts-U), never an
estimate. Long messages are read up to ``MAX_EXTRACT_CHARS`` (20,000 characters; a
100 KB paste costs under 0.1 s) and flagged ``truncated``.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.utils import timezone

from apps.facts.extraction import MAX_EXTRACT_CHARS, ExtractedFact, Span, extract_facts
from apps.facts.extraction.ranked import find_ranked
from apps.facts.messages import MessageToRead, message_source
from apps.facts.models import FactOrigin, ProjectFact
from apps.projects.models import Project

from .store import FactWrite, facts_store_many, prepare_write

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class FactsPersistResult:
    """What one user message did to the project's facts.

    ``stored`` / ``updated`` count new keys and changed values (Facts-S / Facts-U);
    ``keys`` are those keys, in message order (an *unchanged* restatement is in neither).
    ``ambiguous_topics`` is set when the message's ranked items could belong to several
    lists: nothing was stored, and the chat asks which list was meant, then calls again
    with ``explicit_topic``. ``rank_spans`` are the rank markers read as ranks, for the
    reply pipeline to drop ``#N`` references inside them (DESIGN §5).
    """

    stored: int = 0
    updated: int = 0
    unchanged: int = 0
    keys: tuple[str, ...] = ()
    ambiguous_topics: tuple[str, ...] = ()
    # Ranked items that belong to no list Cairn can tell ("make BTC my #1" with no lists
    # yet), as "#1 BTC": nothing was stored for them, and the chat says so (issue 17).
    unresolved: tuple[str, ...] = ()
    rank_spans: tuple[Span, ...] = ()
    truncated: bool = False
    facts: tuple[ProjectFact, ...] = field(default=(), repr=False)


def facts_persist(
    *,
    project: Project,
    message: MessageToRead,
    recent_topic: str | None = None,
    explicit_topic: str | None = None,
) -> FactsPersistResult:
    """Extract the facts the message states and store them in ``project``, in one
    transaction. The chat hands the message over as a typed value (``facts.messages``).

    Only a user message is read: an assistant's text is never a source of facts (a
    ``ValueError`` says so), and the message must belong to a conversation of
    ``project``. Relative dates resolve against the message's local time. Topic
    resolution gets the project's existing ranked lists and ``recent_topic``: given, or
    else the list this conversation's messages updated last. Every stored row links back
    to the message.
    """
    if message.role != "user":
        raise ValueError("facts are extracted from user messages only")
    if message.project_id != project.pk:
        raise ValueError("the message belongs to another project's conversation")
    topics, recent = _topic_context(project, message, recent_topic)
    extraction = extract_facts(
        message.content,
        now=timezone.localtime(message.created_at or timezone.now()),
        existing_topics=topics,
        recent_topic=recent,
        explicit_topic=explicit_topic,
    )
    unresolved = (
        ()
        if extraction.ambiguous_topics
        else tuple(
            f"#{candidate.rank} {candidate.value}" for candidate in extraction.unresolved_ranks
        )
    )
    base = FactsPersistResult(
        ambiguous_topics=extraction.ambiguous_topics,
        rank_spans=extraction.rank_spans,
        truncated=extraction.truncated,
        unresolved=unresolved,
    )
    writes = [write for fact in extraction.facts if (write := _as_write(fact)) is not None]
    if extraction.ambiguous_topics or not writes:
        return base
    # One batch is one transaction (facts_store_many is atomic): all the message's facts
    # are written, or none.
    results = facts_store_many(
        project=project,
        writes=writes,
        origin=FactOrigin.EXTRACTED,
        source_message_id=message.message_id,
        effective_at=message.created_at,
    )
    written = [r for r in results if r.outcome != "unchanged"]
    return FactsPersistResult(
        stored=sum(r.outcome == "stored" for r in results),
        updated=sum(r.outcome == "updated" for r in results),
        unchanged=len(results) - len(written),
        keys=tuple(r.fact.fact_key for r in written),
        ambiguous_topics=(),
        rank_spans=base.rank_spans,
        truncated=base.truncated,
        facts=tuple(r.fact for r in written),
        unresolved=unresolved,
    )


def _as_write(fact: ExtractedFact) -> FactWrite | None:
    """The extracted fact as a write, or ``None`` (logged) if it cannot be stored — e.g. a
    mention of a URL longer than a key may be; one odd fact never costs the others."""
    try:
        return prepare_write(
            key=fact.key,
            value=fact.value,
            value_type=fact.value_type,
            confidence=fact.confidence,
            kind=fact.kind,
            span=fact.span,
        )
    except ValidationError as error:
        logger.info("skipping extracted fact %.80r: %s", fact.key, error.messages)
        return None


def _topic_context(
    project: Project, message: MessageToRead, recent_topic: str | None
) -> tuple[list[str], str | None]:
    """The project's ranked lists and the conversation's recent one, for topic resolution.

    Only ranked items use them, so a message without any ("thanks!", "my email is …",
    most of a chat) skips the query: ``find_ranked`` is the extractor's own first step and
    costs a fraction of a millisecond. Otherwise: the distinct topics of the current
    ranked rows, and the topic of the ranked row written last from another message of this
    conversation (unless the caller knows ``recent_topic``).
    """
    if not find_ranked(message.content[:MAX_EXTRACT_CHARS]).candidates:
        return [], recent_topic
    lists = sorted(
        set(
            ProjectFact.objects.filter(project=project, is_current=True, rank__isnull=False)
            .order_by()
            .values_list("topic", flat=True)
            .distinct()
        )
    )
    if recent_topic is not None:
        return lists, recent_topic
    # Through the conversation's messages (the chat's, asked of it): the conversation
    # belongs to the project (checked by the caller), and its few messages are fewer
    # than a large project's facts.
    ids = message_source().conversation_message_ids(conversation_id=message.conversation_id)
    order = {message_id: index for index, message_id in enumerate(ids)}
    rows = (
        ProjectFact.objects.filter(source_message_id__in=list(order), rank__isnull=False)
        .exclude(source_message_id=message.message_id)
        .values_list("topic", "source_message_id", "span_start")
    )
    # The latest message first, and in it the latest statement (no span: first, as
    # PostgreSQL sorts a NULL in a descending order).
    last = max(
        rows, key=lambda row: (order[row[1]], math.inf if row[2] is None else row[2]), default=None
    )
    return lists, (last[0] if last else None)
