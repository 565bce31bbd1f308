"""Multi-hop questions: the answer needs two turns, half the time in two different
conversations. Recall counts both: finding one of the two is half the credit."""

from __future__ import annotations

from .people import ATTRIBUTES, INTRODUCTION_ACKS, INTRODUCTIONS
from .singles import attribute_question, attribute_statement, available_attributes
from .world import Pointer, Session, World, capitalised

CATEGORY = "multi-hop"

LENT = [
    (
        "Lent my {object} to {name} for the weekend. We'll see if it comes back.",
        "Where is the person who borrowed my {object} travelling to?",
    ),
    (
        "{name} borrowed the {object} again; I should just give it to them.",
        "Where's the friend who keeps borrowing my {object} going on holiday?",
    ),
]
TRAVEL = [
    "{name} is off to {place} for a month on Friday. Jealous!",
    "Drove {name} to the airport; they're spending the summer in {place}.",
]
OCCASIONS = [
    "Mum's sixtieth",
    "Dad's retirement dinner",
    "the team leaving do",
    "my birthday dinner",
    "the christening lunch",
    "our engagement party",
]
BOOKED = [
    "Booked {restaurant} for {occasion}. Table for eight at seven.",
    "{occasion} is sorted: we're going to {restaurant}.",
]
KNOWN_FOR = [
    "Everyone says {restaurant} does the best {dish} in town.",
    "Had lunch at {restaurant}, and their {dish} is unreal.",
]
LEADS = [
    "{name} is leading project {codename} now, poor thing.",
    "Big reshuffle at work: {name} takes over {codename}.",
]
STACK = [
    "{codename} is being rewritten in {tech}, which should be interesting.",
    "The {codename} team settled on {tech} for the new backend.",
]
MOVED = [
    "{name} has moved to {place}! Finally out of the city.",
    "{name} told me they've bought a flat in {place}.",
]
ROLE_LIVES = [
    "My {role} lives in {place}; I visit a couple of times a year.",
    "Going to see my {role} in {place} next month.",
]


def _two_sessions(world: World) -> tuple[Session, Session]:
    first = world.session()
    if world.chance(0.5):
        return first, world.session(not_conversation=first.conversation)
    return first, world.session()


def _ack(world: World) -> tuple[str, str]:
    return ("assistant", world.choice(INTRODUCTION_ACKS))


def add_alias_hops(world: World, roles: list[str]) -> None:
    """Who is who in one turn, a fact in another; the question uses the other handle."""
    for role in roles:
        name = world.take("name")
        key = world.choice(available_attributes(world))
        value = world.take(ATTRIBUTES[key].pool)
        intro_session, fact_session = _two_sessions(world)
        intro = world.add(
            intro_session,
            ("user", world.padded(world.choice(INTRODUCTIONS).format(name=name, role=role))),
            _ack(world),
        )
        by_name = world.chance(0.5)
        fact_who, asked_who = (name, f"my {role}") if by_name else (f"my {role}", name)
        said = attribute_statement(world, key, who=fact_who, value=value)
        fact = world.add(
            fact_session,
            ("user", world.padded(said)),
            ("assistant", world.choice(ATTRIBUTES[key].acks)),
        )
        question = attribute_question(world, key, who=asked_who)
        world.ask(CATEGORY, question, value, Pointer(intro, 0, name), Pointer(fact, 0, value))


def add_lent_hops(world: World, count: int) -> None:
    for _ in range(count):
        name, thing, place = world.take("name"), world.take("lent_object"), world.take("place")
        lent_text, question = world.choice(LENT)
        first, second = _two_sessions(world)
        lent = world.add(
            first, ("user", world.padded(lent_text.format(object=thing, name=name))), _ack(world)
        )
        travel = world.add(
            second,
            ("user", world.padded(world.choice(TRAVEL).format(name=name, place=place))),
            _ack(world),
        )
        world.ask(
            CATEGORY,
            question.format(object=thing),
            place,
            Pointer(lent, 0, name),
            Pointer(travel, 0, place),
        )


def add_restaurant_hops(world: World, count: int) -> None:
    for occasion in world.rng.sample(OCCASIONS, count):
        restaurant, dish = world.take("restaurant"), world.take("dish")
        first, second = _two_sessions(world)
        booked = world.add(
            first,
            (
                "user",
                capitalised(world.choice(BOOKED).format(restaurant=restaurant, occasion=occasion)),
            ),
            _ack(world),
        )
        known = world.add(
            second,
            (
                "user",
                world.padded(world.choice(KNOWN_FOR).format(restaurant=restaurant, dish=dish)),
            ),
            _ack(world),
        )
        world.ask(
            CATEGORY,
            f"What dish is the restaurant we booked for {occasion} famous for?",
            dish,
            Pointer(booked, 0, restaurant),
            Pointer(known, 0, dish),
        )


def add_project_hops(world: World, count: int) -> None:
    for _ in range(count):
        name, codename, tech = world.take("name"), world.take("codename"), world.take("tech")
        first, second = _two_sessions(world)
        leads = world.add(
            first,
            ("user", world.padded(world.choice(LEADS).format(name=name, codename=codename))),
            _ack(world),
        )
        stack = world.add(
            second,
            ("user", world.padded(world.choice(STACK).format(codename=codename, tech=tech))),
            _ack(world),
        )
        world.ask(
            CATEGORY,
            f"What programming language does the project {name} leads use?",
            tech,
            Pointer(leads, 0, codename),
            Pointer(stack, 0, tech),
        )


def add_same_city_hops(world: World, roles: list[str]) -> None:
    for role in roles:
        name, place = world.take("name"), world.take("place")
        first, second = _two_sessions(world)
        moved = world.add(
            first,
            ("user", world.padded(world.choice(MOVED).format(name=name, place=place))),
            _ack(world),
        )
        lives = world.add(
            second,
            ("user", world.padded(world.choice(ROLE_LIVES).format(role=role, place=place))),
            _ack(world),
        )
        world.ask(
            CATEGORY,
            f"Which of my friends lives in the same town as my {role}?",
            name,
            Pointer(moved, 0, name),
            Pointer(lives, 0, place),
        )
