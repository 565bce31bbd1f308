"""Issue 5: project facts through the database.

Targets: ``facts_persist`` for a typical 50-word user message p95 ≤ 15 ms with the spaCy
model loaded; ``facts_relevant`` p95 ≤ 10 ms in a project with 2,000 current facts.

Measured side by side in one run: extraction alone (the pure part of ``facts_persist``),
``facts_persist`` in a typical project (a few lists, ~60 facts) and in the 2,000-fact
project, writing new values each time (so every run stores or updates rows), and
``facts_relevant`` for several questions over 2,000 facts. The ratio column is p95 over
the target. Creating each message (what the chat does before step 3) is not timed.

Run: .venv/bin/python bench/bench_facts.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import _django

PERSIST_TARGET_MS = 15.0
RELEVANT_TARGET_MS = 10.0
COINS = ["BTC", "ETH", "XMR", "SOL", "ADA", "DOT", "XLM", "FIL", "ATOM", "LINK"]
CITIES = ["Berlin", "Paris", "Lisbon", "Madrid", "Vienna", "Prague", "Oslo", "Rome"]
# Typical 50-word messages; {0} {1} {2} rotate so that each run writes new values.
MESSAGES = [
    "Quick update on my portfolio: my #1 crypto is {0}, and #2 on my list is {1} now. "
    "My work email is jane.doe@acme.io and I fly to {2} next Friday with Maria from "
    "Siemens. The budget is about $300 for the trip, which takes roughly 3.5 hours.",
    "Honestly I think my favorite crypto is still {0}, but {1} is definitely my number "
    "two and ETH comes third. I spent about two hours reading about it yesterday and "
    "wrote some notes, nothing fancy, just a list of things to check in {2} next week "
    "when I have a bit more time.",
    "thanks, that was really helpful! could you explain the second part again in simpler "
    "words though? i did not quite get why the cache gets invalidated after the write, "
    "and whether that matters for the small setup we run at home right now, or only "
    "for bigger teams with lots of traffic",
]
QUESTIONS = [
    "what is my #1 crypto?",
    "What's my work email and when is my birthday?",
    "where does XMR rank for me?",
    "could you explain the cache invalidation part again in simpler words?",
]


def timed_each(
    prepare: Callable[[int], object], call: Callable[[object], object], runs: int, warmup: int = 5
) -> tuple[list[float], list[float]]:
    """Wall and CPU (this process only, not the database server) milliseconds of
    ``call(prepare(i))``; ``prepare`` (creating the message) is not timed."""
    wall, cpu = [], []
    for i in range(warmup + runs):
        argument = prepare(i)
        w0, c0 = time.perf_counter(), time.process_time()
        call(argument)
        if i >= warmup:
            cpu.append((time.process_time() - c0) * 1000)
            wall.append((time.perf_counter() - w0) * 1000)
    return wall, cpu


def report_cpu(name: str, cpu: list[float]) -> None:
    print(
        f"  {name + ' (client CPU)':<44} p50 {statistics.median(cpu):8.2f} ms   "
        f"p95 {_django.percentile(cpu, 95):8.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    args = parser.parse_args()
    _django.setup()

    from django.db import connection, transaction
    from django.utils import timezone

    from apps.accounts.models import User
    from apps.chat.message_source import message_to_read
    from apps.chat.models import Conversation, Message
    from apps.facts.extraction import extract_facts
    from apps.facts.extraction.nlp import get_nlp
    from apps.facts.models import FactOrigin
    from apps.facts.services import FactWrite, facts_persist, facts_relevant, facts_store_many
    from apps.projects.services import project_create

    started = time.perf_counter()
    nlp = get_nlp()
    print(
        f"spaCy pipeline {nlp.pipe_names} loaded in "
        f"{(time.perf_counter() - started) * 1000:.0f} ms (once per process); "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} "
        "(other work on the machine inflates wall time)"
    )
    user = User.objects.create_user(
        email=f"bench-{uuid.uuid4().hex[:8]}@example.com", password=uuid.uuid4().hex
    )
    try:
        typical = project_create(owner=user, name="Typical")
        large = project_create(owner=user, name="Large")
        _stock(typical, facts_store_many, FactWrite, FactOrigin, lists=10, others=10)
        _stock(large, facts_store_many, FactWrite, FactOrigin, lists=390, others=50)
        with connection.cursor() as cursor:  # as autovacuum would, on a live database
            cursor.execute("ANALYZE facts_projectfact; ANALYZE chat_message")

        def text(i: int) -> str:
            template = MESSAGES[i % len(MESSAGES)]
            return template.format(COINS[i % 10], COINS[(i + 3) % 10], CITIES[i % 8])

        words = sum(len(text(i).split()) for i in range(3)) / 3
        now = timezone.now()
        print(f"\n-- facts_persist: messages of ~{words:.0f} words, 3 kinds in turn --")
        probe = Conversation.objects.create(user=user, project=typical)

        def durable_write() -> None:
            with transaction.atomic():
                Conversation.objects.filter(pk=probe.pk).update(title=uuid.uuid4().hex)

        _django.report(
            "floor: a one-row durable commit",
            _django.timed(durable_write, repeat=args.runs),
            PERSIST_TARGET_MS,
        )
        extract = _django.timed(
            lambda: [extract_facts(text(i), now=now) for i in range(3)],
            repeat=max(10, args.runs // 3),
        )
        _django.report(
            "extract_facts alone (mean of the 3)", [s / 3 for s in extract], PERSIST_TARGET_MS
        )
        for project, label in ((typical, "typical project"), (large, "2,000-fact project")):
            conversation = Conversation.objects.create(user=user, project=project)

            def message(i: int, conversation: Conversation = conversation) -> Message:
                return Message.objects.create(
                    conversation=conversation, role="user", content=text(i), order=i + 1
                )

            wall, cpu = timed_each(
                message,
                lambda m, p=project: facts_persist(project=p, message=message_to_read(m)),
                args.runs,
            )
            count = project.facts.filter(is_current=True).count()
            _django.report(f"facts_persist, {label} ({count:,} facts)", wall, PERSIST_TARGET_MS)
            report_cpu("facts_persist", cpu)
            ratio = statistics.median(wall) / statistics.median([x / 3 for x in extract])
            print(f"  facts_persist / extract_facts alone, p50: {ratio:.2f}x")

        count = large.facts.filter(is_current=True).count()
        print(f"\n-- facts_relevant over {count:,} current facts --")
        last = Message.objects.filter(conversation__project=large).order_by("-order").first()
        all_wall: list[float] = []
        all_cpu: list[float] = []
        for question in QUESTIONS:
            result = facts_relevant(project=large, query=question, exclude_message=last)
            wall, cpu = timed_each(
                lambda i, q=question: q,
                lambda q: facts_relevant(project=large, query=str(q), exclude_message=last),
                args.runs,
            )
            all_wall += wall
            all_cpu += cpu
            _django.report(
                f"{question[:30]!r} -> {len(result.facts)} facts, {result.topic_count} topics",
                wall,
                RELEVANT_TARGET_MS,
            )
        _django.report("facts_relevant, all questions", all_wall, RELEVANT_TARGET_MS)
        report_cpu("facts_relevant", all_cpu)
    finally:
        user.delete()


def _stock(
    project: object,
    store: Callable[..., object],
    write: type,
    origin: type,
    *,
    lists: int,
    others: int,
) -> None:
    """``lists`` ranked lists of five items plus ``others`` profile and mention facts."""
    writes = [
        write(key=f"user.favorites.topic{t}.{r}", value=f"value {t}-{r}", value_type="string")
        for t in range(lists)
        for r in range(1, 6)
    ]
    writes += [
        write(key=f"user.favorites.crypto.{r}", value=coin, value_type="string")
        for r, coin in enumerate(COINS[:5], 1)
    ]
    writes += [
        write(key=f"mentioned.org.company{i}", value=f"Company {i}", value_type="string")
        for i in range(others - 2)
    ]
    writes += [
        write(key="user.email.work", value="jane@acme.io", value_type="string"),
        write(key="user.dates.birthday", value="1990-03-03", value_type="date"),
    ]
    for start in range(0, len(writes), 500):
        store(project=project, writes=writes[start : start + 500], origin=origin.MANUAL)


if __name__ == "__main__":
    main()
