"""In-thread questions: something told over a few turns on one topic, as people talk.

The other families place each fact in one self-contained turn among unrelated small talk,
so a turn's neighbours say nothing about it. Conversations are seldom like that: the topic
is named once ("my first pottery class"), the other side asks about it, and the telling
detail comes in a short reply that often does not name the topic again ("A wonky
espresso cup"). Public conversation benchmarks are mostly of this kind (issue 19: there
BM25 over a turn with its neighbours found 8 points more at 10 than over the turn alone,
while on the families without threads it found less). The question names the topic or
the detail asked about, as someone asking about that conversation would; the evidence is
the user's reply, right after the question that prompted it.
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
                "Will you go back to the studio?",
                "Signed up for {value} more sessions already.",
                ("eleven", "fourteen", "seventeen"),
                ("How many more pottery sessions did I sign up for?",),
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
                "Did anything go wrong on the ride?",
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
                "How much was the vet visit?",
                "{value} pounds, which stung a bit.",
                ("Ninety-two", "Seventy-six", "Eighty-four"),
                ("How much did the cat's vet visit cost?",),
            ),
        ),
        ("Glad she's alright.", "Poor thing, I hope she's eating again soon."),
    ),
    Thread(
        (
            "Our book club met last night to talk about the new novel.",
            "Book club was on last night, first meeting in ages.",
        ),
        (
            Exchange(
                "Nice! Which book did the book club discuss?",
                "'{value}'. Half of us loved it, half gave up.",
                ("The Salt Orchard", "Nine Lanterns", "A Map of Small Hours"),
                ("Which novel did my book club discuss last time?",),
            ),
            Exchange(
                "Where does the book club meet?",
                "In the back room of {value}. They keep the kettle going for us.",
                ("the Rusty Anchor", "Marigold Books", "the Tin Lantern"),
                ("Where does my book club meet?",),
            ),
            Exchange(
                "Who picks the next book?",
                "{value}, and she's threatening us with a nine-hundred-page saga.",
                ("Genoveva", "Eudora", "Hortensia"),
                ("Who chooses the next book for my book club?",),
            ),
        ),
        ("A good way to spend an evening.", "Arguments about books are the best kind."),
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
            "Had my driving test this afternoon.",
            "So, the driving test happened today.",
        ),
        (
            Exchange(
                "And? How did the driving test go?",
                "Passed! The examiner said my {value} was textbook.",
                ("mirror checking", "lane discipline", "emergency stop"),
                ("What did the examiner praise on my driving test?",),
            ),
            Exchange(
                "What was the hardest part of the test?",
                "The {value}. I clipped the kerb on the first go.",
                ("parallel parking", "bay reversing", "hill start"),
                ("Which manoeuvre was hardest for me on the driving test?",),
            ),
            Exchange(
                "Who taught you to drive?",
                "My instructor {value}, who now deserves a medal.",
                ("Ignatius", "Lysander", "Peregrine"),
                ("What's the name of my driving instructor?",),
            ),
        ),
        ("Congratulations!", "That's a big one ticked off."),
    ),
    Thread(
        (
            "Spent the whole day at the allotment yesterday.",
            "Allotment day yesterday, my back is complaining.",
        ),
        (
            Exchange(
                "What's growing at the allotment at the moment?",
                "Mostly {value}, far more than we can eat.",
                ("courgettes", "runner beans", "rhubarb"),
                ("What's growing most at my allotment?",),
            ),
            Exchange(
                "Do you share the allotment plot with anyone?",
                "With my neighbour {value}, who does all the weeding.",
                ("Ferdinand", "Augustin", "Gwendolyn"),
                ("Who do I share my allotment plot with?",),
            ),
            Exchange(
                "Anything eating your crops at the allotment?",
                "{value}, every night. We've tried everything.",
                ("Muntjac deer", "Wood pigeons", "Field voles"),
                ("What keeps eating the crops at my allotment?",),
            ),
        ),
        ("Fresh vegetables are worth it.", "The best kind of tired."),
    ),
    Thread(
        (
            "Went to the jazz festival in the park on Saturday.",
            "The jazz festival in the park was on this weekend, so we went.",
        ),
        (
            Exchange(
                "Who played at the jazz festival?",
                "The headliner was a {value} player from Lisbon. Unreal.",
                ("vibraphone", "double bass", "flugelhorn"),
                ("What instrument did the headliner at the jazz festival play?",),
            ),
            Exchange(
                "Who did you go to the festival with?",
                "My cousin {value}, who knew every tune.",
                ("Thelonius", "Seraphina", "Florizel"),
                ("Who came with me to the jazz festival?",),
            ),
            Exchange(
                "What was the food like at the festival?",
                "Best thing I ate was a {value} from a van.",
                ("jerk chicken wrap", "halloumi flatbread", "bao bun"),
                ("What was the best food I had at the jazz festival?",),
            ),
        ),
        ("That sounds like a great day out.", "Live music outdoors is hard to beat."),
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
                "When will you hear back from the museum?",
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
                "Did the move cost much?",
                "Only the {value}, the rest we had.",
                ("ethernet cable", "blackout blind", "desk lamp"),
                ("What was the only thing we paid for when moving the home office?",),
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
