"""Issue 8, item 6: retrieval quality of chat memory — full text, vectors and hybrid.

Imports the corpus in ``bench/quality/corpus.json`` (24 multi-session conversations, 300+
questions tagged with the turns that answer them) through the transcript API as a fresh
user, lets every message be indexed, then asks each question with ``text_search``,
``vector_search`` and ``hybrid_search`` and reports recall@5 and recall@10 of the evidence
turns, overall and per category, side by side in one run. The hybrid is expected to beat
both; where it does not, the questions it loses are printed.

Run: .venv/bin/python bench/bench_quality.py [--reuse] [--keep] [--strict] [--examples 6]
     (``make bench-quality``). ``--reuse`` keeps the imported user between runs and skips
     the import when the corpus and embedding model are unchanged: for tuning the search.
Per-question rankings are written to artifacts/bench_quality.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench import _django  # noqa: E402
from bench.quality.model import CATEGORIES, Corpus, corpus_load  # noqa: E402
from bench.quality.scoring import DEPTHS, METHODS, Outcome, mean_recall, table  # noqa: E402

DATABASE = "cairn_quality"
EMAIL_DOMAIN = "quality.bench.invalid"
RESULTS_PATH = ROOT / "artifacts" / "bench_quality.json"
K = max(DEPTHS)


def corpus_fingerprint(corpus: Corpus) -> str:
    """Of the conversations only: editing questions does not call for a new import."""
    turns = json.dumps(
        [
            [c.title, [(t.role, t.content, t.created_at) for t in c.turns]]
            for c in corpus.conversations
        ]
    )
    return hashlib.sha256(turns.encode()).hexdigest()[:12]


def import_corpus(corpus: Corpus, email: str) -> tuple[object, list[list[str]]]:
    """A fresh user with every conversation imported through the API; returns the user and
    the message ids of each conversation in order."""
    from rest_framework.test import APIClient

    from apps.accounts.models import User
    from apps.accounts.services import api_token_create

    User.objects.filter(email__endswith=f"@{EMAIL_DOMAIN}").delete()
    user = User.objects.create_user(email=email, password=None)
    _, key = api_token_create(user=user, name="quality bench")
    client = APIClient(SERVER_NAME="localhost")
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    message_ids = []
    for index, conversation in enumerate(corpus.conversations, start=1):
        payload = {
            "title": conversation.title,
            "messages": [
                {"role": t.role, "content": t.content, "created_at": t.created_at}
                for t in conversation.turns
            ],
        }
        start = time.perf_counter()
        response = client.post("/api/v1/conversations/import/", payload, format="json")
        if response.status_code != 201:
            raise SystemExit(f"import failed ({response.status_code}): {response.content[:500]!r}")
        message_ids.append([str(i) for i in response.json()["message_ids"]])
        print(
            f"  imported {index:>2}/{len(corpus.conversations)} '{conversation.title}': "
            f"{len(conversation.turns)} turns in {time.perf_counter() - start:5.1f} s",
            flush=True,
        )
    return user, message_ids


def reusable_import(corpus: Corpus, email: str) -> tuple[object, list[list[str]]] | None:
    """The previous run's user and message ids, if its import is complete and current."""
    from apps.accounts.models import User
    from apps.chat.models import Message
    from apps.indexing.embeddings import get_embedding_provider
    from apps.indexing.models import Chunk

    user = User.objects.filter(email=email).first()
    if user is None:
        return None
    rows = Message.objects.filter(conversation__user=user).values_list(
        "conversation__title", "order", "id"
    )
    by_title: dict[str, dict[int, str]] = {}
    for title, order, message_id in rows:
        by_title.setdefault(title, {})[order] = str(message_id)
    message_ids = []
    for conversation in corpus.conversations:
        orders = by_title.get(conversation.title, {})
        if sorted(orders) != list(range(1, len(conversation.turns) + 1)):
            return None
        message_ids.append([orders[order] for order in sorted(orders)])
    stale = (
        Chunk.objects.filter(user=user)
        .exclude(embedding_model=get_embedding_provider().name)
        .exists()
    )
    return None if stale or _unindexed(user) else (user, message_ids)


def _unindexed(user: object) -> int:
    from apps.chat.models import Message

    return Message.objects.filter(conversation__user=user, index_chunks__isnull=True).count()


def wait_until_indexed(user: object, total: int, timeout: float = 600) -> None:
    """Jobs run inline in the test settings; with a real worker this waits for it."""
    deadline = time.monotonic() + timeout
    while (missing := _unindexed(user)) and time.monotonic() < deadline:
        print(f"  waiting for indexing: {missing} of {total} messages left", flush=True)
        time.sleep(2)
    if missing:
        raise SystemExit(f"{missing} of {total} messages were never indexed")


def ask_all(
    corpus: Corpus, user: object, message_ids: list[list[str]]
) -> tuple[list[Outcome], dict[str, list[float]]]:
    from apps.indexing.embeddings import get_embedding_provider
    from apps.indexing.search import hybrid_search, text_search, vector_search

    provider = get_embedding_provider()
    outcomes = []
    timings: dict[str, list[float]] = {m: [] for m in METHODS}
    for question in corpus.questions:
        ids = [message_ids[e.conversation] for e in question.evidence]
        evidence = [ids[i][e.order - 1] for i, e in enumerate(question.evidence)]
        neighbours = {
            ids[i][e.order - 1]: {
                ids[i][o - 1] for o in (e.order - 1, e.order + 1) if 1 <= o <= len(ids[i])
            }
            for i, e in enumerate(question.evidence)
        }
        superseded = [message_ids[e.conversation][e.order - 1] for e in question.superseded]
        outcome = Outcome(
            question.id, question.category, evidence, neighbours=neighbours, superseded=superseded
        )
        searches = {
            "text": lambda q=question.question: text_search(user=user, query=q, k=K),
            "vector": lambda q=question.question: vector_search(
                user=user, vector=provider.embed_query(q), k=K
            ),
            "hybrid": lambda q=question.question: hybrid_search(user=user, query=q, k=K),
        }
        for method, search in searches.items():
            start = time.perf_counter()
            hits = search()
            timings[method].append((time.perf_counter() - start) * 1000)
            outcome.ranked[method] = [str(h.message_id) for h in hits if h.message_id]
        outcomes.append(outcome)
    return outcomes, timings


def report_losses(
    corpus: Corpus, outcomes: list[Outcome], texts: dict[str, str], examples: int
) -> None:
    """Per category: where the hybrid's mean is below a single method's, and the questions
    it loses at @10 (evidence found by text or vectors alone, not by the fusion)."""
    questions = {q.id: q for q in corpus.questions}
    for category in CATEGORIES:
        members = [o for o in outcomes if o.category == category]
        lost = [o for o in members if o.recall("hybrid", K) < _best_single(o)]
        won = [o for o in members if o.recall("hybrid", K) > _best_single(o)]
        print(
            f"\n{category}: hybrid@{K} below the better single method on {len(lost)} of "
            f"{len(members)} questions, above both on {len(won)}"
        )
        for k in DEPTHS:
            scores = {m: mean_recall(members, m, k) for m in METHODS}
            if scores["hybrid"] < max(scores["text"], scores["vector"]):
                print(
                    f"  the hybrid LOSES here at @{k}: {scores['hybrid']:.3f} vs "
                    f"text {scores['text']:.3f}, vector {scores['vector']:.3f}"
                )
        for outcome in lost[:examples]:
            question = questions[outcome.question_id]
            ranks = ", ".join(f"{m} {outcome.first_rank(m) or '-'}" for m in METHODS)
            print(
                f'  {question.id} "{question.question}" → {question.answer!r} '
                f"(first evidence rank: {ranks})"
            )
            for message_id in outcome.evidence:
                print(f"      evidence: {_short(texts[message_id])}")
            for message_id in outcome.ranked["hybrid"][:2]:
                print(f"      hybrid top: {_short(texts[message_id])}")


def _best_single(outcome: Outcome) -> float:
    return max(outcome.recall("text", K), outcome.recall("vector", K))


def _short(text: str, limit: int = 110) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def print_summary(outcomes: list[Outcome]) -> bool:
    """The table, the ratios, two diagnostics; returns whether the hybrid beats both."""
    for line in table(outcomes, CATEGORIES):
        print(line)

    overall = {k: {m: mean_recall(outcomes, m, k) for m in METHODS} for k in DEPTHS}
    beats = all(
        overall[k]["hybrid"] > max(overall[k]["text"], overall[k]["vector"]) for k in DEPTHS
    )
    print()
    for k in DEPTHS:
        scores = overall[k]
        print(
            f"@{k}: hybrid / text = {scores['hybrid'] / max(scores['text'], 1e-9):.2f}, "
            f"hybrid / vector = {scores['hybrid'] / max(scores['vector'], 1e-9):.2f}"
        )
    print("Hybrid beats both overall at @5 and @10: " + ("YES" if beats else "NO"))
    print(
        f"Diagnostic, recall@{K} if the turn before or after the evidence counts as found "
        "(its chunk holds the evidence as context): "
        + ", ".join(f"{m} {mean_recall(outcomes, m, K, near=True):.3f}" for m in METHODS)
    )
    updates = [o for o in outcomes if o.superseded]
    print(
        f"Diagnostic, preference updates whose overridden statement ranks above the current "
        f"one in the top {K}: "
        + ", ".join(
            f"{m} {sum(o.stale_first(m, K) for o in updates)}/{len(updates)}" for m in METHODS
        )
    )
    return beats


def write_results(corpus: Corpus, outcomes: list[Outcome]) -> None:
    overall = {k: {m: mean_recall(outcomes, m, k) for m in METHODS} for k in DEPTHS}
    RESULTS_PATH.parent.mkdir(exist_ok=True)
    RESULTS_PATH.write_text(
        json.dumps(
            {
                "corpus": corpus_fingerprint(corpus),
                "overall": overall,
                "questions": [
                    {
                        "id": o.question_id,
                        "category": o.category,
                        "recall": {f"{m}@{k}": o.recall(m, k) for m in METHODS for k in DEPTHS},
                        "first_rank": {m: o.first_rank(m) for m in METHODS},
                    }
                    for o in outcomes
                ],
            },
            indent=1,
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="reuse the previous import when the corpus is unchanged",
    )
    parser.add_argument("--keep", action="store_true", help="keep the imported user")
    parser.add_argument(
        "--strict", action="store_true", help="exit 1 unless the hybrid beats both overall"
    )
    parser.add_argument(
        "--examples",
        type=int,
        default=6,
        help="questions shown per category where the hybrid loses",
    )
    args = parser.parse_args()

    _django.setup(database=DATABASE)
    # django-q logs every inline task at INFO: thousands of lines during the import.
    logging.getLogger("django-q").setLevel(logging.WARNING)
    corpus = corpus_load()
    email = f"corpus-{corpus_fingerprint(corpus)}@{EMAIL_DOMAIN}"
    print(f"Retrieval quality: {corpus.notes[0]}")
    start = time.perf_counter()
    found = reusable_import(corpus, email) if args.reuse else None
    if found is None:
        print("Importing through POST /api/v1/conversations/import/ (indexed on commit):")
        found = import_corpus(corpus, email)
    else:
        print("Reusing the previous import (same corpus, same embedding model).")
    user, message_ids = found
    wait_until_indexed(user, corpus.turn_count)
    print(f"Imported and indexed {corpus.turn_count} turns in {time.perf_counter() - start:.1f} s")

    start = time.perf_counter()
    outcomes, timings = ask_all(corpus, user, message_ids)
    print(
        f"Asked {len(outcomes)} questions × 3 methods in {time.perf_counter() - start:.1f} s"
        " (median per query: "
        + ", ".join(f"{m} {statistics.median(timings[m]):.1f} ms" for m in METHODS)
        + ")\n"
    )
    beats = print_summary(outcomes)

    from apps.chat.models import Message

    texts = {
        str(pk): content
        for pk, content in Message.objects.filter(conversation__user=user).values_list(
            "id", "content"
        )
    }
    report_losses(corpus, outcomes, texts, args.examples)
    write_results(corpus, outcomes)
    print(f"\nPer-question results: {RESULTS_PATH.relative_to(ROOT)}")
    if not (args.keep or args.reuse):
        user.delete()  # type: ignore[attr-defined]
    if args.strict and not beats:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
