"""Temporal questions: what happened in a month, when something happened, and what else
happened in the same month as something. Every event is placed in a session on the day it
happened, so ``created_at`` agrees with "last night" or "today, 14 March" in the text.

A month-kind event is the only one of its kind in its month ("Which race did I run in
May 2024?" has one answer).
"""

from __future__ import annotations

from dataclasses import dataclass

from .world import Pointer, Session, World, long_date, month_year

CATEGORY = "temporal"


@dataclass(frozen=True)
class MonthKind:
    pool: str | tuple[str, ...]
    says: list[str]
    asks: list[str]  # with {month_year}
    stem: str  # for "… the same month that I …"
    acks: list[str]


MONTH_KINDS: dict[str, MonthKind] = {
    "trip": MonthKind(
        "place",
        [
            "Just back from {value}! A week of walking and eating far too much.",
            "Landed last night after ten days in {value}. Already planning the next trip.",
            "Back from {value}. What a way to spend {month}.",
        ],
        [
            "Where did I travel in {month_year}?",
            "Which place did I visit on holiday in {month_year}?",
            "Where did I go away to in {month_year}?",
        ],
        "Where did I go on holiday",
        ["Welcome back! What was the highlight?", "Sounds wonderful. Post-holiday blues yet?"],
    ),
    "concert": MonthKind(
        "band",
        [
            "Saw {value} live last night, my ears are still ringing.",
            "The {value} gig tonight was incredible, best set I've seen in years.",
            "{month} treat: {value} in concert. Worth every penny.",
        ],
        [
            "Which band did I see in concert in {month_year}?",
            "What gig did I go to in {month_year}?",
            "Who did I see play live in {month_year}?",
        ],
        "Which musicians did I see live",
        ["Live music hits differently.", "What a night! Did they play the old songs?"],
    ),
    "race": MonthKind(
        "race",
        [
            "Finished the {value} this morning! Legs are jelly.",
            "Crossed the line at the {value} today, medal's on the fridge.",
            "Ran the {value} in the rain. Never again (until next year).",
        ],
        [
            "Which race did I run in {month_year}?",
            "What running event did I take part in in {month_year}?",
        ],
        "Which race did I run",
        ["Congratulations! Rest, stretch and eat well.", "Amazing effort. Recovery walk tomorrow?"],
    ),
    "wedding": MonthKind(
        "name",
        [
            "Back from {value}'s wedding; we danced until two in the morning.",
            "{value} got married today! I cried during the vows, obviously.",
        ],
        ["Whose wedding did I go to in {month_year}?", "Which friend got married in {month_year}?"],
        "Whose wedding was I a guest at",
        ["What a joyful day.", "Weddings are the best excuse to dance."],
    ),
    "visitor": MonthKind(
        "name",
        [
            "{value} is staying with us this week, so the spare room is finally useful.",
            "Picked {value} up from the station; they're with us until Sunday.",
        ],
        ["Who came to stay with us in {month_year}?", "Who was our house guest in {month_year}?"],
        "Who stayed with us",
        ["Enjoy the company!", "Having guests is tiring but lovely."],
    ),
    "purchase": MonthKind(
        (
            "rowing machine",
            "telescope",
            "sea kayak",
            "espresso grinder",
            "3D printer",
            "electric cargo bike",
            "sauna tent",
        ),
        [
            "Splurged on a {value} today. No regrets. Some regrets.",
            "The {value} arrived! It's taking up half the hallway.",
        ],
        [
            "What big purchase did I make in {month_year}?",
            "What did I splash out on in {month_year}?",
        ],
        "What did I splash out on",
        ["Treat yourself! Hope you use it a lot.", "Exciting! Where will it live?"],
    ),
    "course": MonthKind(
        (
            "life drawing",
            "Argentine tango",
            "wilderness first aid",
            "glass fusing",
            "welding",
            "stand-up comedy",
        ),
        [
            "First {value} class tonight. I'm hopeless but happy.",
            "Signed up for an evening course in {value}; week one done.",
        ],
        [
            "What course did I start in {month_year}?",
            "What evening class did I begin in {month_year}?",
        ],
        "What class did I start",
        ["Learning something new is so good for you.", "Brilliant. How was the teacher?"],
    ),
}

# (what the user said, how a question refers to it later)
MILESTONES = [
    ("had my wisdom tooth taken out", "get my wisdom tooth removed"),
    ("had the MRI on my knee", "have my knee scanned"),
    ("got my eyes lasered", "have laser eye surgery"),
    ("had the mole on my back removed", "get that mole cut off"),
    ("had my hernia repaired", "have my hernia operation"),
    ("sat my driving test and passed", "pass my driving test"),
    ("got the keys to our new flat", "move into our current home"),
    ("signed the mortgage papers", "sign for our mortgage"),
    ("got my citizenship certificate", "become a citizen"),
    ("gave my first ever conference talk", "speak at a conference for the first time"),
    ("had the old boiler ripped out and replaced", "get our new boiler installed"),
    ("started physio for my shoulder", "begin physiotherapy on my shoulder"),
    ("made the last student loan payment", "finish paying off my student debt"),
    ("handed in my notice at the old job", "resign from my previous job"),
    ("got the all-clear from the dermatologist", "get good news from the skin doctor"),
    ("passed my scuba certification", "qualify as a diver"),
    ("submitted my thesis", "hand in my dissertation"),
    ("had my first session with the new therapist", "start therapy"),
    ("finally got my cast taken off", "get my plaster cast removed"),
    ("renewed my passport", "get my new passport"),
    ("closed the old bank account", "shut my previous bank account"),
    ("flew solo for the first time in the gliding club", "do my first solo glider flight"),
    ("got my ears pierced", "have my ears pierced"),
    ("had the chimney swept", "get the chimney cleaned"),
    ("signed up for the gym", "join my gym"),
    ("had my bike stolen from outside the station", "lose my bike to a thief"),
    ("got my braces fitted", "get braces on my teeth"),
    ("put in the offer on the allotment plot", "apply for our allotment"),
    ("donated my hair to the wig charity", "give my hair to charity"),
    ("planted the apple tree in the back garden", "plant our apple tree"),
    ("got my flu jab and covid booster together", "have my winter vaccinations"),
    ("submitted the planning application for the loft", "apply for planning permission"),
    ("finished my first jigsaw of five thousand pieces", "complete the huge jigsaw"),
]
MILESTONE_SAYS = [
    "Today, {date}, I {value}. Feels like a big deal.",
    "Big day ({date}): {value}.",
    "Marking the date, {date}: I {value}!",
]
MILESTONE_ASKS = [
    "When did I {paraphrase}?",
    "On what date did I {paraphrase}?",
    "What day did I {paraphrase}?",
]
PAST = {
    "get": "got",
    "have": "had",
    "become": "became",
    "speak": "spoke",
    "begin": "began",
    "shut": "shut",
    "do": "did",
    "lose": "lost",
    "give": "gave",
    "apply": "applied",
    "qualify": "qualified",
}
MILESTONE_ACKS = [
    "That's a milestone worth remembering.",
    "Well done! How do you feel?",
    "Noted. A day to remember.",
]


class Timeline:
    def __init__(self, world: World) -> None:
        self.world = world
        self.months_taken: dict[str, set[tuple[int, int]]] = {k: set() for k in MONTH_KINDS}
        self.values: dict[str, list[str]] = {
            key: world.rng.sample(kind.pool, len(kind.pool))
            for key, kind in MONTH_KINDS.items()
            if isinstance(kind.pool, tuple)
        }
        self.milestones = world.rng.sample(MILESTONES, len(MILESTONES))
        self.days_taken: set[tuple[int, int]] = set()

    def _value(self, key: str) -> str:
        pool = MONTH_KINDS[key].pool
        return self.values[key].pop() if isinstance(pool, tuple) else self.world.take(pool)

    def event(self, key: str, session: Session | None = None) -> tuple[Pointer, Session]:
        """Place a ``key`` event; returns its evidence and where it happened."""
        kind = MONTH_KINDS[key]
        if session is None:
            session = self.world.session(months_taken=self.months_taken[key])
        self.months_taken[key].add((session.day.year, session.day.month))
        value = self._value(key)
        text = self.world.padded(
            self.world.choice(kind.says).format(value=value, month=f"{session.day:%B}")
        )
        unit = self.world.add(session, ("user", text), ("assistant", self.world.choice(kind.acks)))
        return Pointer(unit, 0, value), session

    def ask_month(self, key: str) -> None:
        pointer, session = self.event(key)
        question = self.world.choice(MONTH_KINDS[key].asks).format(
            month_year=month_year(session.day)
        )
        self.world.ask(CATEGORY, question, pointer.contains, pointer)

    def milestone(self) -> tuple[Pointer, Session, str]:
        """Place a dated milestone; returns its evidence, session and how to refer to it."""
        value, paraphrase = self.milestones.pop()
        # The text names the day without the year: one milestone per day of the year.
        session = self.world.session()
        while (session.day.month, session.day.day) in self.days_taken:
            session = self.world.session()
        self.days_taken.add((session.day.month, session.day.day))
        text = self.world.padded(
            self.world.choice(MILESTONE_SAYS).format(date=long_date(session.day), value=value)
        )
        unit = self.world.add(
            session, ("user", text), ("assistant", self.world.choice(MILESTONE_ACKS))
        )
        return Pointer(unit, 0, long_date(session.day)), session, paraphrase

    def ask_when(self) -> None:
        pointer, _, paraphrase = self.milestone()
        question = self.world.choice(MILESTONE_ASKS).format(paraphrase=paraphrase)
        self.world.ask(CATEGORY, question, pointer.contains, pointer)

    def ask_same_month(self, key: str) -> None:
        """An event of ``key`` in the month of a milestone: both turns are evidence."""
        while True:
            anchor, session, paraphrase = self.milestone()
            month = (session.day.year, session.day.month)
            if month not in self.months_taken[key]:
                break
            # Another event of this kind already happened that month: the question would
            # have two answers. The milestone stays as a distractor; try another.
        target_session = self.world.session(
            same_month_as=session.day, months_taken=self.months_taken[key]
        )
        target, _ = self.event(key, target_session)
        question = f"{MONTH_KINDS[key].stem} in the same month that I {past(paraphrase)}?"
        self.world.ask(CATEGORY, question, target.contains, anchor, target)


def past(phrase: str) -> str:
    """ "get my passport" → "got my passport": the paraphrases start with a plain verb."""
    verb, _, rest = phrase.partition(" ")
    done = PAST.get(verb) or (verb + "d" if verb.endswith("e") else verb + "ed")
    return f"{done} {rest}"
