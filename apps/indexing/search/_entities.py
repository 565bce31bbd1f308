"""Entity-centred retrieval (issue 31): the passages about the people, places and things a
question names, nearest to the question first — a ranking hybrid search fuses with the
others (``Fusion.about``).

"What activities does Ilse do with her kids?" is about Ilse: the turns that name her,
the turns she said herself (a transcript's "Ilse: I took the twins …"), and the turns
that call her what the user calls her once they have said who is who ("my old
flatmate took the twins rock pooling"). Among them the nearest to the question are the
answer's parts, told months apart in words the question does not use; among all of the
user's turns, the vectors and the words rank many others first.

Among the passages about Ilse, the question is compared without her name ("What
activities does do with her kids?"): every one of them is about her, and her name in the
question would only favour the passages that spell it out over those that call her "my
old flatmate" or are said by her (on the quality corpus the name-free question found
twice the answer's parts among them: bench/bench_quality.py).

The names come from the mention index (``Mention``, written with each chunk by
``indexing.mentions``' rules): a capitalised word of the question counts when the user has
written it where ordinary words are not capitalised, or someone by that name speaks
(``SPEAKER``, ``NAMED`` or ``ALIAS`` rows), so neither "Tell" nor "Would" opening a
question is taken for a name; no language model reads the question. Everything is the
requesting user's, within the search's scope: aliases said in a turn that is forgotten,
archived or outside the project count for nothing.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import connection

from ..embeddings import Vector, embed_queries, get_embedding_provider
from ..mentions import (
    ALIAS,
    INITIAL,
    NAME_WORD,
    NAMED,
    RELATION,
    SPEAKER,
    AskedNames,
    key_of,
    query_keys,
)
from ._plans import subset_plan
from ._queries import Candidate, Scope, chunk_scope, nearest, search_session

if TYPE_CHECKING:
    from apps.accounts.models import User
    from apps.projects.models import Project

# A word the question writes as a name (inside a sentence) names whoever the user wrote
# it of; a question's opening word, only someone the user has written it as a name of.
WRITTEN_ROLES = (SPEAKER, NAMED, INITIAL, ALIAS)
NAMING_ROLES = (SPEAKER, NAMED, ALIAS)
# The passages about a person: said by them, naming them (also only at a sentence's
# start), or calling them by a relation the user has said is them.
ABOUT_ROLES = (SPEAKER, NAMED, INITIAL, RELATION)


def names_asked(query: str) -> AskedNames:
    """The keys the question could name someone by (before the index says whether it
    does); none for most questions, which then cost nothing here."""
    return query_keys(query)


def about_ranking(
    *,
    keys: AskedNames,
    user: User,
    project: Project | None,
    kinds: Sequence[str],
    exclude_message_ids: Sequence[uuid.UUID | str],
    query: str,
    depth: int,
    guessed: Future[NameFree | None] | None = None,
    most: int | None = None,
) -> list[Candidate]:
    """The ``depth`` passages about what ``query`` names by ``keys`` (``names_asked``),
    nearest to the query without those names first; empty when none of them names anyone
    the user wrote of, or when more than ``most`` passages are about them. ``guessed``:
    the query without every asked name and its embedding (``embed_question``), made with
    the query's own; used when the index agrees on the names, so that the model runs once
    for both."""
    # Compiled once per shape (``chunk_scope``): compiling the queryset took a millisecond
    # of this thread's Python, holding the interpreter's lock while the search's other
    # threads waited for it.
    scope = chunk_scope(
        user_id=user.pk,
        project_id=project.pk if project else None,
        kinds=kinds,
        exclude_message_ids=exclude_message_ids,
    )
    with search_session(["chunk"]):
        wanted, rows = _known(user.pk, keys, scope)
        if not wanted or (most is not None and rows > most):
            return []
        plan = subset_plan("chunk", rows)
        mentioned = (
            "SELECT m.chunk_id FROM indexing_mention AS m "
            "WHERE m.user_id = %s AND m.key = ANY(%s) AND m.role = ANY(%s)"
        )
        # Compared one by one, the passages are read by their ids in order (an array the
        # index scan sorts): joined to the mentions, each was looked up where the hash of
        # the join put it, four times the pages read and 2.5 ms of 11 for a name in 3,760
        # passages (bench/bench_search.py's data). Searched through the HNSW index, a
        # hashed semi-join keeps its filter cheap for every candidate.
        member = f"= ANY(ARRAY({mentioned}))" if plan.exact else f"IN ({mentioned})"
        about = Scope(
            "chunk",
            f"SELECT s.id, s.embedding FROM ({scope.sql}) AS s WHERE s.id {member}",  # noqa: S608 - the scope from code, values as parameters
            (*scope.params, user.pk, wanted, list(ABOUT_ROLES)),
        )
        names = [key for key in wanted if "|" not in key]  # not the relations
        text = without_names(query, names)
        guess = guessed.result() if guessed is not None else None
        vector = guess[1] if guess is not None and guess[0] == text else None
        if vector is None:
            vector = get_embedding_provider().embed_query(text)
        return nearest([about], vector, depth, plan)


NameFree = tuple[str, Vector]
"""A question without the names it may ask about, and its embedding."""


@dataclass(frozen=True)
class QuestionVectors:
    """A question embedded for a search: as asked (``vector``) and, when it may name
    someone, without those names (``name_free``), both in one run of the model."""

    vector: Vector
    name_free: NameFree | None = None


def embed_question(query: str, names: AskedNames | None = None) -> QuestionVectors:
    """``query``'s embeddings for a search (``names``: ``names_asked(query)``, when the
    caller has them): a question without a capitalised word costs one embedding; one
    with costs one run of the model for both texts (two short ones take about 1.4 times
    one), where the passages about whom it names were compared after a second run."""
    names = names_asked(query) if names is None else names
    provider = get_embedding_provider()
    if not names:
        return QuestionVectors(provider.embed_query(query))
    free = name_free(query, names)
    vector, free_vector = embed_queries(provider, [query, free])
    return QuestionVectors(vector, (free, free_vector))


def name_free(query: str, keys: AskedNames) -> str:
    """The query without every name it could be asking about: what ``about_ranking``
    compares with, when the user has written of all of them (nearly always)."""
    return without_names(query, [*keys.written, *keys.opening])


def without_names(query: str, names: Sequence[str]) -> str:
    """``query`` without the words of ``names`` (keys, as ``key_of`` makes them), or the
    query itself if nothing else is left."""
    words = {word for name in names for word in name.split()}
    left = NAME_WORD.sub(lambda w: "" if key_of(w.group()) in words else w.group(), query)
    return " ".join(left.split()) if NAME_WORD.search(left) else query


def _known(user_id: int, keys: AskedNames, scope: Scope) -> tuple[list[str], int]:
    """Of ``keys``, those the user has named someone or something by (``WRITTEN_ROLES``,
    ``NAMING_ROLES``), and the relations
    the user has said stand for them ("|old flatmate") in turns within ``scope``; and how
    many passages mention them (at most, and counted no further than the threshold of
    ``subset_plan``), in the same round trip."""
    cap = int(settings.CAIRN_SEARCH_EXACT_ROWS_SMALL)
    with connection.cursor() as cursor:
        cursor.execute(
            "WITH asked AS (SELECT unnest(%s::text[]) AS key, %s::text[] AS roles "  # noqa: S608 - the scope from code, values as parameters
            "  UNION ALL SELECT unnest(%s::text[]), %s::text[]), "
            "named AS (SELECT DISTINCT a.key FROM asked AS a "
            "  WHERE EXISTS (SELECT 1 FROM indexing_mention AS m "
            "    WHERE m.user_id = %s AND m.key = a.key AND m.role = ANY(a.roles))), "
            "wanted AS (SELECT key FROM named "
            "  UNION SELECT m.alias FROM indexing_mention AS m JOIN named AS n ON m.key = n.key "
            "  WHERE m.user_id = %s AND m.role = %s "
            f"  AND m.chunk_id IN (SELECT s.id FROM ({scope.sql}) AS s)) "
            "SELECT (SELECT coalesce(array_agg(key), '{}') FROM wanted), "
            "(SELECT count(*) FROM (SELECT 1 FROM indexing_mention AS m "
            "  WHERE m.user_id = %s AND m.key IN (SELECT key FROM wanted) AND m.role = ANY(%s) "
            "  LIMIT %s) AS rows)",
            [
                list(keys.written), list(WRITTEN_ROLES), list(keys.opening), list(NAMING_ROLES),
                user_id, user_id, ALIAS, *scope.params,
                user_id, list(ABOUT_ROLES), cap + 1,
            ],
        )  # fmt: skip
        wanted, rows = cursor.fetchone()
    return list(wanted), int(rows)
