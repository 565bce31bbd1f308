"""The generator's working state: sessions on a calendar, the units of turns placed in them,
and the questions asked about those units.

Templates (``facts``, ``hops``, ``timeline``) pick sessions and add *units*: a few turns
that belong together (a user's statement and the assistant's acknowledgement). Questions
point at a unit's turn. ``layout`` later interleaves units with small talk and numbers the
turns, which turns these pointers into (conversation, order) pairs.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import TypeVar

from .values import Pools

T = TypeVar("T")

FIRST_DAY = date(2022, 1, 10)
LAST_DAY = date(2025, 6, 20)

USER_OPENERS = [
    "",
    "",
    "",
    "",
    "Quick update: ",
    "Random thing: ",
    "Small news: ",
    "Morning! ",
    "Hey. ",
    "FYI: ",
    "Before I forget: ",
    "Hi again! ",
    "Okay, life admin. ",
]
USER_CLOSERS = [
    "",
    "",
    "",
    "",
    " Anyway.",
    " Just thought I'd mention it.",
    " Long week.",
    " Life is busy!",
    " Not sure why I'm telling you this.",
    " Bit of a day.",
    " That's my news.",
]


@dataclass(eq=False)
class Session:
    conversation: int
    day: date
    units: list[Unit] = field(default_factory=list)

    @property
    def load(self) -> int:
        return sum(len(unit.turns) for unit in self.units)


@dataclass(eq=False)
class Unit:
    session: Session
    turns: list[tuple[str, str]]  # (role, text)


@dataclass(frozen=True)
class Pointer:
    unit: Unit
    turn: int  # index into unit.turns
    contains: str


@dataclass(frozen=True)
class Ask:
    category: str
    question: str
    answer: str
    evidence: list[Pointer]
    superseded: list[Pointer]


class World:
    def __init__(self, seed: int, conversations: int, sessions_per_conversation: tuple[int, int]):
        self.rng = random.Random(seed)
        self.pools = Pools(self.rng)
        self.sessions: list[Session] = []
        self.asks: list[Ask] = []
        low, high = sessions_per_conversation
        span = (LAST_DAY - FIRST_DAY).days
        for conversation in range(conversations):
            count = self.rng.randint(low, high)
            day = FIRST_DAY + timedelta(days=self.rng.randint(0, span - 200))
            for _ in range(count):
                self.sessions.append(Session(conversation, day))
                day = min(LAST_DAY, day + timedelta(days=self.rng.randint(9, 75)))

    # Randomness --------------------------------------------------------------------------

    def choice(self, options: Sequence[T]) -> T:
        return self.rng.choice(options)

    def chance(self, probability: float) -> bool:
        return self.rng.random() < probability

    def take(self, kind: str) -> str:
        return self.pools.take(kind)

    def padded(self, text: str) -> str:
        """A user's statement with the small words people wrap news in."""
        return f"{self.choice(USER_OPENERS)}{articled(text)}{self.choice(USER_CLOSERS)}"

    # Placing ------------------------------------------------------------------------------

    def session(
        self,
        *,
        after: date | None = None,
        before: date | None = None,
        months_taken: set[tuple[int, int]] | None = None,
        same_month_as: date | None = None,
        not_conversation: int | None = None,
    ) -> Session:
        """A session meeting the constraints, preferring lightly loaded ones."""
        candidates = [
            s
            for s in self.sessions
            if (after is None or s.day > after)
            and (before is None or s.day < before)
            and (months_taken is None or (s.day.year, s.day.month) not in months_taken)
            and (
                same_month_as is None
                or (s.day.year, s.day.month) == (same_month_as.year, same_month_as.month)
            )
            and (not_conversation is None or s.conversation != not_conversation)
        ]
        if not candidates:
            raise LookupError("no session meets the constraints")
        sample = self.rng.sample(candidates, min(3, len(candidates)))
        return min(sample, key=lambda s: s.load)

    def add(self, session: Session, *turns: tuple[str, str]) -> Unit:
        unit = Unit(session, list(turns))
        session.units.append(unit)
        return unit

    def ask(
        self,
        category: str,
        question: str,
        answer: str,
        *evidence: Pointer,
        superseded: tuple[Pointer, ...] = (),
    ) -> None:
        self.asks.append(Ask(category, question, answer, list(evidence), list(superseded)))


def long_date(day: date) -> str:
    return f"{day.day} {day:%B}"


def month_year(day: date) -> str:
    return f"{day:%B %Y}"


def capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


_A_BEFORE_VOWEL = re.compile(r"\b([Aa]) (?=[aeiouAEIOU])")


def articled(text: str) -> str:
    """ "a occupational therapist" → "an occupational therapist"."""
    return _A_BEFORE_VOWEL.sub(lambda match: match.group(1) + "n ", text)
