"""Issue 31: session-aware ranking, measured beside the shipped hybrid search on the quality
corpus — tried, and not shipped (see the closing lines of a run).

A *session* is one conversation's turns of one day. Each variant below changes how the
hybrid search's rankings (``hybrid_rankings``, as ``bench_quality`` reads them) are fused,
then diversifies and cuts as ``hybrid_search`` does:

- ``prior γ``: each fused candidate gains γ × the cosine similarity of the question to its
  session's vector (the mean of the session's turn vectors): turns of sessions about the
  question rise;
- ``sessions by vector S, w`` / ``sessions by BM25 S, w``: the S best sessions by that
  vector, or by Okapi BM25 over the session's whole text, give a fifth list — their turns,
  nearest to the question first — fused with weight w;
- ``cap n``: a question asking for several things keeps at most n turns of one session in
  its first hits (the others move below them).

Every variant is scored on both halves of ``bench_quality``'s split; the tuning half alone
would choose (mean of recall@5 and @10, within ``TOLERANCE`` of the best the shipped search
wins). The session vectors and texts are computed here, in memory, from the imported turns
(the chat's own tables): what a session table kept by the indexing would hold.

Measured on the corpus of issue 31 (2,492 turns, 117 sessions): the tuning half would
choose the ten best sessions by BM25 at weight 0.5 (mean of recall@5 and @10 0.711 against
0.694), which on the test half loses 5.6 / 2.8 points on the multi-session questions and 5.5
/ 0 on the inferential ones for +0.8 at recall@10 overall; the best variant on the test
half, the prior at 0.5, gains 2.0 at recall@10 (mostly in-thread questions) and nothing on
either new family, and the tuning half cannot tell it from the shipped search (+0.8). The
corpus's sessions mix a day's unrelated news, as chats do; a session's vector or words say
little about which of its turns answers. A cap per session loses the questions answered by
a thread of turns (in-thread −11 points at recall@5).

Run: .venv/bin/python bench/bench_sessions.py (after ``bench_quality.py --reuse --keep``
has imported the corpus, or it imports it).
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench import _django  # noqa: E402
from bench.bench_quality import (  # noqa: E402
    DATABASE,
    TOLERANCE,
    corpus_email,
    distinct,
    import_corpus,
    outcome_for,
    reusable_import,
)
from bench.quality.model import NEW_FAMILIES, corpus_load, split_halves  # noqa: E402
from bench.quality.references import Bm25  # noqa: E402
from bench.quality.scoring import DEPTHS, Outcome, mean_recall, table  # noqa: E402

K = max(DEPTHS)
PRIORS = (0.25, 0.5, 1.0)
SESSION_COUNTS = (3, 10)
LIST_WEIGHTS = (0.25, 0.5)
CAPS = (1, 2)


def main() -> None:
    _django.setup(database=DATABASE)
    from apps.chat.models import Message
    from apps.indexing.embeddings import get_embedding_provider
    from apps.indexing.models import Chunk
    from apps.indexing.search._aggregation import asks_for_several, fusion_for
    from apps.indexing.search._diversity import POOL, diversified
    from apps.indexing.search._engine import KINDS, _depth, hybrid_rankings
    from apps.indexing.search._fusion import FUSION, fuse_scores
    from apps.indexing.search._hits import read_rows
    from apps.indexing.search._queries import Candidate

    corpus = corpus_load()
    provider = get_embedding_provider()
    email = corpus_email(corpus)
    found = reusable_import(corpus, email) or import_corpus(corpus, email)
    user, message_ids = found

    rows = Chunk.objects.filter(user=user, message__isnull=False).values_list(
        "id", "message_id", "said_at", "text"
    )
    conversation_of = dict(
        Message.objects.filter(conversation__user=user).values_list("id", "conversation_id")
    )
    message_of, session_of = {}, {}
    members: dict[tuple[object, object], list[int]] = defaultdict(list)
    texts: dict[tuple[object, object], list[str]] = defaultdict(list)
    for pk, message_id, said_at, text in rows:
        session = (conversation_of[message_id], said_at.date())
        message_of[pk], session_of[pk] = str(message_id), session
        members[session].append(pk)
        texts[session].append(text)
    session_by_message = {message_of[pk]: session_of[pk] for pk in message_of}
    candidates = [Candidate("chunk", pk, 0.0) for pk in message_of]
    vectors = read_rows(candidates, [], vectors=True).vectors or {}
    sessions = list(members)
    session_vectors = np.stack(
        [np.mean([vectors[("chunk", pk)] for pk in members[s]], axis=0) for s in sessions]
    )
    session_vectors /= np.linalg.norm(session_vectors, axis=1, keepdims=True)
    row_of = {session: n for n, session in enumerate(sessions)}
    session_bm25 = Bm25(
        [str(n) for n in range(len(sessions))], [" ".join(texts[s]) for s in sessions]
    )
    print(
        f"{len(message_of)} turns in {len(sessions)} sessions (a conversation's day), "
        f"{len(message_of) / len(sessions):.1f} turns a session"
    )

    def ranked(fused: list[tuple[object, float]], fusion: object, cut: int = K) -> list[str]:
        """As ``hybrid_search`` returns them: the pool diversified, cut to ``K``."""
        pool = diversified(
            fused[: max(K, POOL)],
            key=lambda pair: (pair[0].kind, pair[0].id),  # type: ignore[attr-defined]
            score=lambda pair: pair[1],
            vectors=vectors,
            weight=fusion.diversity,  # type: ignore[attr-defined]
            limit=cut,
        )[:cut]
        return distinct([message_of[c.id] for c, _ in pool if c.id in message_of])  # type: ignore[attr-defined]

    def turns_of_best(sessions_found: list[int], unit: np.ndarray) -> list[object]:
        turns = [pk for n in sessions_found for pk in members[sessions[n]]]
        scored = sorted(((float(vectors[("chunk", pk)] @ unit), pk) for pk in turns), reverse=True)
        return [Candidate("chunk", pk, value) for value, pk in scored[: FUSION.min_depth]]

    outcomes: list[Outcome] = []
    for question in corpus.questions:
        outcome = outcome_for(question, message_ids)
        vector = provider.embed_query(question.question)
        unit = np.asarray(vector, dtype=np.float64)
        unit /= np.linalg.norm(unit)
        fusion = fusion_for(question.question, FUSION)
        depth = _depth(K, fusion)
        rankings = hybrid_rankings(
            user=user,
            query=question.question,
            project=None,
            kinds=KINDS,
            depth=depth,
            vector=vector,
        )
        lists = [
            (rankings.vector, fusion.vector),
            (rankings.turns, fusion.turns),
            (rankings.windows, fusion.windows),
            (rankings.period, fusion.period),
        ]
        fused = fuse_scores(*lists, head=fusion.min_depth, k=fusion.rrf_k)
        outcome.ranked["shipped"] = ranked(fused, fusion)
        closeness = session_vectors @ unit
        for prior in PRIORS:
            lifted = sorted(
                (
                    (c, s + prior * float(closeness[row_of[session_of[c.id]]]))
                    for c, s in fused
                    if c.id in session_of
                ),
                key=lambda pair: -pair[1],
            )
            outcome.ranked[f"prior {prior}"] = ranked(lifted, fusion)
        for count in SESSION_COUNTS:
            by_vector = [int(n) for n in np.argsort(-closeness)[:count]]
            by_words = [int(n) for n in session_bm25.rank(question.question, count)]
            for label, best in (("vector", by_vector), ("BM25", by_words)):
                extra = turns_of_best(best, unit)
                for weight in LIST_WEIGHTS:
                    with_sessions = fuse_scores(
                        *lists, (extra, weight), head=fusion.min_depth, k=fusion.rrf_k
                    )
                    outcome.ranked[f"sessions by {label} {count}, {weight}"] = ranked(
                        with_sessions, fusion
                    )
        for cap in CAPS:
            kept = outcome.ranked["shipped"]
            if asks_for_several(question.question):
                pool = ranked(fused, fusion, max(K, POOL))
                kept = _capped(pool, cap, lambda m: session_by_message[m])
            outcome.ranked[f"cap {cap}"] = kept
        outcomes.append(outcome)

    tuning_ids = {q.id for q in split_halves(corpus.questions)[0]}
    tuning = [o for o in outcomes if o.question_id in tuning_ids]
    test = [o for o in outcomes if o.question_id not in tuning_ids]
    methods = list(outcomes[0].ranked)
    print("\nTuning half:")
    for line in table(tuning, methods, NEW_FAMILIES):
        print(line)
    print("\nTest half:")
    for line in table(test, methods, (*NEW_FAMILIES, "in-thread")):
        print(line)
    scores = {m: sum(mean_recall(tuning, m, k) for k in DEPTHS) / len(DEPTHS) for m in methods}
    best = max(scores.values())
    chosen = "shipped" if scores["shipped"] >= best - TOLERANCE else max(scores, key=scores.get)  # type: ignore[arg-type]
    print(
        f"\nTuning half, mean of recall@5 and @10: shipped {scores['shipped']:.3f}, best "
        f"{max(scores, key=scores.get)} {best:.3f} (tolerance {TOLERANCE}): the tuning "  # type: ignore[arg-type]
        f"half chooses {chosen}; ship it only if the test half above agrees, overall and on "
        "each new family"
    )


def _capped(ranked: list[str], cap: int, session: Callable[[str], object]) -> list[str]:
    """At most ``cap`` of each session first; the rest after them, in order."""
    seen: Counter[object] = Counter()
    first, rest = [], []
    for message_id in ranked:
        seen[session(message_id)] += 1
        (first if seen[session(message_id)] <= cap else rest).append(message_id)
    return first + rest


if __name__ == "__main__":
    main()
