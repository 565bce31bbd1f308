"""Search at scale (issue 6): hybrid search p95 ≤ 30 ms with 100,000 chunks and 10,000
claims for one user among ten; HNSW recall@10 against exact search ≥ 0.95; query embedding
p50 ≤ 5 ms; model load ≤ 1 s. Issue 31: a hybrid search, and one naming a month or a year,
costs at most 1.3 × the larger of vector and BM25 search alone plus the embedding (p95
each, measured in the same run): its rankings run side by side, not one after the other.

Data (built once in cairn_bench, reused by later runs unless --rebuild): ten users. The
measured user owns 100,000 chunks and 10,000 claims; the nine others share as many again
(about 11,000 chunks and 1,100 claims each), so the table holds 200,000 chunks and every
query filters half of it away — and for a second, small user 95 % of it.

Vectors and text: real English from this machine, embedded by the real model. 2,400
paragraphs of the Python standard library's docstrings (``bench/search_data.py``) are the
passage pool and 800 first sentences of others the claim pool; each row's vector mixes
three pool vectors with random (Dirichlet) weights plus Gaussian noise (σ 0.02 a
dimension), normalised, and its text is its heaviest passage. Rows so lie between real
points of the model's space, none identical (identical vectors would make recall
ill-defined), and queries — the first words of held-out paragraphs, embedded by the model
— meet them as they would meet real passages. (Templated sentences, tried first, crowd
every row into one narrow cone and make any ANN index look worse than on real text.) Rows
are loaded with COPY and the HNSW indexes built afterwards (m 16, ef_construction 64), as a
restore would.

Caching: the embedded PostgreSQL is given 1 GB of shared buffers (config/embedded_db.py),
which hold this data's HNSW and GIN indexes, as a running server's would; one untimed pass
over all the queries first loads the pages they touch, so that the timed passes measure a
warm server rather than the first minutes after a restart.

Postings: each user's BM25 postings are packed before measuring (issue 19), as the worker
packs them once enough changed (``services.postings``); a line measures BM25 unpacked too,
as an account is between a large import and its packing.

Run: .venv/bin/python bench/bench_search.py [--rebuild] [--queries 200]
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench import _django  # noqa: E402
from bench.search_data import (  # noqa: E402
    USERS,
    build_data,
    data_ready,
    ensure_dated_turns,
    ensure_mentions,
    named_keys,
    query_texts,
)

P95_TARGET_MS = 30.0
PARTS_FACTOR = 1.3
RECALL_TARGET = 0.95
EMBED_P50_TARGET_MS = 5.0
LOAD_TARGET_S = 1.0

LOAD_SNIPPET = (
    "import time; t = time.perf_counter(); "
    "from apps.indexing.embeddings import build_provider; "
    "p = build_provider('minilm-onnx'); loaded = time.perf_counter() - t; "
    "p.embed_query('warm up'); print(loaded, time.perf_counter() - t - loaded)"
)


def model_load_seconds(runs: int = 3) -> tuple[float, float]:
    """(load, first query) in fresh processes: import onnxruntime, read the model, build
    the session. Median of ``runs``."""
    loads, firsts = [], []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", LOAD_SNIPPET],
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()
        loads.append(float(out[0]))
        firsts.append(float(out[1]))
    return statistics.median(loads), statistics.median(firsts)


def timed_ms(fn: object, arguments: list[object]) -> list[float]:
    samples = []
    for argument in arguments:
        start = time.perf_counter()
        fn(argument)  # type: ignore[operator]
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def paired_ms(
    first: object, second: object, arguments: list[object]
) -> tuple[list[float], list[float]]:
    """Each argument timed by both functions, one right after the other (which one first
    alternates): their difference is measured under the same load, on a shared machine."""
    a, b = [], []
    for n, argument in enumerate(arguments):
        pair = [(first, a), (second, b)]
        for fn, samples in pair if n % 2 == 0 else reversed(pair):
            start = time.perf_counter()
            fn(argument)  # type: ignore[operator]
            samples.append((time.perf_counter() - start) * 1000)
    return a, b


def line(name: str, samples: list[float], target: float | None = None) -> list[float]:
    p50, p95 = statistics.median(samples), _django.percentile(samples, 95)
    text = f"{name:<50} p50 {p50:7.2f} ms  p95 {p95:7.2f} ms"
    if target is not None:
        text += f"   target p95 ≤ {target:g} ms  ratio {p95 / target:4.2f}  "
        text += "OK" if p95 <= target else "OVER"
    print(text, flush=True)
    return samples


def against_parts(name: str, hybrid: list[float], parts: dict[str, list[float]]) -> bool:
    """Issue 31: a hybrid search costs at most 1.3 times the larger of its rankings alone,
    plus the query's embedding (p95 each: the rankings side by side, not one after the
    other), and at most ``P95_TARGET_MS``. Prints the line; whether both hold."""
    p95 = {key: _django.percentile(samples, 95) for key, samples in parts.items()}
    bound = PARTS_FACTOR * max(p95["vector"], p95["bm25"]) + p95["embedding"]
    value = _django.percentile(hybrid, 95)
    met = value <= bound and value <= P95_TARGET_MS
    print(
        f"{name:<50} p95 {value:7.2f} ms  ≤ {PARTS_FACTOR:g} × max(vector "
        f"{p95['vector']:.2f}, BM25 {p95['bm25']:.2f}) + embedding {p95['embedding']:.2f} "
        f"= {bound:.2f} ms: ratio {value / bound:4.2f}; ≤ {P95_TARGET_MS:g} ms: ratio "
        f"{value / P95_TARGET_MS:4.2f}  {'OK' if met else 'OVER'}",
        flush=True,
    )
    return met


def _fused_by(fusion: object, search: object) -> object:
    """``search()`` with hybrid search fusing by ``fusion`` instead of its own."""
    from apps.indexing.search import _engine

    kept = _engine.FUSION
    _engine.FUSION = fusion  # type: ignore[assignment]
    try:
        return search()  # type: ignore[operator]
    finally:
        _engine.FUSION = kept


def recall_at_10(user: object, vectors: list[np.ndarray], kind: str) -> float:
    """Mean share of the exact top 10 (no index: every row compared) that vector search
    also returns, as hybrid search runs it: an HNSW iterative scan, or for an account of
    at most CAIRN_SEARCH_EXACT_ROWS rows every row compared (issue 19)."""
    from django.db import connection, transaction

    from apps.indexing.search._engine import _plan
    from apps.indexing.search._queries import (
        compile_scopes,
        nearest,
        search_session,
        user_chunks,
        user_claims,
    )

    def scopes() -> list[object]:
        if kind == "chunk":
            return compile_scopes(user_chunks(user=user, project=None, kinds=["document"]), None)
        return compile_scopes(None, user_claims(user=user))

    plan = _plan(user, None, ["document"] if kind == "chunk" else ["claim"])  # type: ignore[arg-type]
    how = "exactly" if plan.exact else f"by HNSW, ef_search {plan.ef_for(kind)}"
    print(f"  ({kind}s of this user searched {how})")
    recalls = []
    for vector in vectors:
        with search_session([kind]):
            approximate = {c.id for c in nearest(scopes(), vector, 10, plan)}  # type: ignore[arg-type]
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET LOCAL enable_indexscan = off")
            exact = {c.id for c in nearest(scopes(), vector, 10)}  # type: ignore[arg-type]
        recalls.append(len(approximate & exact) / max(1, len(exact)))
    return statistics.fmean(recalls)


def ts_rank_reference(user: object, query: str) -> list[int]:
    """The ten chunks of ``user`` with the best ``ts_rank`` among those holding any of the
    query's words: PostgreSQL's built-in ranking, for comparison."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "WITH q AS (SELECT replace(plainto_tsquery('english', %s)::text, '&', '|')::tsquery "
            "AS q) SELECT c.id FROM indexing_chunk AS c, q WHERE c.user_id = %s "
            "AND c.search_vector @@ q.q ORDER BY ts_rank(c.search_vector, q.q) DESC LIMIT 10",
            [query, user.pk],  # type: ignore[attr-defined]
        )
        return [row[0] for row in cursor.fetchall()]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rebuild", action="store_true", help="generate the data again")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--recall-queries", type=int, default=100)
    options = parser.parse_args()
    _django.setup()

    from django.db import transaction

    from apps.accounts.models import User
    from apps.indexing.embeddings import get_embedding_provider
    from apps.indexing.models import Chunk, PostingPack, PostingPackState
    from apps.indexing.search import _engine, hybrid_search, text_search, vector_search
    from apps.indexing.services.postings import postings_pack, postings_pack_due

    load_s, first_query_s = model_load_seconds()
    provider = get_embedding_provider()
    if options.rebuild or not data_ready():
        build_data(provider)
    ensure_dated_turns(USERS[0])
    ensure_mentions(USERS)
    big = User.objects.get(email=USERS[0])
    small = User.objects.get(email=USERS[5])
    # The worker packs an account's postings once enough of them changed (issue 19):
    # measured here as it would find them, packed, and the packing timed.
    for user in User.objects.filter(email__in=USERS):
        if postings_pack_due(user_id=user.pk):
            started = time.perf_counter()
            packed = postings_pack(user_id=user.pk)
            print(
                f"  packed the postings of {user.email}: {packed.postings if packed else 0:,}"
                f" in {time.perf_counter() - started:.1f} s",
                flush=True,
            )
    print(
        f"chunks: {Chunk.objects.count():,} in all, {Chunk.objects.filter(user=big).count():,}"
        f" of the measured user, {Chunk.objects.filter(user=small).count():,} of the small "
        f"one; claims of the measured user: {big.claims.count():,}",
        flush=True,
    )

    queries = query_texts(random.Random(7), options.queries)
    for query in queries[:10]:
        provider.embed_query(query)
    embed_samples = timed_ms(provider.embed_query, queries)
    vectors = [provider.embed_query(query) for query in queries]
    pairs = list(zip(queries, vectors, strict=True))

    def hybrid(user: object) -> object:
        return lambda pair: hybrid_search(user=user, query=pair[0], k=10, vector=pair[1])

    for pair in pairs:  # warm the buffers (see the module docstring), the connections
        hybrid(big)(pair)
        hybrid(small)(pair)
    print()
    print(
        f"{'model load (fresh process)':<50} {load_s * 1000:7.0f} ms   target ≤ "
        f"{LOAD_TARGET_S * 1000:g} ms  ratio {load_s / LOAD_TARGET_S:4.2f}  "
        f"{'OK' if load_s <= LOAD_TARGET_S else 'OVER'}   (first query after it "
        f"{first_query_s * 1000:.0f} ms)"
    )
    p50 = statistics.median(embed_samples)
    print(
        f"{'query embedding':<50} p50 {p50:7.2f} ms  p95 "
        f"{_django.percentile(embed_samples, 95):7.2f} ms   target p50 ≤ "
        f"{EMBED_P50_TARGET_MS:g} ms  ratio {p50 / EMBED_P50_TARGET_MS:4.2f}  "
        f"{'OK' if p50 <= EMBED_P50_TARGET_MS else 'OVER'}"
    )
    hybrid_samples = line(
        "hybrid search, embedding included (100k user)",
        timed_ms(lambda q: hybrid_search(user=big, query=q, k=10), queries),
        P95_TARGET_MS,
    )
    line("hybrid search, query vector given (100k user)", timed_ms(hybrid(big), pairs))
    # The targets hold for a small account too (5 % of the rows, issue 19), which the
    # filtered HNSW scan serves less well.
    line(
        "hybrid search, embedding included (11k user)",
        timed_ms(lambda q: hybrid_search(user=small, query=q, k=10), queries),
        P95_TARGET_MS,
    )
    # A question that names a time adds the turns said then (issue 19): a month of the
    # measured user's two years of chats is ~830 turns, compared one by one; a year,
    # 10,000, searched through the HNSW index.
    months = ["January", "March", "May", "August", "October", "December"]
    named: dict[str, list[float]] = {}
    for label, suffix in (
        ("a month named", lambda n: f" in {months[n % 6]} {2024 + n % 2}"),
        ("a year named", lambda n: f" in {2024 + n % 2}"),
    ):
        dated = [query + suffix(n) for n, query in enumerate(queries)]
        for query in dated[:20]:
            hybrid_search(user=big, query=query, k=10)
        named[label] = line(
            f"hybrid search, {label}, embedding incl. (100k)",
            timed_ms(lambda q: hybrid_search(user=big, query=q, k=10), dated),
            P95_TARGET_MS,
        )
    # Issue 31: a question asking for several things reads its lists deeper
    # (``several_depth``), and every search diversifies its first hits (``diversity``);
    # their cost is measured against the same search without them, query by query.
    several = [f"Which are all the {query}" for query in queries]
    for query in several[:20]:
        hybrid_search(user=big, query=query, k=10)
    line(
        "hybrid search, asking for several, embedding incl. (100k)",
        timed_ms(lambda q: hybrid_search(user=big, query=q, k=10), several),
        P95_TARGET_MS,
    )
    plain = replace(_engine.FUSION, diversity=0.0, several_depth=0)
    for label, asked in (
        ("", pairs),
        (", asking for several", list(zip(several, vectors, strict=True))),
    ):
        with_them, without = paired_ms(
            hybrid(big),
            lambda pair: _fused_by(plain, lambda: hybrid(big)(pair)),
            asked,  # type: ignore[arg-type]
        )
        line(f"  the same, with diversity and depth{label}", with_them)
        line(f"  the same, without (vector given){label}", without)
    # A question that names someone the user wrote of adds the passages about them
    # (issue 31, ``search._entities``): the names range from a few passages to thousands.
    names = named_keys(USERS[0], 50, random.Random(11))
    if names:
        naming = [f"{query} {names[n % len(names)]}" for n, query in enumerate(queries)]
        for query in naming[:20]:
            hybrid_search(user=big, query=query, k=10)
        named["a name named"] = line(
            "hybrid search, a name named, embedding incl. (100k)",
            timed_ms(lambda q: hybrid_search(user=big, query=q, k=10), naming),
            P95_TARGET_MS,
        )
    vector_samples = line(
        "vector search alone (100k user)",
        timed_ms(lambda pair: vector_search(user=big, vector=pair[1], k=10), pairs),
    )
    bm25 = timed_ms(lambda pair: text_search(user=big, query=pair[0], k=10), pairs)
    line("full-text search alone, BM25 (100k user)", bm25)
    # Before the worker has packed them (right after a large import), every posting is
    # read from its row: the packs and their state removed in a transaction rolled back.
    with transaction.atomic():
        PostingPack.objects.filter(user_id=big.pk).delete()
        PostingPackState.objects.filter(user_id=big.pk).delete()
        line(
            "full-text search alone, BM25, not packed (100k)",
            timed_ms(lambda pair: text_search(user=big, query=pair[0], k=10), pairs),
        )
        transaction.set_rollback(True)
    # The reference, same run, same rows: PostgreSQL's own full-text ranking as a Django
    # project would write it (any word, ts_rank, the GIN index), which has no inverse
    # document frequency (issue 19) — what BM25 must not cost much more than.
    native = timed_ms(lambda pair: ts_rank_reference(big, pair[0]), pairs)
    line("reference: ts_rank over any word, GIN (100k user)", native)
    print(
        f"{'BM25 against the ts_rank reference':<50} p50 ratio "
        f"{statistics.median(bm25) / statistics.median(native):4.2f}   p95 ratio "
        f"{_django.percentile(bm25, 95) / _django.percentile(native, 95):4.2f}"
    )
    parts = {"vector": vector_samples, "bm25": bm25, "embedding": embed_samples}
    print()
    against_parts("hybrid against its parts (100k user)", hybrid_samples, parts)
    for label, samples in named.items():
        against_parts(f"hybrid, {label}, against its parts", samples, parts)
    print()

    sample = vectors[: options.recall_queries]
    for label, user in (("100k user", big), ("11k user", small)):
        for kind in ("chunk", "claim"):
            recall = recall_at_10(user, sample, kind)
            verdict = "OK" if recall >= RECALL_TARGET else "UNDER"
            target = f"target ≥ {RECALL_TARGET}  {verdict}"
            print(
                f"{f'HNSW recall@10 vs exact, {kind}s ({label})':<50} {recall:7.3f}      {target}",
                flush=True,
            )


if __name__ == "__main__":
    main()
