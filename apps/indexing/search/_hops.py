"""A second hop (issue 31): the answer to "where is the person who borrowed my stand mixer
travelling to?" is told in two turns — "Lent my stand mixer to Lorcan for the weekend"
and, weeks later, "Lorcan is off to Cusco for a month". The question finds the first; the
second shares none of its words and little of its meaning until one knows it is about
Lorcan. So once the rankings are fused, the names the first hit writes and the question
does not ("Lorcan") are looked up as the question's own names are (``entities``: the
passages about them, nearest to the question first), and that list is fused with the
others (``Fusion.hop``).

On the quality corpus's multi-hop family (a person told of by a relation in one turn and
by name in another, a restaurant booked in one and reviewed in another, …) the hop took
recall@5/@10 of the test half from .618/.632 to .691/.750, and the whole test half from
.714/.819 to .725/.832 (single facts lost one question at @10: a name in its first hit
brought up passages about someone else), its weight read off the tuning half
(bench/bench_quality.py; bench/hop_probe.py measured it first, beside costlier hops: a
second search of the first hit's words gained as much for a whole second search). It
embeds nothing again: the passages are compared with the question's own embedding
(without its names, when it has some), and a first hit that names no one new costs one
short read of its text.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import replace
from typing import TYPE_CHECKING

from django.db import connection

from apps.claims.models import Claim

from ..mentions import AskedNames
from ..models import Chunk
from ._entities import NameFree, about_ranking, names_asked
from ._fusion import Fusion, Rankings
from ._queries import CHUNK_KINDS, Candidate

if TYPE_CHECKING:
    from apps.accounts.models import User
    from apps.projects.models import Project

# Whom a hop follows is named in at most this share of the account's passages (or this
# many, in a small account). On the quality corpus, names in more than 20 of its 3,188
# passages (its transcripts' speakers, 70 to 90 each, and a few others) led about 70
# hops: left out, recall on the test half was .725/.832 against .723/.830 (inferential
# questions lost none, where they had lost one), and the same on the tuning half within a
# question (0.792 against 0.793); a cap of 50 or of 10 gave the same figures. The hop's
# passages are then few enough to compare every one (bench_search.py's account: at most
# 500 of 100,000).
HOP_MAX_SHARE = 0.005
HOP_MIN_PASSAGES = 20


def with_hop(
    rankings: Rankings,
    fusion: Fusion,
    first: Candidate | None,
    *,
    query: str,
    user: User,
    project: Project | None,
    kinds: Sequence[str],
    exclude_message_ids: Sequence[uuid.UUID | str],
    depth: int,
) -> Rankings:
    """``rankings`` with the second hop's list (``hop``), when the fusion weighs it, the
    search reads passages and its ``first`` hit (as ``fusion`` fuses ``rankings``) names
    someone the query does not; else ``rankings`` itself."""
    passages = [kind for kind in kinds if kind in CHUNK_KINDS]
    if not (fusion.hop and passages and first) or rankings.query_vector is None:
        return rankings
    keys = new_names(query, first_text(first))
    if not keys:
        return rankings
    # Compared as the query's own entity list compares (``about_ranking``), with the
    # embedding the search already has: the query's, without its names when it has some.
    compared: Future[NameFree | None] = Future()
    free = rankings.name_free
    compared.set_result((query, free[1] if free is not None else rankings.query_vector))
    hop = about_ranking(
        keys=keys,
        user=user,
        project=project,
        kinds=passages,
        exclude_message_ids=exclude_message_ids,
        query=query,
        depth=depth,
        guessed=compared,
        # A bridge names someone told of here and there ("Lorcan", the borrower), not
        # someone much of the account is about (a transcript's speakers, each in half its
        # turns, whose passages nearest to the question are mostly about something else).
        most=max(HOP_MIN_PASSAGES, int(HOP_MAX_SHARE * rankings.passages)),
    )
    # The first hit is found already, and would head the list it named: the others are
    # scaled to the best of themselves, as the passages the first hit leads to.
    hop = [
        candidate for candidate in hop if (candidate.kind, candidate.id) != (first.kind, first.id)
    ]
    return replace(rankings, hop=hop)


def new_names(query: str, first: str) -> AskedNames:
    """The keys ``first`` could name someone by that the query has not (``names_asked``:
    whether anyone was ever named so is for the mention index to say)."""
    asked = names_asked(query)
    known = {*asked.written, *asked.opening}
    found = names_asked(first)
    return AskedNames(
        tuple(key for key in found.written if key not in known),
        tuple(key for key in found.opening if key not in known),
    )


def first_text(candidate: Candidate) -> str:
    """The text of a ranked row: a passage's, or a claim's statement."""
    table, column = (
        (Chunk._meta.db_table, "text")
        if candidate.kind == "chunk"
        else (Claim._meta.db_table, "statement")
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {column} FROM {table} WHERE id = %s",  # noqa: S608 - tables from code, values as parameters
            [candidate.id],
        )
        row = cursor.fetchone()
    return str(row[0]) if row else ""
