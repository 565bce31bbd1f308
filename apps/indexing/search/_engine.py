"""Hybrid search over a user's claims, documents and chats (DESIGN §6).

``hybrid_search`` fuses rankings by their weighted, normalised scores (``fusion``;
reciprocal rank fusion is what the tuning weighs it against): pgvector cosine
similarity (HNSW with iterative scans, so per-user filtering loses nothing) and Okapi BM25
over the requesting user's own rows (``bm25``: any of the query's words, rare ones
weighing most). Every list spans all the wanted kinds: claims and chunks are embedded by
the same model and ranked by the same text search, so one list orders them against each
other. Results are always the requesting
user's only (and the project's, for chunks, when one is given; claims belong to the user,
not a project), only active or contested claims, never chunks of archived conversations.

A query that names a stretch of time ("in May 2024", "last week": ``periods``) adds a
fourth list, the chat turns said then, nearest first: what was said then is what such a
question is about, whatever words it used. A query that names someone or something the
user wrote of ("what does Ilse do with her kids?": ``entities``) adds a fifth, the
passages about them, nearest to the query without the names first. A sixth holds the chat
turns by their memory units (``units``: the statements a person's turn makes, told of
whoever said it), each turn as near as its nearest unit.

The fused list's first hits are then re-ordered so that a hit saying word for word what one
above it says gives way to the others (``diversity.repeats_last``; re-ordering by likeness
of meaning as well is a tuned weight, at 0), and a question asking for several things
("which places has she been to?") reads its lists deeper (``aggregation``): issue 31's
answers told in parts across sessions.

Once fused, the names the first hit writes and the query does not ("Lorcan") add the
passages about them (``hops``): a second hop, for answers told in two turns.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
from django.conf import settings
from django.utils import timezone

from apps.core.concurrency import run_beside, settle

from ..embeddings import Vector
from ..mentions import AskedNames
from ._aggregation import fusion_for
from ._bm25 import Collection
from ._diversity import POOL, Key, diversified, repeats_last
from ._entities import NameFree, about_ranking, embed_question, names_asked
from ._evidence import hidden_message_ids, relevant
from ._fusion import FUSION, Fusion, Rankings
from ._hits import SearchHit, hits_of, read_rows, wording
from ._hops import with_hop
from ._periods import Period, period_named
from ._plans import DatedScope, VectorPlan, search_plans, vector_plan
from ._queries import (
    CHUNK_KINDS,
    Candidate,
    Lexical,
    Scope,
    bm25_rankings,
    chunk_scope,
    claim_scope,
    nearest,
    nearest_each,
    search_session,
)
from ._units import units_ranking

if TYPE_CHECKING:
    from apps.accounts.models import User
    from apps.projects.models import Project

KINDS = ("claim", "document", "message")
# How much deeper an evidence search reads, for the turns it then leaves out.
EVIDENCE_DEPTH = 3
# How deep it reads at the most, when Cairn's answers crowd the first reading.
EVIDENCE_MAX_READ = 270
MAX_K = 100


def hybrid_search(
    *,
    user: User,
    query: str,
    project: Project | None = None,
    kinds: Sequence[str] = KINDS,
    k: int = 10,
    exclude_message_ids: Sequence[uuid.UUID | str] = (),
    vector: Vector | None = None,
    evidence_only: bool = False,
    name_free: NameFree | None = None,
) -> list[SearchHit]:
    """The ``k`` best hits for ``query``, best first (``vector``: the query's embedding,
    when the caller has it already, and ``name_free`` with it, as ``embed_question``
    makes them; ``evidence_only``: chat turns only where they are evidence, see
    ``evidence_search``)."""
    if not query.strip():
        return []
    excluded, wanted = list(exclude_message_ids), _clamp(k)
    fusion = fusion_for(query, FUSION)
    if evidence_only and "message" in kinds:
        # Forgotten turns are few: left out of every ranking. The turns that are no
        # evidence (Cairn's answers, bare questions) are many: the rankings go deeper and
        # they are dropped from the hits, which already read each turn's speaker; a filter
        # in the rankings' statements would join every chat turn of the account to its
        # conversation, in each of them.
        excluded += hidden_message_ids(user=user)
        wanted = EVIDENCE_DEPTH * _clamp(k)
    while True:
        rankings = hybrid_rankings(
            user=user,
            query=query,
            project=project,
            kinds=kinds,
            depth=_depth(wanted, fusion),
            exclude_message_ids=excluded,
            vector=vector,
            units=fusion.units > 0,
            name_free=name_free,
        )
        fused = rankings.fused(fusion)
        hopped = with_hop(
            rankings,
            fusion,
            fused[0][0] if fused else None,
            query=query,
            user=user,
            project=project,
            kinds=kinds,
            exclude_message_ids=excluded,
            depth=_depth(wanted, fusion),
        )
        if hopped is not rankings:
            rankings, fused = hopped, hopped.fused(fusion)
        # Twice the wanted hits are read, so that a hit repeating one above it can give way
        # (``repeats_last``; an evidence search reads deeper anyway). Diversifying
        # re-orders a pool of the first hits (``diversity.POOL``): their rows are read with
        # their vectors, then the wanted ones are chosen among them.
        read = wanted if evidence_only else 2 * wanted
        fused = fused[: max(read, POOL) if fusion.diversity else read]
        rows = read_rows(
            [c for c, _ in fused],
            [*rankings.vector, *rankings.period, *rankings.about],
            rankings.query_vector,
            vectors=bool(fusion.diversity),
        )
        if not evidence_only and rows.vectors is not None:
            # Every hit is returned: re-ordered first, so only the wanted turns are asked of
            # the chat.
            fused = diversified(
                fused,
                key=lambda pair: (pair[0].kind, pair[0].id),
                score=lambda pair: pair[1],
                vectors=rows.vectors,
                weight=fusion.diversity,
                limit=wanted,
            )[:read]
        hits = hits_of(fused, rows, rankings.text())
        if not evidence_only:
            hits = repeats_last(hits, key=wording)[:wanted]
            break
        # Diversified after the evidence rule: an answer of Cairn's quoting a turn would
        # otherwise push the turn itself down, and then be left out.
        evidence = repeats_last([hit for hit in hits if hit.evidence], key=wording)
        kept = _diverse_hits(evidence, rows.vectors, fusion, _clamp(k))
        # Cairn's own answers filled the deeper list (a long chat about one thing): read
        # deeper again rather than answer with fewer than ``k`` while more are there.
        if len(kept) >= _clamp(k) or len(fused) < wanted or wanted >= EVIDENCE_MAX_READ:
            hits = kept[: _clamp(k)]
            break
        wanted, vector = min(EVIDENCE_DEPTH * wanted, EVIDENCE_MAX_READ), rankings.query_vector
    said_then = {c.id for c in rankings.period}
    return [
        replace(hit, in_period=True) if hit.kind != "claim" and hit.chunk_id in said_then else hit
        for hit in hits
    ]


def evidence_search(
    *,
    user: User,
    query: str,
    project: Project | None = None,
    kinds: Sequence[str] = KINDS,
    k: int = 10,
    exclude_message_ids: Sequence[uuid.UUID | str] = (),
    vector: Vector | None = None,
    everything: bool = False,
    relevant_only: bool = False,
    name_free: NameFree | None = None,
) -> list[SearchHit]:
    """Search as every door into an answer does (issue 28; the rule is ``evidence``'s):
    only what someone said or wrote — never Cairn's own answers, a bare question, a failed
    turn or a forgotten one — unless ``everything`` is asked for; ``relevant_only`` keeps
    the hits relevant enough to cite (a clear word match, or a close meaning)."""
    hits = hybrid_search(
        user=user,
        query=query,
        project=project,
        kinds=kinds,
        k=k,
        exclude_message_ids=exclude_message_ids,
        vector=vector,
        evidence_only=not everything,
        name_free=name_free,
    )
    if relevant_only:
        hits = relevant(hits, question=query, threshold=settings.CAIRN_CITE_THRESHOLD)
    return hits


def _diverse_hits(
    hits: list[SearchHit], vectors: Mapping[Key, np.ndarray] | None, fusion: Fusion, limit: int
) -> list[SearchHit]:
    if vectors is None:
        return hits
    return diversified(
        hits,
        key=lambda hit: ("claim", hit.claim_id) if hit.kind == "claim" else ("chunk", hit.chunk_id),
        score=lambda hit: hit.score,
        vectors=vectors,
        weight=fusion.diversity,
        limit=limit,
    )


def hybrid_rankings(
    *,
    user: User,
    query: str,
    project: Project | None,
    kinds: Sequence[str],
    depth: int,
    exclude_message_ids: Sequence[uuid.UUID | str] = (),
    vector: Vector | None = None,
    units: bool = True,
    name_free: NameFree | None = None,
) -> Rankings:
    """The rankings ``hybrid_search`` fuses (the quality benchmark tunes their weights;
    ``units``: with the chat turns' memory units, which weigh nothing when off;
    ``name_free``: with ``vector``, the query without its names embedded with it,
    ``embed_question``)."""
    scopes = _scopes(user, project, kinds, exclude_message_ids)
    turns, windows = _lexical(scopes, user, project, kinds, exclude_message_ids)
    chunk_scopes = [scope for scope in scopes if scope.kind == "chunk"]
    claim_scopes = [scope for scope in scopes if scope.kind == "claim"]
    query_vector: Future[tuple[Vector, VectorPlan]] = Future()
    unit_vector: Future[Vector] = Future()
    guessed: Future[NameFree | None] | None = None
    started: list[Callable[[], object]] = []
    try:
        # Full-text search needs neither the embedding nor the vector results: its two
        # rankings run beside, on a connection of their own (they share the query's terms),
        # then the claims' vector search, once this thread has the query's embedding (and
        # the claims' plan, ``search_plans``): the work is split about evenly, where on two
        # cores a thread for each ranking only made them compete (bench/bench_search.py).
        beside = run_beside(
            _by_words_then_claims,
            [turns] if windows is None else [turns, windows],
            query,
            depth,
            claim_scopes,
            query_vector,
        )
        started.append(beside)
        dated = [kind for kind in kinds if kind in CHUNK_KINDS]
        # The passages about whom the query names (``entities``) are compared with the
        # query without the names, a vector of their own: started beside the rest at once.
        # A query without a capitalised word costs nothing here.
        names = names_asked(query) if dated else AskedNames()
        # The query without its names is embedded with the query itself, in one run of the
        # model (``embed_question``: here, or by the caller, who passes ``name_free``): a
        # second run on that thread competed with everything else for two cores.
        guessed = Future() if names else None
        if guessed is not None and vector is not None:
            guessed.set_result(name_free)  # None: the about list embeds its own
        about_result = (
            run_beside(
                about_ranking,
                keys=names,
                user=user,
                project=project,
                kinds=dated,
                exclude_message_ids=exclude_message_ids,
                query=query,
                depth=depth,
                guessed=guessed,
            )
            if names
            else list
        )
        started.append(about_result)
        period = period_named(query, now=timezone.localtime()) if dated else None
        said_then = _said_in(period, user, project, dated, exclude_message_ids) if period else None
        # The turns by their statements (``units``), searched beside once the query's
        # embedding is there (the user's units are counted meanwhile).
        units_result = (
            run_beside(
                units_ranking,
                user=user,
                project=project,
                exclude_message_ids=exclude_message_ids,
                query_vector=unit_vector,
                depth=depth,
            )
            if units and "message" in kinds
            else list
        )
        started.append(units_result)
        if vector is None:
            question = embed_question(query, names)
            vector, name_free = question.vector, question.name_free
            if guessed is not None:
                guessed.set_result(name_free)
        unit_vector.set_result(vector)
        plans = search_plans(
            _collection(user, project, dated) if chunk_scopes else None,
            _collection(user, None, ["claim"]) if claim_scopes else None,
            said_then,
        )
        query_vector.set_result((vector, plans.vectors))
        by_chunk: list[Candidate] = []
        by_period: list[Candidate] = []
        if chunk_scopes:
            searches = [(chunk_scopes, plans.vectors)]
            if said_then is not None and plans.period is not None:
                searches.append(([said_then.scope], plans.period))
            with search_session(["chunk"]):
                by_chunk, *period_found = nearest_each(searches, vector, depth)
            by_period = period_found[0] if period_found else []
        by_about, by_units = about_result(), units_result()
        (by_turn, *by_window), by_claim = beside()
    except BaseException as error:
        # Whatever failed, the threads beside stop waiting for what this thread owed them,
        # and are waited for: a failed search leaves none of its statements running.
        for waited in (query_vector, unit_vector, guessed):
            if waited is not None and not waited.done():
                waited.set_exception(error)
        settle(started)
        raise
    # As ``nearest`` orders one list of both kinds: by similarity, chunks first among equals.
    by_vector = sorted([*by_chunk, *by_claim], key=lambda candidate: -candidate.value)
    return Rankings(
        by_vector,
        by_turn,
        by_window[0] if by_window else [],
        query_vector=vector,
        period=by_period,
        about=by_about,
        units=by_units,
        name_free=name_free if names else None,
        passages=plans.chunks,
    )


def _by_words_then_claims(
    lexicals: list[Lexical],
    query: str,
    depth: int,
    claim_scopes: list[Scope],
    query_vector: Future[tuple[Vector, VectorPlan]],
) -> tuple[list[list[Candidate]], list[Candidate]]:
    """The BM25 rankings, then the claims nearest to the query once its embedding (and
    how to search them) is there (claims are searched apart from chunks anyway: another
    HNSW candidate list), in one search session: full-text search reads none of its HNSW
    settings, so they are the claims'."""
    kinds = ["claim"] if claim_scopes else [s.kind for lexical in lexicals for s in lexical.scopes]
    with search_session(kinds):
        by_words = bm25_rankings(lexicals, query, depth)
        if not claim_scopes:
            return by_words, []
        vector, plan = query_vector.result()
        return by_words, nearest(claim_scopes, vector, depth, plan)


def _said_in(
    period: Period,
    user: User,
    project: Project | None,
    kinds: Sequence[str],
    exclude_message_ids: Sequence[uuid.UUID | str],
) -> DatedScope:
    """The chat turns said and the files written within ``period``, searched nearest to
    the query first, with the chunks (one statement; its count in ``search_plans``'s
    round trip, beside a thread of its own before: a month's 830 turns cost less than the
    thread and its four round trips): "what did I buy in May 2024?" is about May 2024's
    turns and receipts, whose words need not share any with the question (on the quality
    corpus such questions' evidence was mostly outside every other list's top ten). A file
    counts by the date it tells (``Document.dated_at``); claims are left out: when they
    were stored says nothing of when what they tell happened."""
    said_between = (period.start, period.end)
    scope = chunk_scope(
        user_id=user.pk,
        project_id=project.pk if project else None,
        kinds=kinds,
        exclude_message_ids=exclude_message_ids,
        said_between=said_between,
    )
    return DatedScope(scope, user.pk, said_between)


def _clamp(k: int) -> int:
    return max(1, min(int(k), MAX_K))


def _depth(wanted: int, fusion: Fusion) -> int:
    """How deep each ranking goes: deeper than the ``wanted`` hits so that an item ranked
    well by one list and moderately by the other can still rise."""
    return max(3 * wanted, fusion.min_depth)


def _scopes(
    user: User,
    project: Project | None,
    kinds: Sequence[str],
    exclude_message_ids: Sequence[uuid.UUID | str],
) -> list[Scope]:
    unknown = set(kinds) - set(KINDS)
    if unknown:
        raise ValueError(f"unknown kinds {sorted(unknown)}; known: {', '.join(KINDS)}")
    chunk_kinds = [kind for kind in kinds if kind in CHUNK_KINDS]
    scopes = []
    if chunk_kinds:
        scopes.append(
            chunk_scope(
                user_id=user.pk,
                project_id=project.pk if project else None,
                kinds=chunk_kinds,
                exclude_message_ids=exclude_message_ids,
            )
        )
    if "claim" in kinds:
        scopes.append(claim_scope(user_id=user.pk))
    return scopes


def _lexical(
    scopes: list[Scope],
    user: User,
    project: Project | None,
    kinds: Sequence[str],
    exclude_message_ids: Sequence[uuid.UUID | str],
) -> tuple[Lexical, Lexical | None]:
    """What BM25 ranks: every row by its own text, and chat turns by their windows."""
    turns = Lexical(scopes, _collection(user, project, kinds))
    if "message" not in kinds:
        return turns, None
    messages = chunk_scope(
        user_id=user.pk,
        project_id=project.pk if project else None,
        kinds=["message"],
        exclude_message_ids=exclude_message_ids,
        windows=True,
    )
    windows = Lexical(
        [messages],
        _collection(user, project, ["window"]),
        "window_vector",
    )
    return turns, windows


def _plan(user: User, project: Project | None, kinds: Sequence[str]) -> VectorPlan:
    """How this account's vectors are searched (``vector_plan``)."""
    chunk_kinds = [kind for kind in kinds if kind in CHUNK_KINDS]
    return vector_plan(
        _collection(user, project, chunk_kinds) if chunk_kinds else None,
        _collection(user, None, ["claim"]) if "claim" in kinds else None,
    )


def _collection(user: User, project: Project | None, kinds: Sequence[str]) -> Collection:
    """Whose statistics weigh the words: the user's rows of the kinds searched (and, in a
    project, its chunks with the user's claims, as ``_scopes`` searches them)."""
    return Collection(
        user_id=user.pk, kinds=tuple(kinds), project_id=project.pk if project else None
    )
