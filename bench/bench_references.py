"""Issue 4: autocomplete and reference resolution at scale, parsing speed.

A user with 10,000 claims, 200 contexts (the data of bench_knowledge.py), 500 entities and
100 tags. Targets: autocomplete p95 ≤ 20 ms; resolving a message with five references
p95 ≤ 25 ms; parsing a 2,000-character message ≤ 0.2 ms.

Run: .venv/bin/python bench/bench_references.py
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import _django


def main() -> None:
    _django.setup(sync_jobs=False)
    from django.db import connection

    from apps.accounts.models import User
    from apps.claims.models import Claim, Entity, Tag
    from apps.contexts.autocomplete import reference_suggestions
    from apps.contexts.models import Context
    from apps.contexts.reference_parser import parse_references
    from apps.contexts.references import resolve_message
    from bench import bench_knowledge

    if not User.objects.filter(email=f"bench{bench_knowledge.USERS // 2}@example.com").exists():
        bench_knowledge.main()
    user = User.objects.get(email=f"bench{bench_knowledge.USERS // 2}@example.com")
    if Entity.objects.filter(user=user).count() < 500:
        Entity.objects.filter(user=user).delete()
        Tag.objects.filter(user=user).delete()
        rng = random.Random(7)
        words = [
            "acme",
            "lisbon",
            "maria",
            "garden",
            "python",
            "tennis",
            "oslo",
            "nova",
            "quartz",
            "river",
            "summit",
            "violet",
            "harbor",
            "ember",
            "falcon",
        ]
        Entity.objects.bulk_create(
            [
                Entity(
                    user=user,
                    name=f"{rng.choice(words).title()} {n}",
                    entity_type="thing",
                    friendly_id=f"{rng.choice(words)}_{n}_thing_entity",
                )
                for n in range(500)
            ]
        )
        Tag.objects.bulk_create(
            [
                Tag(
                    user=user,
                    name=f"{rng.choice(words)} {n}",
                    friendly_id=f"{rng.choice(words)}_{n}_tag",
                )
                for n in range(100)
            ]
        )
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")

    # Prefixes, numbers, statement words and every kind, as a user types them; typos,
    # which need the trigram search, are reported on their own.
    queries = [
        "pr",
        "prefer_ap",
        "marath",
        "#42",
        "claim_420",
        "root",
        "ctx_2",
        "work_dom",
        "quartz_3",
        "acme",
        "lisbon",
        "fal",
        "garden",
        "want_pian",
    ]
    typos = ["coffe", "like_gard", "tenis_marathon", "prefr_yoga"]
    for name, group in (
        ("autocomplete, prefixes (14 queries)", queries),
        ("autocomplete, typos (4 queries)", typos),
        ("autocomplete, all together", queries + typos),
    ):
        samples: list[float] = []
        for query in group:
            samples += _django.timed(
                lambda q=query: reference_suggestions(user=user, query=q), repeat=10, warmup=1
            )
        _django.report(name, samples, 20)

    root = Context.objects.filter(user=user, parent=None).first()
    leaf = Context.objects.filter(user=user, children=None).first()
    entity = Entity.objects.filter(user=user).first()
    assert root
    assert leaf
    assert entity
    claim = Claim.objects.filter(user=user, status="active").order_by("number")[77]
    tag = Tag.objects.filter(user=user).first()
    assert tag
    message = (
        f"Compare @{leaf.friendly_id} with #42 and @{claim.friendly_id}, then "
        f"@{entity.friendly_id} and @{tag.friendly_id} — what changed?"
    )
    samples = _django.timed(lambda: resolve_message(user, message), repeat=40)
    sizes = [len(r.claims) for r in resolve_message(user, message)[1]]
    _django.report(f"resolve a message with 5 references {sizes}", samples, 25)

    # 2,000 characters of prose with five references, one of them in a code span.
    prose = (
        "I have been thinking about how the garden budget and the marathon plan fit "
        "together this spring, and what the piano lessons cost in time each week. "
    )
    text = (
        f"Compare @prefer_morning_a3f2 with #42 and @ssdva. {prose * 9}"
        f"Also `@not_this` and @claim_7, then @abc_context."
    )[:2000]
    samples = _django.timed(lambda: parse_references(text), repeat=2000, warmup=50)
    _django.report("parse a 2,000-character message", samples, 0.2)


if __name__ == "__main__":
    main()
