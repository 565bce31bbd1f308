"""DESIGN §7 step 5: the current facts a question needs, and how many topics they are.

This is a read, but it lives with the services because the chat turn calls it right
after ``facts_persist`` with the same project; the caller has already obtained the
project through ``project_get`` (scoped to the user).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.db import connection
from django.db.models import QuerySet

from apps.facts.extraction import select_relevant_facts
from apps.facts.models import ProjectFact
from apps.projects.models import Project

if TYPE_CHECKING:
    from apps.chat.models import Message

# A question is read this far: enough for any question, and it keeps the value-in-query
# scan over a large project's facts within budget for a pasted 100 KB message.
MAX_QUERY_CHARS = 4_000


@dataclass(frozen=True, slots=True)
class FactsRelevantResult:
    """``facts``: the relevant current facts, grouped by topic, ranked items in rank order;
    ``topics``: their distinct topics (a ranked list is one); ``topic_count`` is Facts-R."""

    facts: tuple[ProjectFact, ...]
    topics: tuple[str, ...]

    @property
    def topic_count(self) -> int:
        return len(self.topics)


def facts_relevant(
    *,
    project: Project,
    query: str,
    exclude_message: Message | None = None,
    hidden_message_ids: QuerySet[Any, Any] | Sequence[Any] | None = None,
) -> FactsRelevantResult:
    """The project's current facts relevant to ``query`` (seeds/001 §1.2.4, fixing §5.1.5).

    The rule, narrow on purpose so that Facts-R never counts what the question did not ask:

    1. Only **current** facts of ``project`` are candidates; superseded and retracted rows
       never are.
    2. Facts whose ``source_message`` is ``exclude_message`` are left out, so a turn does
       not "retrieve" what it has just stored: "my #1 crypto is BTC" retrieves nothing
       new. Facts other messages stored stay candidates (an earlier #2 of the same list).
    3. A candidate is relevant when a word of the question names its topic ("crypto",
       "email", "birthday" …, after stop words, rank phrases and the structural words
       favorite / top / list are removed) or when its whole value appears in the question
       ("where does BTC rank?"); ``apps.facts.extraction.relevance`` has the details.
    4. One relevant item of a ranked list brings the whole list.
    5. ``topic_count`` counts distinct topics, a list being one: ten items of
       ``user.favorites.crypto`` count 1, and facts that matched nothing never count,
       however many the project holds. An empty or all-stop-word question selects
       nothing.

    The question is read up to ``MAX_QUERY_CHARS`` characters.
    """
    query = query[:MAX_QUERY_CHARS]
    if not query.strip():
        return FactsRelevantResult(facts=(), topics=())
    candidates = ProjectFact.objects.filter(project=project, is_current=True)
    if exclude_message is not None:
        candidates = candidates.exclude(source_message=exclude_message)
    # Facts taken from a forgotten turn (a retracted claim's, issue 28) are forgotten too:
    # ids, or a query of them.
    if hidden_message_ids is not None:
        candidates = candidates.exclude(source_message_id__in=hidden_message_ids)
    rows = _keys_and_values(candidates)
    selection = select_relevant_facts(query, rows)
    if not selection.indices:
        return FactsRelevantResult(facts=(), topics=())
    keys = [rows[i][0] for i in selection.indices]
    facts = candidates.filter(fact_key__in=keys).order_by("topic", "rank", "fact_key")
    return FactsRelevantResult(facts=tuple(facts), topics=selection.topics)


def _keys_and_values(candidates: QuerySet[ProjectFact]) -> list[tuple[str, str]]:
    """(key, value) of every candidate: the one per-fact cost of a large project.

    The ORM builds the query; the rows are fetched as the driver returns them, because
    Django's per-row handling of ``values_list`` would double the cost for 2,000 facts
    (bench/bench_facts.py) and two text columns need no conversion.
    """
    sql, params = (
        candidates.order_by().values_list("fact_key", "value_text").query.sql_with_params()
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()
