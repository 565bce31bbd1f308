"""People's lives told in passing over months, and the two kinds of question issue 31 says
hold Cairn back: aggregation and inference.

A handful of friends each have a life that the user mentions a line at a time, in
different sessions weeks or months apart, among everything else: the trips they take,
what they do with their children, their pets, their jobs, the classes they sign up for,
and habits that say something about them without naming it.

- ``multi-session``: one question gathers every turn of one thread of a life ("Which
  places has Ilse travelled to?"); each turn holds one of the answer's parts and recall
  counts the share found. The person's other turns (their pets, their jobs …) name them
  too, so the name alone does not pick the evidence; and half the turns say "my old
  flatmate" instead of the name, as people do once they have said who is who (once, in
  a turn of its own).
- ``inferential``: the question asks what the turns imply ("Would Ilse enjoy a week of
  hill walking?") and shares no word with them but the person's name; the turns name
  the things ("scrambling up Tryfan", "new Scarpa boots"). The answer's parts are those
  things, each said once in the corpus, so the labels stay complete.

Everything here is written for this corpus; none of it comes from a public benchmark.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date

from .model import PART_SEPARATOR
from .world import Pointer, Session, World, capitalised

AGGREGATION = "multi-session"
INFERENTIAL = "inferential"
MIN_DAYS_APART = 20


def _listed(text: str) -> tuple[str, ...]:
    return tuple(text.split(", "))


@dataclass(frozen=True)
class Aspect:
    """One thread of a life: ``says`` each hold ``{name}`` and one ``{value}``."""

    values: tuple[str, ...]
    says: tuple[str, ...]
    asks: tuple[str, ...]
    counts: tuple[int, ...]  # how many turns (parts), chosen per person


ASPECTS: dict[str, Aspect] = {
    "trips": Aspect(
        _listed(
            "Sintra, Colmar, Ronda, Hallstatt, Gozo, Sibiu, Girona, Bled, Ohrid, Kazimierz "
            "Dolny, Mdina, Český Krumlov, Rovinj, Annecy, Portree, Dinant, Lucca, Tavira, "
            "Monschau, Giethoorn, Urbino, Bamberg, Piran, Sighișoara, Óbidos, Cesky Raj, "
            "Tobermory, Alberobello, Saint-Malo, Kinsale, Cochem, Nazaré, Mittenwald, Procida"
        ),
        (
            "{name} sent a postcard from {value}; apparently the ferry was late but the "
            "pastries made up for it.",
            "{name} is back from four days in {value} with a sunburn and half a suitcase of "
            "cheese.",
            "Got a voice note from {name} at the little airport in {value}, boarding in ten "
            "minutes.",
            "{name} spent the long weekend wandering round {value} and won't stop talking "
            "about the old town.",
            "Saw the photos {name} took in {value}: cobbles, church towers and far too many cats.",
        ),
        (
            "Which places has {name} travelled to?",
            "Where has {name} been on holiday lately?",
            "What destinations has {name} gone to over the past months?",
        ),
        (3, 3, 4),
    ),
    "kids": Aspect(
        _listed(
            "rock pooling, pond dipping, crazy golf, go-karting, trampolining, ten-pin "
            "bowling, fruit picking, kite flying, den building, ice skating, pottery "
            "painting, stargazing, crabbing, sledging, canoeing, laser tag, blackberry "
            "foraging, fossil hunting, puddle jumping, geocache hunting, mini golf, bug "
            "hunting, conker collecting, treetop climbing, bike trail riding, sandcastle "
            "building"
        ),
        (
            "{name} took the little ones {value} on Saturday; everyone came home filthy and "
            "delighted.",
            "{name}'s Sunday ritual with the kids these days: {value}, then pancakes.",
            "According to {name}, {value} is the only thing that tires the children out.",
            "{name} and the children went {value} over half term. The youngest already wants "
            "to go again.",
            "{name} spent the afternoon {value} with the kids and sent me a very muddy selfie.",
        ),
        (
            "What activities does {name} do with the kids?",
            "How does {name} spend time with the children?",
            "What does {name} get up to with the family at weekends?",
        ),
        (2, 3, 3),
    ),
    "pets": Aspect(
        _listed(
            "Pumpernickel, Tapioca, Rigatoni, Dumpling, Custard, Bramble, Ziggy, Kipper, "
            "Crumpet, Nutmeg, Sardine, Sprocket, Tinsel, Fudge, Parsnip, Doodlebug, Rhubarb, "
            "Captain Squeak, Mothball, Quasar, Wasabi, Humbug"
        ),
        (
            "{name} brought home a rescue greyhound and called it {value}.",
            "{name}'s cat {value} knocked the fruit bowl off the counter during our video call.",
            "An elderly tomcat called {value} has moved in with {name} and taken the best chair.",
            "{name} had to take {value} the rabbit to the vet at midnight; all fine in the end.",
            "{name} has adopted a one-eyed kitten, {value}, who already rules the flat.",
        ),
        (
            "What are the names of {name}'s pets?",
            "Which animals live with {name}?",
            "What creatures does {name} look after at home?",
        ),
        (2, 2, 3),
    ),
    "jobs": Aspect(
        _listed(
            "Larkspur Studio, Bramwell & Finch, Ostara Labs, Pellucid Systems, Harrowgate "
            "Mutual, Vantablue Media, Quarrystone Builders, Kittiwake Ferries, Oriel Biotech, "
            "Saltmarsh Consulting, Thistledown Foods, Wayfarer Insurance, Cobaltline Rail, "
            "Gannet & Cole, Fenwick Drayton, Lumenor Optics, Hollybrook Schools, Redkite "
            "Aviation, Marlowe Fintech, Brackenridge Council, Silverbirch Hotels, Ironbridge "
            "Labs, Pennyroyal Press"
        ),
        (
            "{name} starts at {value} on Monday; the first week is all inductions.",
            "{name} finally handed in notice at {value} after six long years.",
            "{name} landed the contract role at {value}, three days a week in the office.",
            "{name} has been poached by {value}, with a proper pay rise this time.",
            "{name} keeps moaning about the open-plan floor at {value}.",
        ),
        (
            "Where has {name} worked?",
            "Which companies has {name} been employed by?",
            "What firms has {name} had jobs at?",
        ),
        (2, 3, 3),
    ),
    "classes": Aspect(
        _listed(
            "stained glass, upholstery, beekeeping, pewter casting, sourdough baking, "
            "silversmithing, screen printing, bookbinding, flamenco, welding, millinery, "
            "knife skills, tai chi, watercolour, jewellery making, furniture restoring, "
            "macramé, Mandarin, wood carving, letterpress, glass fusing, cake decorating"
        ),
        (
            "{name} is three weeks into a {value} course at the community college.",
            "{name} finished the {value} workshop and is insufferably proud of it.",
            "{name} spends Tuesday evenings doing {value} now.",
            "{name} signed up for {value} lessons with a friend from work.",
        ),
        (
            "What courses has {name} taken up?",
            "Which skills has {name} been learning?",
            "What has {name} been studying in the evenings?",
        ),
        (2, 2, 3),
    ),
}


@dataclass(frozen=True)
class Trait:
    """Something the turns imply: two clues, each naming one thing (a value of its own
    list); ``asks`` hold ``{name}`` and none of the clues' words. ``unless`` is an aspect
    whose turns would also answer the question: a person with it gets no such trait."""

    clues: tuple[tuple[str, tuple[str, ...]], tuple[str, tuple[str, ...]]]
    asks: tuple[str, ...]
    unless: tuple[str, ...] = ()


TRAITS: dict[str, Trait] = {
    "hill walking": Trait(
        (
            (
                "{name} spent Saturday scrambling up {value} again; says the view from the top "
                "is worth every blister.",
                ("Tryfan", "Helvellyn", "Schiehallion", "Blencathra", "Ben Lomond"),
            ),
            (
                "{name} finally bought proper {value} boots and is breaking them in on the "
                "towpath.",
                ("Scarpa", "Meindl", "Hanwag", "Zamberlan", "Lowa"),
            ),
        ),
        (
            "Would {name} enjoy a hill walking holiday?",
            "Is a mountain holiday a good present idea for {name}?",
        ),
    ),
    "dog owner": Trait(
        (
            (
                "{name} can't stay for a second drink, has to get back and let {value} out.",
                ("Barnaby the spaniel", "Pilchard", "Wolfie", "Peaches", "Mungo"),
            ),
            (
                "{name} turned up with muddy knees again; the lead got tangled round a "
                "lamppost on the {value} loop.",
                ("Fernhill", "Ashcombe", "Windmill Hill", "Ridgeway", "Cowley Marsh"),
            ),
        ),
        (
            "Is {name} likely to own an animal?",
            "Does {name} have a pet at home?",
        ),
        unless=("pets",),
    ),
    "vegetarian": Trait(
        (
            (
                "{name} brought a {value} to the potluck, said it's been years since any meat "
                "touched those lips.",
                ("lentil shepherd's pie", "mushroom pie", "halloumi traybake", "bean chilli"),
            ),
            (
                "Went to {value} with {name}; the only thing ordered was the aubergine, as always.",
                ("Greenhouse Kitchen", "The Allotment Café", "Tamarisk", "Root & Vine"),
            ),
        ),
        (
            "Should I cook a roast beef dinner when {name} comes round?",
            "Would a steakhouse voucher make a good gift for {name}?",
        ),
    ),
    "afraid of flying": Trait(
        (
            (
                "{name} took the sleeper train all the way to {value} rather than get on a plane.",
                ("Vienna", "Budapest", "Zagreb", "Bucharest", "Bratislava"),
            ),
            (
                "{name} gripped the armrest for the whole {value} hop and swore never again.",
                ("Belfast", "Jersey", "Aberdeen", "Guernsey", "Isle of Man"),
            ),
        ),
        (
            "Would a long-haul holiday to Australia appeal to {name}?",
            "Is booking {name} an aeroplane journey overseas a good idea?",
        ),
        unless=("trips",),
    ),
    "musician": Trait(
        (
            (
                "{name} practised the {value} so late that the neighbours banged on the wall.",
                ("bodhrán", "lap steel guitar", "euphonium", "hammered dulcimer", "sitar"),
            ),
            (
                "{name}'s band {value} has a gig above the pub next Friday.",
                ("The Velvet Moths", "Paper Lanterns", "Static Orchard", "Brass Tacks"),
            ),
        ),
        (
            "Would {name} appreciate concert tickets as a birthday surprise?",
            "Is {name} into playing music?",
        ),
        unless=("classes",),
    ),
    "reader": Trait(
        (
            (
                "{name} missed the stop again, nose deep in {value}.",
                ("Gormenghast", "Lonesome Dove", "The Blind Assassin", "Shōgun", "Rebecca"),
            ),
            (
                "{name} now runs the {value} circle at the library and picks the titles each "
                "month.",
                ("Thursday Quill", "Dog-Eared", "Second Chapter", "Marginalia"),
            ),
        ),
        (
            "Would a bookshop voucher be a good gift for {name}?",
            "Is {name} a big fan of novels?",
        ),
    ),
    "gardener": Trait(
        (
            (
                "{name} dropped off a bag of {value} tomatoes grown on the allotment.",
                ("Gardener's Delight", "Black Krim", "Sungold", "Tigerella", "Costoluto"),
            ),
            (
                "{name} spent the whole bank holiday repotting the {value} cuttings.",
                ("fuchsia", "pelargonium", "salvia", "penstemon", "hydrangea"),
            ),
        ),
        (
            "Would seeds and a trowel be a welcome present for {name}?",
            "Does {name} have green fingers?",
        ),
    ),
    "shellfish allergy": Trait(
        (
            (
                "{name} had a reaction to the {value} at the wedding and needed the EpiPen.",
                ("langoustines", "crab linguine", "moules marinière", "scampi"),
            ),
            (
                "{name} always quizzes the waiter at {value} about prawns in the stock.",
                ("The Salt Loft", "Harbour Lights", "Marisqueira Lobo", "The Oyster Shed"),
            ),
        ),
        (
            "Is a seafood restaurant a safe choice for dinner with {name}?",
            "Could {name} eat a paella with the works?",
        ),
    ),
    "early riser": Trait(
        (
            (
                "{name} is at the {value} pool every day by half past five, before anyone else.",
                ("Tooting Bec", "Parliament Hill", "Jesus Green", "Brockwell"),
            ),
            (
                "{name} texted me a sunrise photo from {value} at twenty to six, already on the "
                "way back down.",
                ("Primrose Hill", "Arthur's Seat", "Clifton Down", "Calton Hill"),
            ),
        ),
        (
            "Would {name} mind a dawn start for the road trip?",
            "Is {name} an early bird?",
        ),
    ),
    "speaks spanish": Trait(
        (
            (
                "{name} grew up in {value} and still phones the grandparents every Sunday.",
                ("Valladolid", "Zaragoza", "Salamanca", "Albacete", "Burgos"),
            ),
            (
                "{name} translated the whole {value} menu for us without blinking.",
                ("tapas bar Los Arcos", "Taberna Ibérica", "Casa Paco", "Bodega Sol"),
            ),
        ),
        (
            "Could {name} help me with a letter written in Castilian?",
            "Is {name} fluent in the language of Madrid?",
        ),
    ),
    "cold water swimmer": Trait(
        (
            (
                "{name} was in the sea at {value} on New Year's Day and called it bracing.",
                ("Tynemouth", "Saltburn", "Dunraven Bay", "Portobello beach"),
            ),
            (
                "{name} bought a {value} changing robe and wears it everywhere now.",
                ("Dryrobe", "Red Original", "Finisterre", "Zone3"),
            ),
        ),
        (
            "Would {name} like a wild swimming weekend in winter?",
            "Does {name} enjoy icy outdoor dips?",
        ),
    ),
    "runner": Trait(
        (
            (
                "{name} did the {value} parkrun again and shaved off another twenty seconds.",
                ("Bushy Park", "Pollok", "Heaton", "Cannon Hill"),
            ),
            (
                "{name}'s new {value} trainers already have two hundred miles on them.",
                ("Hoka Clifton", "New Balance 1080", "Brooks Ghost", "Asics Novablast"),
            ),
        ),
        (
            "Would {name} sign up for a half marathon with me?",
            "Is {name} the jogging type?",
        ),
    ),
}

PEOPLE = 9
ASPECTS_EACH = 4
TRAITS_EACH = 4


def add_lives(world: World) -> None:
    """``PEOPLE`` friends, each with ``ASPECTS_EACH`` threads of a life (a multi-session
    question each) and ``TRAITS_EACH`` traits (an inferential question each)."""
    rng = world.rng
    values = {key: rng.sample(aspect.values, len(aspect.values)) for key, aspect in ASPECTS.items()}
    clue_values = {
        (key, i): rng.sample(clue[1], len(clue[1]))
        for key, trait in TRAITS.items()
        for i, clue in enumerate(trait.clues)
    }
    trait_order = list(TRAITS)
    rng.shuffle(trait_order)
    trait_uses: Counter[str] = Counter()
    aspect_uses: Counter[str] = Counter()
    relations = rng.sample(RELATIONS, len(RELATIONS))
    for _ in range(PEOPLE):
        name = world.take("name")
        relation = relations.pop()
        # The least told threads first, so that each is asked about about as often.
        order = rng.sample(sorted(ASPECTS), len(ASPECTS))
        aspects = sorted(sorted(order, key=lambda k: aspect_uses[k])[:ASPECTS_EACH])
        aspect_uses.update(aspects)
        used: list[Session] = []
        for key in aspects:
            aspect = ASPECTS[key]
            parts = [values[key].pop() for _ in range(rng.choice(aspect.counts))]
            says = rng.sample(aspect.says, len(parts))
            pointers = []
            for value, said in zip(parts, says, strict=True):
                handle = name if world.chance(0.5) else relation
                unit = world.add(
                    _spread_session(world, used),
                    ("user", world.padded(capitalised(said.format(name=handle, value=value)))),
                    ("assistant", world.choice(ACKS)),
                )
                pointers.append(Pointer(unit, 0, value))
            question = world.choice(aspect.asks).format(name=name)
            world.ask(AGGREGATION, question, PART_SEPARATOR.join(parts), *pointers)
        # The least used traits first (in a shuffled order), so that every trait is used
        # by about as many people.
        allowed = [k for k in trait_order if not set(TRAITS[k].unless) & set(aspects)]
        for key in sorted(allowed, key=lambda k: trait_uses[k])[:TRAITS_EACH]:
            trait_uses[key] += 1
            trait = TRAITS[key]
            pointers = []
            parts = []
            for i, (said, _) in enumerate(trait.clues):
                value = clue_values[(key, i)].pop()
                handle = name if world.chance(0.5) else relation
                unit = world.add(
                    _spread_session(world, used),
                    ("user", world.padded(capitalised(said.format(name=handle, value=value)))),
                    ("assistant", world.choice(ACKS)),
                )
                pointers.append(Pointer(unit, 0, value))
                parts.append(value)
            question = world.choice(trait.asks).format(name=name)
            world.ask(INFERENTIAL, question, PART_SEPARATOR.join(parts), *pointers)
        # Who is who, said once, on the first day the person comes up.
        introduction = world.choice(INTRODUCTIONS).format(name=name, relation=relation)
        world.add(
            min(used, key=lambda s: s.day),
            ("user", world.padded(capitalised(introduction))),
            ("assistant", world.choice(ACKS)),
        )


# How the user refers to each person when not by name: once told who is who, people
# mostly say "my old flatmate", not the name. None is one of ``people.ROLES``.
RELATIONS = [
    "my oldest friend",
    "my neighbour downstairs",
    "my old flatmate",
    "my choir friend",
    "my ex-colleague",
    "my quiz teammate",
    "my wife's cousin",
    "my school friend",
    "my partner's sister",
]
INTRODUCTIONS = [
    "{relation}, {name}, came round for tea and stayed till midnight.",
    "Had a long walk with {name}, {relation}, and caught up on everything.",
    "When I mention {relation}, that's {name}; we go back years.",
]

ACKS = [
    "Ha, sounds about right for them.",
    "Good to hear how they're getting on.",
    "That's a lovely detail.",
    "They do seem to keep busy!",
    "Noted. Tell them I said hello.",
    "Love that.",
    "Sounds like quite the life.",
]


def _spread_session(world: World, used: list[Session]) -> Session:
    """A session at least ``MIN_DAYS_APART`` days from every one this person's story was
    already told in, preferring lightly loaded ones; the nearest allowed if none is."""
    for gap in (MIN_DAYS_APART, MIN_DAYS_APART // 2, 1, 0):
        candidates = [
            s
            for s in world.sessions
            if s not in used and all(_days(s.day, u.day) >= gap for u in used)
        ]
        if candidates:
            break
    else:  # more turns than sessions: share one
        candidates = list(world.sessions)
    sample = world.rng.sample(candidates, min(3, len(candidates)))
    session = min(sample, key=lambda s: s.load)
    used.append(session)
    return session


def _days(a: date, b: date) -> int:
    return abs((a - b).days)
