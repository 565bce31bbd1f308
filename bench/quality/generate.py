"""Generate the retrieval-quality corpus, deterministically from ``SEED``.

    .venv/bin/python -m bench.quality.generate     # rewrites bench/quality/corpus.json

Facts, events and preference changes are placed in sessions first (``singles``, ``hops``,
``timeline``, ``prefs``, ``threads``, ``lives``); ``layout`` then fills every session with
small talk up to its length, shuffles, and timestamps the turns. Transcripts of two
friends (``friends``) come after, conversations and questions of their own.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from .filler import CLOSINGS, GREETINGS, small_talk
from .friends import add_friends
from .hops import (
    add_alias_hops,
    add_lent_hops,
    add_project_hops,
    add_restaurant_hops,
    add_same_city_hops,
)
from .lives import add_lives
from .model import (
    CORPUS_PATH,
    Conversation,
    Corpus,
    Evidence,
    Question,
    Turn,
    answer_parts,
    corpus_dump,
)
from .people import ROLES
from .prefs import add_preferences
from .singles import add_assistant_facts, add_people_facts, add_self_facts
from .threads import add_threads
from .timeline import Timeline
from .world import Pointer, Unit, World

SEED = 20250611
CONVERSATIONS = 24
SESSIONS_PER_CONVERSATION = (4, 6)
TURNS_TARGET = 2_300
TITLES = [
    "Daily check-ins",
    "Weekend plans",
    "Work stuff",
    "Kitchen questions",
    "Running log",
    "Random questions",
    "Home and garden",
    "Travel notes",
    "Evening chats",
    "Health notes",
    "Admin and money",
    "Books and films",
    "Family news",
    "Side project",
    "Morning coffee",
    "Life admin",
    "Friends and plans",
    "Odds and ends",
    "Learning things",
    "Catch-ups",
    "Sunday thoughts",
    "Commute chats",
    "Tech help",
    "Big decisions",
]
MONTH_QUESTIONS = {
    "trip": 6,
    "concert": 5,
    "race": 4,
    "wedding": 4,
    "visitor": 4,
    "purchase": 4,
    "course": 3,
}
SAME_MONTH_QUESTIONS = {"trip": 3, "concert": 3, "race": 2, "purchase": 2, "course": 2}
WHEN_QUESTIONS = 18


def build_world(seed: int = SEED) -> World:
    world = World(seed, CONVERSATIONS, SESSIONS_PER_CONVERSATION)
    # The most constrained placements first, while every month and session is free.
    timeline = Timeline(world)
    for key, count in SAME_MONTH_QUESTIONS.items():
        for _ in range(count):
            timeline.ask_same_month(key)
    for key, count in MONTH_QUESTIONS.items():
        for _ in range(count):
            timeline.ask_month(key)
    for _ in range(WHEN_QUESTIONS):
        timeline.ask_when()
    add_preferences(world, three_step_share=0.5)
    roles = world.rng.sample(ROLES, 52)
    add_alias_hops(world, roles[:44])
    add_same_city_hops(world, roles[44:])
    add_lent_hops(world, 6)
    add_restaurant_hops(world, 5)
    add_project_hops(world, 6)
    add_self_facts(world)
    add_assistant_facts(world)
    add_people_facts(world, people=23, facts_each=4)
    add_threads(world)
    add_lives(world)
    return world


def generate(seed: int = SEED) -> Corpus:
    world = build_world(seed)
    conversations, positions = layout(world)
    questions = []
    for number, ask in enumerate(world.asks, start=1):

        def located(pointers: list[Pointer]) -> list[Evidence]:
            return [Evidence(*positions[id(p.unit)][p.turn], p.contains) for p in pointers]

        questions.append(
            Question(
                f"q{number:03d}",
                ask.category,
                ask.question,
                ask.answer,
                located(ask.evidence),
                superseded=located(ask.superseded),
            )
        )
    # Laid out last, with a random generator of their own: the turns above, and so their
    # questions' evidence, are the same with the transcripts as without.
    transcripts, told = add_friends(world, seed, len(conversations), len(questions) + 1)
    conversations += transcripts
    questions += told
    corpus = Corpus(seed, conversations, questions)
    checked = [_checked(corpus, question) for question in questions]
    counts = Counter(q.category for q in checked)
    variants = Counter(q.variant for q in checked if q.variant)
    notes = [
        f"{len(conversations)} conversations, {corpus.turn_count} turns, "
        f"{len(checked)} questions: "
        + ", ".join(f"{counts[c]} {c}" for c in counts)
        + "".join(f"; {n} of them told by {v}" for v, n in variants.items())
    ]
    return Corpus(seed, conversations, checked, notes)


def layout(world: World) -> tuple[list[Conversation], dict[int, list[tuple[int, int]]]]:
    """Conversations of turns; ``positions[id(unit)]`` is each unit turn's (conversation,
    order)."""
    rng = world.rng
    per_session = TURNS_TARGET / len(world.sessions)
    turns: dict[int, list[Turn]] = {c: [] for c in range(CONVERSATIONS)}
    positions: dict[int, list[tuple[int, int]]] = {}
    for session in sorted(world.sessions, key=lambda s: (s.conversation, s.day)):
        blocks: list[Unit | list[tuple[str, str]]] = list(session.units)
        length = round(per_session * rng.uniform(0.7, 1.3))
        for _ in range(max(1, (length - session.load) // 2)):
            blocks.append(list(small_talk(world)))
        rng.shuffle(blocks)
        if rng.random() < 0.6:
            blocks.insert(0, list(zip(("user", "assistant"), rng.choice(GREETINGS), strict=True)))
        if rng.random() < 0.4:
            blocks.append(list(zip(("user", "assistant"), rng.choice(CLOSINGS), strict=True)))
        clock = datetime(
            session.day.year,
            session.day.month,
            session.day.day,
            rng.randint(7, 20),
            rng.randint(0, 59),
            tzinfo=UTC,
        )
        conversation = turns[session.conversation]
        for block in blocks:
            block_turns = block.turns if isinstance(block, Unit) else block
            if isinstance(block, Unit):
                positions[id(block)] = [
                    (session.conversation, len(conversation) + i + 1)
                    for i in range(len(block_turns))
                ]
            for role, text in block_turns:
                clock += timedelta(
                    seconds=rng.randint(20, 90) if role == "assistant" else rng.randint(60, 300)
                )
                conversation.append(Turn(role, text, clock.isoformat()))
    titles = rng.sample(TITLES, CONVERSATIONS)
    return [Conversation(titles[c], turns[c]) for c in range(CONVERSATIONS)], positions


def answer_pattern(answer: str) -> re.Pattern[str]:
    """The answer as a whole phrase, case-insensitively ("Rome" is not in "Romeo")."""
    return re.compile(rf"(?<!\w){re.escape(answer)}(?!\w)", re.IGNORECASE)


def _checked(corpus: Corpus, question: Question) -> Question:
    """Each part of the answer is in an evidence turn and not in the question; marks
    whether any part is also in another turn."""
    for evidence in question.evidence:
        if evidence.contains.lower() not in corpus.turn(evidence).content.lower():
            raise ValueError(f"{question.id}: evidence lacks {evidence.contains!r}")
    holders: set[tuple[int, int]] = set()
    for part in answer_parts(question.answer):
        pattern = answer_pattern(part)
        if not any(pattern.search(corpus.turn(e).content) for e in question.evidence):
            raise ValueError(f"{question.id}: no evidence turn holds {part!r}")
        if pattern.search(question.question):
            raise ValueError(f"{question.id}: the question gives its answer away")
        holders |= {
            (c, order)
            for c, conversation in enumerate(corpus.conversations)
            for order, turn in enumerate(conversation.turns, start=1)
            if pattern.search(turn.content)
        }
    evidence_turns = {(e.conversation, e.order) for e in question.evidence}
    return replace(question, answer_only_in_evidence=holders <= evidence_turns)


def main() -> None:
    corpus = generate()
    corpus_dump(corpus)
    print(f"wrote {CORPUS_PATH} ({CORPUS_PATH.stat().st_size / 1024:.0f} KiB): {corpus.notes[0]}")
    unclear = [q for q in corpus.questions if not q.answer_only_in_evidence]
    print(f"{len(unclear)} answers also appear outside their evidence:")
    for question in unclear:
        print(f"  {question.id} {question.category}: {question.answer!r}")


if __name__ == "__main__":
    main()
