"""In-thread questions: something told over a few turns on one topic, as people talk.

Almost every other family places a fact in one self-contained turn among unrelated small
talk, so a turn's neighbours say nothing about it. Conversations are seldom like that: the
topic is named once ("my first pottery class"), the other side asks about it, and the
telling detail comes in a short reply that does not name the topic again ("A wonky soap
dish"). On the public conversation benchmark issue 19 reports, BM25 over a turn with its
neighbours found 8 points more at 10 than over the turn alone; on this corpus without
threads it found less.

As written here: the reply never names the topic; the assistant's question before it
usually does, and some questions are bare ("And then?"), leaving the topic further back.
Each topic is told once, in one thread, and overlaps no other family's events, roles or
facts (no second answer elsewhere). Questions name the topic, as someone asking about
that conversation would. This favours windows more than real conversation does (on
this family windowed dense search finds every answer): it is a tenth of the corpus.
"""

from __future__ import annotations

from dataclasses import dataclass

from .world import Pointer, World

CATEGORY = "in-thread"


@dataclass(frozen=True)
class Exchange:
    """The other side's question about the topic, the reply holding ``{value}`` (one of
    ``values``), and the questions asked later."""

    prompt: str
    reply: str
    values: tuple[str, ...]
    asks: tuple[str, ...]


@dataclass(frozen=True)
class Thread:
    openers: tuple[str, ...]
    exchanges: tuple[Exchange, ...]
    acks: tuple[str, ...]


THREADS: list[Thread] = [
    Thread(
        (
            "Tried my first pottery class at the community studio last night.",
            "So I finally went to that pottery class at the community studio.",
        ),
        (
            Exchange(
                "How fun! What did you end up making at the pottery class?",
                "A wonky {value}. It leans, but it's mine.",
                ("espresso cup", "bud vase", "soap dish"),
                ("What did I make at my first pottery class?",),
            ),
            Exchange(
                "Who runs the pottery class?",
                "A retired potter called {value}. Endlessly patient with us.",
                ("Ottoline", "Marguerite", "Barnaby"),
                ("Who teaches the pottery class I went to?",),
            ),
            Exchange(
                "And?",
                "Already bought my own {value}. Hooked.",
                ("glaze kit", "clay apron", "loop tool set"),
                ("What did I buy after my first pottery class?",),
            ),
        ),
        ("Sounds like a good evening.", "Clay under the fingernails for a week, I bet."),
    ),
    Thread(
        (
            "We did the big charity bike ride along the coast on Sunday.",
            "Back from the charity bike ride on the coast road!",
        ),
        (
            Exchange(
                "Well done! How far was the charity ride in the end?",
                "{value} kilometres, and the last hill nearly finished me.",
                ("Ninety-three", "Seventy-eight", "Sixty-four"),
                ("How long was the charity bike ride along the coast?",),
            ),
            Exchange(
                "What was the charity ride raising money for?",
                "The {value}. We got past our target too.",
                ("lifeboat station", "hospice garden", "mountain rescue team"),
                ("What did the coastal charity bike ride raise money for?",),
            ),
            Exchange(
                "Anything else?",
                "Only a snapped {value} halfway, fixed by a kind stranger.",
                ("chain", "spoke", "brake cable"),
                ("What broke on my bike during the charity ride?",),
            ),
        ),
        ("What an achievement.", "Your legs must be feeling it today."),
    ),
    Thread(
        (
            "My sister's housewarming party was yesterday, in the new flat.",
            "Just back from my sister's housewarming in her new flat.",
        ),
        (
            Exchange(
                "Lovely! What did you bring to the housewarming?",
                "A {value} in a pot. She's already named it.",
                ("lemon tree", "kumquat tree", "olive sapling"),
                ("What did I give my sister at her housewarming?",),
            ),
            Exchange(
                "Where is the new flat?",
                "Right above a {value}, so the smell in the mornings is amazing.",
                ("bagel shop", "coffee roastery", "patisserie"),
                ("What's underneath my sister's new flat?",),
            ),
            Exchange(
                "How many people came to the housewarming?",
                "About {value}, crammed into one living room.",
                ("thirty-five", "twenty-six", "forty-one"),
                ("Roughly how many people were at my sister's housewarming?",),
            ),
        ),
        ("A good start in a new home.", "Sounds like a proper party."),
    ),
    Thread(
        (
            "Went to the vet with the cat this morning, she's been off her food.",
            "Took the cat to the vet today because she stopped eating.",
        ),
        (
            Exchange(
                "Oh no. What did the vet say about the cat?",
                "A {value}, nothing serious. Relief all round.",
                ("hairball blockage", "gum infection", "mild stomach bug"),
                ("What did the vet find wrong with my cat?",),
            ),
            Exchange(
                "Did the vet give her anything?",
                "Yes: {value} for a week, hidden in tuna.",
                ("antibiotic paste", "probiotic powder", "liquid painkiller"),
                ("What did the vet prescribe my cat?",),
            ),
            Exchange(
                "And then?",
                "{value} pounds, which stung a bit.",
                ("Ninety-two", "Seventy-six", "Eighty-four"),
                ("How much did the cat's vet visit cost?",),
            ),
        ),
        ("Glad she's alright.", "Poor thing, I hope she's eating again soon."),
    ),
    Thread(
        (
            "We did an escape room with the team on Friday.",
            "Work outing yesterday: an escape room, of all things.",
        ),
        (
            Exchange(
                "Fun! What was the theme of the escape room?",
                "A {value}, with a ticking clock and fake smoke.",
                ("sunken submarine", "haunted observatory", "pharaoh's tomb"),
                ("What was the theme of the escape room we did with the team?",),
            ),
            Exchange(
                "Did you get out of the escape room in time?",
                "With {value} seconds to spare!",
                ("forty-seven", "thirty-nine", "fifty-three"),
                ("How many seconds did we have to spare in the escape room?",),
            ),
            Exchange(
                "Who cracked the last clue?",
                "The new intern, {value}, who had been quiet all evening.",
                ("Casimir", "Ondine", "Ptolemy"),
                ("Who solved the final clue in the escape room?",),
            ),
        ),
        ("Sounds like a great team outing.", "Nothing bonds a team like a countdown."),
    ),
    Thread(
        (
            "We finally repainted the kitchen over the weekend.",
            "Kitchen repaint done! Took the whole weekend.",
        ),
        (
            Exchange(
                "What colour did you paint the kitchen?",
                "A deep {value}. Bold, but we love it.",
                ("teal", "terracotta", "mustard yellow"),
                ("What colour is my kitchen now?",),
            ),
            Exchange(
                "Which paint did you use for the kitchen?",
                "{value}, the expensive stuff, and worth it.",
                ("Lindqvist Eggshell", "Harbour and Heath", "Copperleaf Matt"),
                ("Which brand of paint did we use for the kitchen?",),
            ),
            Exchange(
                "Any mishaps while painting?",
                "The {value} got a stripe of paint, naturally.",
                ("dog", "toaster", "fridge door"),
                ("What accidentally got paint on it when we did the kitchen?",),
            ),
        ),
        ("Fresh paint changes a room.", "That's a weekend well spent."),
    ),
    Thread(
        (
            "Our street party finally happened on Saturday.",
            "The street party was yesterday, the whole road turned out.",
        ),
        (
            Exchange(
                "Lovely! What did you bring to the street party?",
                "A tray of {value}, gone in ten minutes.",
                ("lamingtons", "spanakopita", "empanadas"),
                ("What food did I bring to the street party?",),
            ),
            Exchange(
                "Was there music at the street party?",
                "A neighbour's {value} band played all afternoon.",
                ("ska", "ceilidh", "mariachi"),
                ("What kind of band played at our street party?",),
            ),
            Exchange(
                "And then?",
                "Then the council closed the road till {value}, so we danced in it.",
                ("half past ten", "quarter to eleven", "eleven fifteen"),
                ("Until when was the road closed for our street party?",),
            ),
        ),
        ("Sounds like a proper community day.", "What a lovely road to live on."),
    ),
    Thread(
        (
            "Spent the weekend at a hackathon at work.",
            "Survived my first hackathon, forty-eight hours at the office.",
        ),
        (
            Exchange(
                "What did your hackathon team build?",
                "A {value}, held together with duct tape and hope.",
                ("bike-share tracker", "meeting-room booker", "recipe scaler"),
                ("What did my team build at the hackathon?",),
            ),
            Exchange(
                "Did the hackathon project win anything?",
                "Second place, and a {value} each.",
                ("mechanical keyboard", "drone kit", "pair of noise-cancelling headphones"),
                ("What prize did we each get at the hackathon?",),
            ),
            Exchange(
                "Anything else?",
                "I slept four hours on a {value} in the break room.",
                ("beanbag", "yoga mat", "camping cot"),
                ("Where did I sleep during the hackathon?",),
            ),
        ),
        ("Well earned rest now.", "Sounds exhausting and brilliant."),
    ),
    Thread(
        (
            "Went to the work karaoke night on Thursday.",
            "Karaoke night with the office crowd yesterday.",
        ),
        (
            Exchange(
                "Brave! What did you sing at karaoke?",
                "'{value}', badly but with feeling.",
                ("Total Eclipse of the Heart", "Islands in the Stream", "Dancing Queen"),
                ("Which song did I sing at the work karaoke night?",),
            ),
            Exchange(
                "Where was the karaoke?",
                "A tiny place called {value}, with a private booth.",
                ("Echo Chamber", "The Velvet Mic", "Room Nine"),
                ("Where was the work karaoke night held?",),
            ),
            Exchange(
                "And then?",
                "My manager did a duet with the {value}, which no one will forget.",
                ("cleaner", "security guard", "bartender"),
                ("Who did my manager duet with at karaoke?",),
            ),
        ),
        ("Karaoke is the great leveller.", "Sounds like a memorable night."),
    ),
    Thread(
        (
            "My grandmother turned ninety on Friday and we threw her a party.",
            "Grandma's ninetieth birthday party was on Friday!",
        ),
        (
            Exchange(
                "Happy birthday to her! What did you get your grandmother?",
                "A {value}, which she pretended to be cross about.",
                ("hot-air balloon ride", "silk scarf", "framed family tree"),
                ("What present did I give my grandmother for her ninetieth?",),
            ),
            Exchange(
                "Where was the party?",
                "At the {value} where she met my grandad.",
                ("bowling green", "dance hall", "boathouse"),
                ("Where did we hold my grandmother's ninetieth birthday party?",),
            ),
            Exchange(
                "What was the cake like?",
                "{value} sponge, four layers, baked by my aunt.",
                ("Hummingbird", "Battenberg", "Pistachio"),
                ("What kind of cake was at grandma's ninetieth?",),
            ),
        ),
        ("Ninety! What a milestone.", "Sounds like a day she'll remember."),
    ),
    Thread(
        (
            "The job interview was this morning, the one at the museum.",
            "Had the museum job interview today.",
        ),
        (
            Exchange(
                "How was the museum interview?",
                "They asked me to present on the {value} collection, on the spot.",
                ("Roman coin", "Victorian toy", "Ming porcelain"),
                ("Which collection did they ask me to present on at the museum interview?",),
            ),
            Exchange(
                "Who interviewed you?",
                "The head curator, {value}, and two trustees.",
                ("Hildegard", "Millicent", "Isidore"),
                ("Who interviewed me at the museum?",),
            ),
            Exchange(
                "What happens next?",
                "By {value}, they said.",
                ("Thursday week", "the end of the month", "mid-October"),
                ("When did the museum say they'd get back to me?",),
            ),
        ),
        ("Fingers crossed for you.", "It sounds like it went well."),
    ),
    Thread(
        (
            "We moved the home office into the spare room this week.",
            "The home office is now in the spare room, finally.",
        ),
        (
            Exchange(
                "How's the new home office set up?",
                "Desk faces the window now, and I bought a {value}.",
                ("standing mat", "monitor arm", "footrest"),
                ("What did I buy for the new home office?",),
            ),
            Exchange(
                "Is the spare room quiet enough to work in?",
                "Apart from the {value} next door, yes.",
                ("drum kit", "woodpecker", "loft conversion"),
                ("What noise bothers me in the new home office?",),
            ),
            Exchange(
                "What's on the wall in the new office?",
                "A framed {value} from a flea market.",
                ("tram map of Lisbon", "botanical print", "ship's chart"),
                ("What hangs on the wall of my new home office?",),
            ),
        ),
        ("A proper workspace makes a difference.", "Good luck with the new setup."),
    ),
]


def add_threads(world: World) -> None:
    """Each thread told once, in one session: the opener, then each exchange (the other
    side's question, the reply with the value, an acknowledgement), one question each."""
    for thread in THREADS:
        turns: list[tuple[str, str]] = [("user", world.choice(thread.openers))]
        asked: list[tuple[int, Exchange, str]] = []
        for exchange in thread.exchanges:
            value = world.choice(exchange.values)
            turns += [("assistant", exchange.prompt), ("user", exchange.reply.format(value=value))]
            asked.append((len(turns) - 1, exchange, value))
        turns.append(("assistant", world.choice(thread.acks)))
        unit = world.add(world.session(), *turns)
        for index, exchange, value in asked:
            world.ask(CATEGORY, world.choice(exchange.asks), value, Pointer(unit, index, value))
