"""Two friends chatting, session after session: people's lives told by the people
themselves (issue 31's speaker-aware variant of ``lives``).

A long-conversation set is usually imported as a transcript between two people, each turn
opening with its speaker's name ("Pia: I took the kids rock pooling on Saturday") and the
two people mapped onto the roles user and assistant. Its questions ask about one of them
in the third person ("What activities does Pia do with the kids?") while the evidence is
that person's own turns, in the first person: nothing but the "Pia:" at the head of a turn
says whose kids they are, and the friend's turns tell the same kinds of things about the
friend's own life. ``add_friends`` writes such transcripts — a conversation per pair of
friends, dated sessions months apart, chatter between the news — and asks the
``lives`` families' questions about them (``AGGREGATION``, ``INFERENTIAL``), marked with
the variant ``SPEAKERS``.

The transcripts are made after every other conversation is laid out, with a random
generator of their own, so the rest of the corpus (its turns and its questions' evidence)
is the same with them as without. Everything here is written for this corpus; none of it
comes from a public benchmark.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from .lives import AGGREGATION, ASPECTS, INFERENTIAL, MIN_DAYS_APART, TRAITS
from .model import PART_SEPARATOR, Conversation, Evidence, Question, Turn
from .world import FIRST_DAY, LAST_DAY, World, articled, capitalised

SPEAKERS = "speakers"
PAIRS = 4
SESSIONS_EACH = 7
TURNS_PER_SESSION = (16, 26)
ASPECTS_EACH = 3
SHARED_ASPECTS = 2
TRAITS_EACH = 2


def _listed(text: str) -> tuple[str, ...]:
    return tuple(text.split(", "))


@dataclass(frozen=True)
class Told:
    """How a person tells one thread of their own life: ``says`` each hold one
    ``{value}``; the questions are ``lives.ASPECTS``'."""

    values: tuple[str, ...]
    says: tuple[str, ...]


TOLD: dict[str, Told] = {
    "trips": Told(
        _listed(
            "Valletta, Honfleur, Kuldīga, Cinque Terre, Hvar, Berat, Zermatt, Plovdiv, "
            "Aix-en-Provence, Sarlat, Siena, Korčula, Gjirokastër, Toledo, Lindos, Gruyères, "
            "Sozopol, Ericeira, Hydra, Vernazza"
        ),
        (
            "Just got back from four days in {value}! Sunburnt, and half my suitcase is cheese.",
            "I'm sending you a pic from {value}; the old town is unreal.",
            "We spent the long weekend wandering round {value}; I'd go back tomorrow.",
            "Boarding at the tiny airport in {value}, I'll message you when I land.",
        ),
    ),
    "kids": Told(
        _listed(
            "making pizzas, pond skating, wild camping, cloud spotting, rope "
            "swinging, rock climbing at the wall, beach combing, tadpole spotting, cycling "
            "the canal, making paper boats, baking gingerbread, birdwatching in the park, "
            "building a go-kart, making bird feeders, scavenger hunting, roller skating, "
            "visiting the city farm, rock painting, hunting for shells, toasting marshmallows"
        ),
        (
            "I took the kids {value} on Saturday; everyone came home filthy and delighted.",
            "Our Sunday thing with the kids these days: {value}, then pancakes.",
            "Honestly, {value} is the only thing that tires my two out.",
            "The children and I went {value} over half term. The little one wants to go again.",
        ),
    ),
    "pets": Told(
        _listed(
            "Marzipan, Cobnut, Truffle, Pancetta, Macaroon, Skittles, Bagel, Boomerang, "
            "Haggis, Meatball, Flapjack, Dorito, Churro, Brioche, Pompom, Wombat, Sherbet, Zorro, "
            "Falafel, Jellybean"
        ),
        (
            "I brought home a rescue greyhound and I've called her {value}.",
            "Sorry, brb, my cat {value} just knocked the fruit bowl off the counter.",
            "An old tomcat called {value} has moved in with me and taken the best chair.",
            "I had to rush {value} the rabbit to the vet at midnight; all fine in the end.",
        ),
    ),
    "jobs": Told(
        _listed(
            "Copperleaf Analytics, Driftwood Studios, Halyard Logistics, Juniper & Vane, "
            "Northgate Pharma, Pebblecreek Bank, Quillon Games, Starling Freight, Tidewater "
            "Energy, Umbra Robotics, Wrenfield Trust, Yarrowby Publishing, Ashgrove Dental, "
            "Blackthorn Legal, Corvid Security, Dunmore Estates, Elmstead Care, Foxhollow "
            "Farms, Glasswing Media, Hearthstone Homes"
        ),
        (
            "I start at {value} on Monday; the first week is all inductions.",
            "I finally handed in my notice at {value} after six long years.",
            "I landed the contract role at {value}! Three days a week in the office.",
            "The open-plan floor at {value} is driving me mad.",
        ),
    ),
    "classes": Told(
        _listed(
            "lino printing, candle making, stone carving, blacksmithing, bonsai, basket "
            "weaving, Icelandic, clay modelling, cheese making, kintsugi, upcycling, aerial yoga, "
            "pottery throwing, glassblowing, archery, trapeze, improv comedy, crochet, Norwegian, "
            "paper marbling"
        ),
        (
            "I'm three weeks into a {value} course at the community college.",
            "Finished my {value} workshop today and I'm insufferably proud of it.",
            "Tuesday evenings are {value} for me now.",
            "I signed up for {value} lessons with a friend from work.",
        ),
    ),
}

# How each trait's two clues are told in the first person, with values of their own;
# the questions are ``lives.TRAITS``'.
CLUES: dict[str, tuple[tuple[str, tuple[str, ...]], tuple[str, tuple[str, ...]]]] = {
    "hill walking": (
        (
            "I spent Saturday scrambling up {value} again; the view from the top is worth every "
            "blister.",
            ("Cadair Idris", "Pen y Fan", "Catbells", "Great Gable"),
        ),
        (
            "I finally bought proper {value} boots, breaking them in on the towpath.",
            ("La Sportiva", "Merrell Moab", "Keen Targhee", "Salewa"),
        ),
    ),
    "dog owner": (
        (
            "Can't stay for a second drink tonight, I have to get back and let {value} out.",
            ("Hobnob the terrier", "Gravy", "Mr Pickles", "Bovril"),
        ),
        (
            "My knees are muddy again: the lead got tangled round a lamppost on the {value} loop.",
            ("Beacon Hill", "Hartley Wood", "Millbrook", "Coldharbour"),
        ),
    ),
    "vegetarian": (
        (
            "I brought a {value} to the potluck; it's been years since any meat touched my lips.",
            ("mushroom stroganoff", "lentil dhal", "spinach lasagne", "jackfruit curry"),
        ),
        (
            "We went to {value} last night and I had the aubergine, as always.",
            ("The Hungry Gardener", "Sprout & Spoon", "Lotus Leaf", "Verdura"),
        ),
    ),
    "afraid of flying": (
        (
            "I took the sleeper train all the way to {value} rather than get on a plane.",
            ("Linz", "Graz", "Ostrava", "Košice"),
        ),
        (
            "I gripped the armrest for the whole {value} hop and swore never again.",
            ("Newquay", "Inverness", "Scilly", "Kirkwall"),
        ),
    ),
    "musician": (
        (
            "I practised the {value} so late that the neighbours banged on the wall.",
            ("harmonium", "tenor sax", "cornet", "banjolele"),
        ),
        (
            "My band, {value}, has a gig above the pub next Friday.",
            ("The Marmalade Kites", "Foxglove Radio", "Cardboard Comets", "Night Ferry Club"),
        ),
    ),
    "reader": (
        (
            "Missed my stop again, nose deep in {value}.",
            ("Middlemarch", "The Goldfinch", "Possession", "Piranesi"),
        ),
        (
            "I run the {value} circle at the library now and pick the titles each month.",
            ("Turning Pages", "Bookmark Club", "Spine Breakers", "Inkwell"),
        ),
    ),
    "gardener": (
        (
            "Dropped off a bag of {value} tomatoes from my allotment at Mum's.",
            ("Moneymaker", "Shirley", "Ailsa Craig", "Brandywine"),
        ),
        (
            "Spent the whole bank holiday repotting my {value} cuttings.",
            ("coleus", "heuchera", "verbena", "dahlia"),
        ),
    ),
    "early riser": (
        (
            "I'm at the {value} lido every day by half past five, before anyone else.",
            ("Charlton", "London Fields", "Hampton", "Sandford Parks"),
        ),
        (
            "Sent you a sunrise photo from {value} at twenty to six, already on my way back down.",
            ("Glastonbury Tor", "Box Hill", "Cleeve Hill", "Mam Tor"),
        ),
    ),
    "runner": (
        (
            "I did the {value} parkrun again and knocked off another twenty seconds.",
            ("Wimbledon Common", "Hackney Marshes", "Cramond", "Roundhay"),
        ),
        (
            "My new {value} trainers already have two hundred miles on them.",
            ("Mizuno Wave", "Nike Pegasus", "Adidas Boston", "On Cloudmonster"),
        ),
    ),
    "cold water swimmer": (
        (
            "I was in the sea at {value} on New Year's Day; bracing is one word for it.",
            ("Whitley Bay", "Bude", "Sandsend", "Lyme Regis"),
        ),
        (
            "Bought a {value} changing robe and I wear it everywhere now.",
            ("Charlie McLeod", "Passenger", "Gylly", "Rip Curl"),
        ),
    ),
    "shellfish allergy": (
        (
            "Had a reaction to the {value} at my cousin's wedding and needed my EpiPen.",
            ("lobster bisque", "prawn cocktail", "crab cakes", "scallops"),
        ),
        (
            "I always quiz the waiter at {value} about prawns in the stock.",
            ("Fishers", "The Crab Pot", "Rockfish", "Seahorse Grill"),
        ),
    ),
    "speaks spanish": (
        (
            "I grew up in {value} and still phone my grandparents every Sunday.",
            ("Segovia", "Logroño", "Cáceres", "Teruel"),
        ),
        (
            "I translated the whole {value} menu for everyone without blinking.",
            ("Casa Lola", "El Rincón", "La Tasca", "Bar Pepito"),
        ),
    ),
}

# What the friend answers to news. In every line, ``{other}`` is the friend spoken to.
REACTIONS = (
    "Oh I love that!",
    "Ha, that's so you, {other}.",
    "Wait, really? Tell me everything next time.",
    "That sounds amazing, honestly.",
    "No way! Pics please.",
    "You deserve it.",
    "I'm so jealous right now.",
    "Haha, classic {other}.",
    "Good for you!",
    "Ooh, how did it go?",
)

# Chatter: first-person lines either friend says between the news, many near the news's
# topics (kids, trips, work, pets, evenings) without any value of it.
CHATTER = (
    "Work has been {busy} this week, I've barely had time to breathe.",
    "Did you end up watching {show}? I'm two episodes in and hooked.",
    "The weather here has been {weather} all week.",
    "I'm thinking about repainting the {room}, maybe a deep green.",
    "The kids are off school next week, send help.",
    "Thinking of booking somewhere sunny for the spring, any ideas?",
    "My back is killing me after {chore}.",
    "Finally sorted out the {admin}. Adulting!",
    "We had {dinner} for dinner and it was so good.",
    "Can't believe how fast this year is going.",
    "I need a holiday, honestly, even just a weekend away.",
    "The little one has a cold again, so we're all on no sleep.",
    "My manager wants the report by Friday, no pressure.",
    "I've been trying to cut down on coffee. It's not going well.",
    "The neighbours are having building work done and it starts at eight every day.",
    "I keep meaning to call my mum back.",
    "Our boiler broke again, so it's cold showers for now.",
    "I've started a new podcast about {podcast}, weirdly gripping.",
    "The car failed its MOT, of course.",
    "I fell asleep on the sofa at nine last night.",
    "We're finally getting a new sofa, the old one is sagging in the middle.",
    "Honestly the school run is the hardest part of my day.",
    "I've got a dentist appointment tomorrow and I'm dreading it.",
    "The supermarket had run out of everything this morning.",
)
REPLIES = (
    "Same here, honestly.",
    "Ugh, I feel that.",
    "Oh nice, let me know how it goes.",
    "Haha, good luck with that!",
    "Sending strength.",
    "That's so annoying.",
    "Ha, I'd have done exactly the same.",
    "Oh no! Hope it gets better soon.",
    "Tell me about it.",
    "Love that for you.",
)
SLOTS = {
    "busy": ("mad", "relentless", "non-stop", "a lot"),
    "show": ("that baking show", "the new detective series", "the nature documentary"),
    "weather": ("grey and drizzly", "weirdly warm", "freezing", "windy"),
    "room": ("hallway", "bathroom", "spare room", "kitchen"),
    "chore": ("moving furniture", "gardening all day", "carrying the shopping up the stairs"),
    "admin": ("car insurance", "tax return", "passport renewal", "broadband contract"),
    "dinner": ("a big curry", "homemade pizza", "a roast", "tacos"),
    "podcast": ("old shipwrecks", "unsolved mysteries", "the history of maps"),
}
GREETINGS = (
    ("Hey {other}! Long time, how are you?", "Hey! Good, busy, you know how it is."),
    ("Morning! Got a minute to catch up?", "Always! What's new?"),
    ("Hiya, it's been ages.", "I know, sorry, life! How are things?"),
)
FAREWELLS = (
    ("Right, I'd better go, talk soon!", "Bye! Speak soon."),
    ("Okay, dinner time here. Chat later?", "Definitely, enjoy!"),
)


@dataclass(eq=False)
class _Session:
    day: date
    blocks: list[list[tuple[int, str]]] = field(default_factory=list)  # (speaker, text)


@dataclass(frozen=True)
class _Said:
    """An evidence turn: the first of ``block``, which holds ``contains``."""

    block: list[tuple[int, str]]
    contains: str


@dataclass(frozen=True)
class _Ask:
    category: str
    question: str
    answer: str
    evidence: list[_Said]


def add_friends(
    world: World, seed: int, first_conversation: int, first_question: int
) -> tuple[list[Conversation], list[Question]]:
    """``PAIRS`` transcripts of two friends each, as conversations numbered from
    ``first_conversation``, and their questions, numbered from ``first_question``. The
    names are the world's (never another person's of the corpus); the rest comes from a
    random generator of its own."""
    rng = random.Random(f"{seed}-friends")
    told_values = {key: rng.sample(told.values, len(told.values)) for key, told in TOLD.items()}
    clue_values = {
        (key, i): rng.sample(clue[1], len(clue[1]))
        for key, clues in CLUES.items()
        for i, clue in enumerate(clues)
    }
    aspect_uses: Counter[str] = Counter()
    trait_uses: Counter[str] = Counter()
    conversations: list[Conversation] = []
    positions: dict[int, tuple[int, int]] = {}
    asks: list[_Ask] = []
    for pair in range(PAIRS):
        names = (world.take("name"), world.take("name"))
        sessions = _sessions(rng)
        # Both friends tell two of the same threads (both have kids, both travel): only
        # who said a turn tells whose life it is. The least told threads first.
        common = _least_used(rng, sorted(TOLD), aspect_uses)[:SHARED_ASPECTS]
        for speaker, name in enumerate(names):
            others = [k for k in _least_used(rng, sorted(TOLD), aspect_uses) if k not in common]
            aspects = sorted(common + others[: ASPECTS_EACH - SHARED_ASPECTS])
            aspect_uses.update(aspects)
            for key in aspects:
                used: list[_Session] = []
                parts = [told_values[key].pop() for _ in range(rng.choice(ASPECTS[key].counts))]
                says = rng.sample(TOLD[key].says, len(parts))
                said = [
                    _tell(rng, _spread(rng, sessions, used), speaker, text, value)
                    for value, text in zip(parts, says, strict=True)
                ]
                question = rng.choice(ASPECTS[key].asks).format(name=name)
                asks.append(_Ask(AGGREGATION, question, PART_SEPARATOR.join(parts), said))
            allowed = [k for k in sorted(CLUES) if not set(TRAITS[k].unless) & set(aspects)]
            for key in _least_used(rng, allowed, trait_uses)[:TRAITS_EACH]:
                trait_uses[key] += 1
                said, parts, used = [], [], []
                for i, (text, _) in enumerate(CLUES[key]):
                    value = clue_values[(key, i)].pop()
                    said.append(_tell(rng, _spread(rng, sessions, used), speaker, text, value))
                    parts.append(value)
                question = rng.choice(TRAITS[key].asks).format(name=name)
                asks.append(_Ask(INFERENTIAL, question, PART_SEPARATOR.join(parts), said))
        conversation, starts = _transcript(rng, names, sessions)
        conversations.append(conversation)
        positions |= {id(block): (first_conversation + pair, order) for block, order in starts}
    questions = [
        Question(
            f"q{first_question + n:03d}",
            ask.category,
            ask.question,
            ask.answer,
            [Evidence(*positions[id(s.block)], s.contains) for s in ask.evidence],
            variant=SPEAKERS,
        )
        for n, ask in enumerate(asks)
    ]
    return conversations, questions


def _least_used(rng: random.Random, keys: list[str], uses: Counter[str]) -> list[str]:
    """``keys`` in a random order, the least used first."""
    return sorted(rng.sample(keys, len(keys)), key=lambda key: uses[key])


def _sessions(rng: random.Random) -> list[_Session]:
    """Sessions weeks to months apart, within the corpus's calendar."""
    span = (LAST_DAY - FIRST_DAY).days
    day = FIRST_DAY + timedelta(days=rng.randint(0, span - 75 * SESSIONS_EACH))
    sessions = []
    for _ in range(SESSIONS_EACH):
        sessions.append(_Session(day))
        day += timedelta(days=rng.randint(MIN_DAYS_APART + 5, 75))
    return sessions


def _spread(rng: random.Random, sessions: list[_Session], used: list[_Session]) -> _Session:
    """A session at least ``MIN_DAYS_APART`` days from those this thread of a life was
    already told in (as ``lives`` spreads them), the least loaded of a few; a nearer one
    once none is that far."""
    for gap in (MIN_DAYS_APART, 1, 0):
        free = [
            s
            for s in sessions
            if s not in used and all(abs((s.day - u.day).days) >= gap for u in used)
        ]
        if free:
            break
    else:
        free = list(sessions)
    session = min(rng.sample(free, min(3, len(free))), key=lambda s: len(s.blocks))
    used.append(session)
    return session


def _tell(rng: random.Random, session: _Session, speaker: int, text: str, value: str) -> _Said:
    """``speaker`` tells ``text`` about ``value`` in ``session``; the friend reacts."""
    block = [
        (speaker, capitalised(articled(text.format(value=value)))),
        (1 - speaker, rng.choice(REACTIONS)),
    ]
    session.blocks.append(block)
    return _Said(block, value)


def _transcript(
    rng: random.Random, names: tuple[str, str], sessions: list[_Session]
) -> tuple[Conversation, list[tuple[list[tuple[int, str]], int]]]:
    """The sessions' news among chatter, each turn headed by its speaker's name, the
    first friend as the user and the second as the assistant (as such sets import); and
    the order of each news block's first turn."""
    turns: list[Turn] = []
    starts: list[tuple[list[tuple[int, str]], int]] = []
    for session in sessions:
        news = {id(block) for block in session.blocks}
        blocks = list(session.blocks)
        length = rng.randint(*TURNS_PER_SESSION)
        while sum(len(block) for block in blocks) < length:
            blocks.append(_chatter(rng))
        rng.shuffle(blocks)
        opener = rng.randrange(2)
        hello, bye = rng.choice(GREETINGS), rng.choice(FAREWELLS)
        blocks.insert(0, [(opener, hello[0]), (1 - opener, hello[1])])
        blocks.append([(opener, bye[0]), (1 - opener, bye[1])])
        clock = datetime(
            session.day.year, session.day.month, session.day.day, rng.randint(8, 21),
            rng.randint(0, 59), tzinfo=UTC,
        )  # fmt: skip
        for block in blocks:
            if id(block) in news:
                starts.append((block, len(turns) + 1))
            for speaker, text in block:
                clock += timedelta(seconds=rng.randint(15, 240))
                line = f"{names[speaker]}: {text.replace('{other}', names[1 - speaker])}"
                turns.append(Turn(("user", "assistant")[speaker], line, clock.isoformat()))
    return Conversation(f"{names[0]} and {names[1]}", turns), starts


def _chatter(rng: random.Random) -> list[tuple[int, str]]:
    speaker = rng.randrange(2)
    line = rng.choice(CHATTER).format(**{k: rng.choice(v) for k, v in SLOTS.items()})
    return [(speaker, line), (1 - speaker, rng.choice(REPLIES))]
