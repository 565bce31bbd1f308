"""Single-fact questions: one turn holds the answer."""

from __future__ import annotations

from .facts_self import ASSISTANT_FACTS, SELF_FACTS, Template
from .people import ATTRIBUTES, possessive
from .world import Pointer, World, capitalised

CATEGORY = "single-fact"
LEAD_INS = [
    "Nothing much to report today, ask me something.",
    "Bored. Quiz me about my life.",
    "Quiet evening here.",
    "I've got five minutes before my next call.",
]


def add_self_facts(world: World) -> None:
    for template in SELF_FACTS:
        _self_fact(world, template)


def _self_fact(world: World, template: Template) -> None:
    values = {
        slot: world.choice(kind) if isinstance(kind, tuple) else world.take(kind)
        for slot, kind in template.slots.items()
    }
    session = world.session()
    if template.elicit and world.chance(0.4):
        # The short reply is the evidence; only its question says what it is about.
        prompt, reply = world.choice(template.elicit)
        unit = world.add(
            session,
            ("user", world.choice(LEAD_INS)),
            ("assistant", prompt),
            ("user", reply.format(**values)),
            ("assistant", world.choice(template.acks)),
        )
        evidence = 2
    else:
        said = world.padded(world.choice(template.says).format(**values))
        unit = world.add(session, ("user", said), ("assistant", world.choice(template.acks)))
        evidence = 0
    for answer, wordings in template.asks:
        value = answer.format(**values)
        world.ask(CATEGORY, world.choice(wordings), value, Pointer(unit, evidence, value))


def add_assistant_facts(world: World) -> None:
    for request, reply, kind, wordings in ASSISTANT_FACTS:
        value = world.choice(kind) if isinstance(kind, tuple) else world.take(kind)
        unit = world.add(
            world.session(), ("user", request), ("assistant", reply.format(value=value))
        )
        world.ask(CATEGORY, world.choice(wordings), value, Pointer(unit, 1, value))


def add_people_facts(world: World, *, people: int, facts_each: int) -> None:
    """``people`` friends known by name, each with ``facts_each`` facts told over time."""
    for _ in range(people):
        name = world.take("name")
        for key in world.rng.sample(available_attributes(world), facts_each):
            attribute = ATTRIBUTES[key]
            value = world.take(attribute.pool)
            said = attribute_statement(world, key, who=name, value=value)
            unit = world.add(
                world.session(),
                ("user", world.padded(said)),
                ("assistant", world.choice(attribute.acks)),
            )
            question = attribute_question(world, key, who=name)
            world.ask(CATEGORY, question, value, Pointer(unit, 0, value))


def available_attributes(world: World) -> list[str]:
    """The attributes whose value pools are not used up, in a stable order."""
    return [key for key in sorted(ATTRIBUTES) if world.pools.left(ATTRIBUTES[key].pool)]


def attribute_statement(world: World, key: str, *, who: str, value: str) -> str:
    template = world.choice(ATTRIBUTES[key].says)
    return capitalised(template.format(who=who, whos=possessive(who), value=value))


def attribute_question(world: World, key: str, *, who: str) -> str:
    template = world.choice(ATTRIBUTES[key].asks)
    return capitalised(template.format(who=who, whos=possessive(who)))
