"""Issue 3: context resolution and claim creation at scale.

10 users, each with 10,000 claims in 200 contexts nested 4 deep (5 roots, each with 3
children per node: 1 + 3 + 9 + 27 = 40 contexts a tree). Every claim sits in one context.
Targets: resolving a root context p95 ≤ 15 ms, a leaf ≤ 3 ms; creating 1,000 claims
through the service ≤ 5 s.

Run: .venv/bin/python bench/bench_knowledge.py
"""

from __future__ import annotations

import random
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import _django

VOCABULARY = [
    "apple",
    "harbor",
    "python",
    "tennis",
    "garden",
    "budget",
    "meeting",
    "lisbon",
    "river",
    "coffee",
    "running",
    "marathon",
    "piano",
    "violin",
    "novel",
    "recipe",
    "salad",
    "tomato",
    "budget",
    "invoice",
    "client",
    "deadline",
    "sprint",
    "roadmap",
    "release",
    "server",
    "backup",
    "laptop",
    "monitor",
    "keyboard",
    "insurance",
    "mortgage",
    "savings",
    "pension",
    "doctor",
    "dentist",
    "vitamin",
    "yoga",
    "swimming",
    "hiking",
    "camping",
    "mountain",
    "beach",
    "flight",
    "hotel",
    "passport",
    "museum",
    "concert",
    "theatre",
    "podcast",
    "chess",
    "painting",
    "camera",
    "bicycle",
    "scooter",
    "train",
    "subway",
    "bakery",
    "sister",
    "brother",
    "mother",
    "father",
    "cousin",
    "friend",
    "neighbour",
    "colleague",
    "manager",
    "mentor",
    "student",
    "teacher",
    "course",
    "exam",
    "thesis",
    "paper",
    "spanish",
    "french",
    "german",
    "guitar",
    "drums",
    "jazz",
    "opera",
]
VERBS = ["prefer", "like", "need", "plan", "decided", "want", "bought", "finished", "avoid"]
USERS = 10
CLAIMS_PER_USER = 10_000
ROOTS, FANOUT, DEPTH = 5, 3, 4


def build_user(index: int):  # type: ignore[no-untyped-def]
    from apps.accounts.models import User
    from apps.claims.friendly_ids import generate_friendly_id
    from apps.claims.models import Claim, ClaimCounter
    from apps.contexts.models import Context, ContextClaim

    user = User.objects.create(email=f"bench{index}@example.com")
    contexts: list[Context] = []
    roots = []
    for r in range(ROOTS):
        level = [Context(id=uuid.uuid4(), user=user, name=f"Root {r}", friendly_id=f"root_{r}")]
        roots.append(level[0])
        contexts += level
        for depth in range(1, DEPTH):
            nxt = []
            for parent in level:
                for f in range(FANOUT):
                    nxt.append(
                        Context(
                            id=uuid.uuid4(),
                            user=user,
                            parent=parent,
                            name=f"{parent.name}.{f}",
                            friendly_id=f"ctx_{r}_{depth}_{len(contexts) + len(nxt)}",
                        )
                    )
            contexts += nxt
            level = nxt
    Context.objects.bulk_create(contexts, batch_size=500)
    rng = random.Random(index)
    claims = []
    for n in range(CLAIMS_PER_USER):
        # Varied statements and generated friendly IDs, like a real account's.
        words = rng.sample(VOCABULARY, 6)
        statement = f"I {rng.choice(VERBS)} {' '.join(words)} ({n})"
        claims.append(
            Claim(
                user=user,
                number=n + 1,
                statement=statement,
                friendly_id=generate_friendly_id(statement, suffix=f"{n:05x}"),
                claim_types=[rng.choice(["fact", "preference", "goal", "decision"])],
                domains=[rng.choice(["work", "health", "personal", "finance"])],
                status="active" if n % 10 else "retracted",
            )
        )
    Claim.objects.bulk_create(claims, batch_size=2000)
    ClaimCounter.objects.create(user=user, last_number=CLAIMS_PER_USER)
    links = [
        ContextClaim(context=contexts[n % len(contexts)], claim=claim)
        for n, claim in enumerate(claims)
    ]
    ContextClaim.objects.bulk_create(links, batch_size=5000)
    leaves = [c for c in contexts if not any(o.parent_id == c.id for o in contexts)]
    return user, roots, leaves


def main() -> None:
    _django.setup(sync_jobs=False)
    from django.db import connection

    from apps.accounts.models import User
    from apps.claims.services import claim_create
    from apps.contexts.models import Context
    from apps.contexts.selectors import context_resolve_claims

    # The data set is kept in the bench database between runs; --rebuild starts afresh.
    if "--rebuild" in sys.argv or User.objects.filter(email__startswith="bench").count() != USERS:
        User.objects.filter(email__startswith="bench").delete()
        start = time.perf_counter()
        for i in range(USERS):
            build_user(i)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        print(
            f"built {USERS} users x {CLAIMS_PER_USER:,} claims, "
            f"{ROOTS * 40} contexts each, in {time.perf_counter() - start:.1f} s"
        )

    user = User.objects.get(email=f"bench{USERS // 2}@example.com")
    roots = list(Context.objects.filter(user=user, parent=None))
    leaves = list(Context.objects.filter(user=user, children=None))
    sizes = [len(context_resolve_claims(user=user, context=root)) for root in roots]
    print(
        f"a root resolves {sizes[0]:,} claims; a leaf "
        f"{len(context_resolve_claims(user=user, context=leaves[0]))}"
    )
    root_samples: list[float] = []
    leaf_samples: list[float] = []
    for i in range(40):
        root_samples += _django.timed(
            lambda i=i: context_resolve_claims(user=user, context=roots[i % ROOTS]),
            repeat=5,
            warmup=1,
        )
        leaf_samples += _django.timed(
            lambda i=i: context_resolve_claims(user=user, context=leaves[i % len(leaves)]),
            repeat=5,
            warmup=1,
        )
    _django.report("resolve a root context (≈1,800 claims)", root_samples, 15)
    _django.report("resolve a leaf context", leaf_samples, 3)

    User.objects.filter(email="create@bench.invalid").delete()
    fresh = User.objects.create(email="create@bench.invalid")
    start = time.perf_counter()
    for n in range(1000):
        claim_create(user=fresh, statement=f"I created claim number {n} for the benchmark")
    elapsed = time.perf_counter() - start
    print(
        f"{'create 1,000 claims through claim_create':<46} {elapsed:8.2f} s"
        f"   target ≤ 5 s   ratio {elapsed / 5:5.2f}  {'OK' if elapsed <= 5 else 'OVER'}"
    )
    fresh.delete()


if __name__ == "__main__":
    main()
