"""Files for the retrieval-quality corpus (issue 19): notes, manuals, plans and logs of
3,000–12,000 characters, most holding a few facts that questions ask about in other words.

    .venv/bin/python -m bench.quality.documents     # rewrites bench/quality/files.json

Deterministic from ``SEED``. Each subject (a city, an appliance, a project …) has two
files: one with its facts and one more of the same kind without them. Each document is paragraphs of its topic's everyday prose
(so the other passages of the same file, and the other file on the same topic, are close
in meaning and words), with its facts placed at chosen positions: half of them late in a
old 2,048-character chunk ( of which the model read only the first ~1,000
characters), the others at the start of a paragraph, early in a passage. A question's
evidence is the fact's character span in its document. Kept apart from the conversations
(``corpus.json``), whose figures stay comparable with earlier runs.
"""

# ruff: noqa: E501  (the documents' sentences read better whole than split in pieces)

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass
from pathlib import Path

SEED = 20261124
FILES_PATH = Path(__file__).resolve().parent / "files.json"
OLD_STEP = 2048 - 256
LATE = (1_150, 1_750)
"""Where in an old chunk (2,048 characters, one every ~1,792 since they overlap by 256) a
"late" fact ends: past the ~1,000 characters MiniLM reads of it."""


@dataclass(frozen=True)
class FileDocument:
    name: str
    text: str


@dataclass(frozen=True)
class FileQuestion:
    id: str
    question: str
    document: int
    start: int
    end: int
    placement: str  # "late" (past the model's window in an old chunk) or "early"


@dataclass(frozen=True)
class FileCorpus:
    documents: list[FileDocument]
    questions: list[FileQuestion]


@dataclass(frozen=True)
class Topic:
    kind: str
    names: tuple[str, ...]  # one per document of this topic, the subject of its facts
    filler: tuple[str, ...]  # sentences; {x} is the document's subject
    facts: tuple[tuple[str, str, tuple[str, ...]], ...]  # (fact, question, slot values)


TOPICS = (
    Topic(
        "travel plan",
        ("Lisbon", "Kyoto", "Edinburgh", "Vienna", "Marrakesh"),
        (
            "The first morning in {x} is kept free, since nobody sleeps well after a flight.",
            "We want to walk as much as possible and use taxis only when it rains hard.",
            "Breakfast is included at the guesthouse, so lunch can be a late one.",
            "The old town in {x} is hilly, which means comfortable shoes and short stages.",
            "A day trip out of {x} is possible if the weather is clear on the Thursday.",
            "Souvenirs should be small this time: the luggage allowance is only one cabin bag.",
            "The tourist card covers most museums and the local buses for three days.",
            "Dinner reservations matter at weekends, when the popular places fill up early.",
            "Pack a light rain jacket, a power adapter and the printed booking confirmations.",
            "The evenings are for wandering, finding a terrace and watching the light change.",
            "Mum asked for photos of the cathedral, and Dad wants to see the harbour.",
            "If the trip overruns the budget we will skip the second boat tour.",
        ),
        (
            (
                "The door code for the flat in {x} is {v}, to be typed before pressing the bell.",
                "What number opens the apartment entrance in {x}?",
                ("4471", "9062", "1385", "7720", "5318"),
            ),
            (
                "Our train out of {x} leaves at {v} from platform three, so we check out early.",
                "When does the departing rail connection from {x} go?",
                ("07:42", "06:15", "08:27", "09:03", "10:50"),
            ),
            (
                "For the last night in {x} we booked a table at {v}, the seafood place Ana recommended.",
                "Which restaurant is reserved for the final evening in {x}?",
                ("Casa Marinha", "Umi no Ie", "The Ship Inn", "Zum Schwarzen Kameel", "Dar Yacout"),
            ),
            (
                "Beware: the modern art museum in {x} is shut every {v}, so plan galleries around it.",
                "On which weekday is the contemporary gallery in {x} closed?",
                ("Monday", "Tuesday", "Wednesday", "Thursday", "Sunday"),
            ),
        ),
    ),
    Topic(
        "appliance manual",
        (
            "Aqualine W7 washing machine",
            "Brewmaster 300 coffee maker",
            "Nordic Air purifier",
            "Frostline fridge freezer",
            "Silvercrest dishwasher",
        ),
        (
            "Read these instructions before first use and keep them near the {x}.",
            "Always unplug the {x} before cleaning it or opening the service panel.",
            "The display shows the remaining time and any warning the {x} needs to report.",
            "Do not place the appliance near a heat source or in direct sunlight.",
            "Use only the accessories supplied with the {x} or approved by the manufacturer.",
            "Wipe the outer casing with a damp cloth; never use solvents or abrasive pads.",
            "Children should not play with the appliance or operate it without supervision.",
            "A short beep confirms each button press, and a long beep signals the end of a cycle.",
            "Energy saving mode switches the screen off after ten minutes without any input.",
            "Check the power cable regularly for damage, and have it replaced by a technician.",
            "Keep the ventilation openings clear so that the motor does not overheat.",
            "The serial number is printed on the label at the back of the {x}.",
        ),
        (
            (
                "To restore the factory settings of the {x}, hold the start and power buttons together for {v} seconds.",
                "How long must both buttons be pressed to reset the {x} to defaults?",
                ("12", "8", "15", "5", "20"),
            ),
            (
                "The filter of the {x} has to be replaced every {v}, or sooner in hard-water areas.",
                "How often does the {x} need a new filter?",
                ("three months", "six weeks", "nine months", "two years", "four months"),
            ),
            (
                "Error code {v} on the {x} means the water inlet is blocked or the tap is closed.",
                "What does it mean when the {x} shows that fault code?",
                ("E21", "F07", "A3", "H12", "C9"),
            ),
            (
                "The warranty on the motor of the {x} lasts {v} from the date on the receipt.",
                "For how long is the {x}'s motor covered by guarantee?",
                ("ten years", "five years", "seven years", "three years", "twelve years"),
            ),
        ),
    ),
    Topic(
        "meeting notes",
        (
            "Atlas migration",
            "Harbour redesign",
            "Orion billing",
            "Juniper mobile app",
            "Kestrel data platform",
        ),
        (
            "Everyone joined on time and the notes from last week were approved without changes.",
            "The {x} team walked through the open tickets and closed the stale ones.",
            "Several people asked for clearer priorities, which the lead promised by Friday.",
            "Testing is still the bottleneck, mostly because the staging data is out of date.",
            "There was a long discussion about naming that ended without a conclusion.",
            "Action items are tracked in the shared board, each with one owner.",
            "The customer demo went well, although the export screen was slow.",
            "We agreed to keep meetings to thirty minutes and move details to the chat.",
            "The {x} roadmap slide needs updating before it goes to the steering group.",
            "Documentation lags behind the code, and new joiners keep tripping over it.",
            "Holidays in August will reduce capacity by about a third.",
            "Next week's meeting moves to Thursday because of the public holiday.",
        ),
        (
            (
                "Decision: for the {x} we go with {v} as the hosting vendor, mainly for their support hours.",
                "Which supplier was chosen to host the {x}?",
                (
                    "Northwind Cloud",
                    "Bluepeak Hosting",
                    "Cumulus Systems",
                    "Stratus Digital",
                    "Ironbridge Data",
                ),
            ),
            (
                "The hard deadline for the {x} go-live is {v}, agreed with finance.",
                "By what date must the {x} be launched?",
                ("14 March", "2 June", "30 September", "1 December", "17 July"),
            ),
            (
                "{v} owns the {x} budget from now on and signs off any spending above five thousand.",
                "Who approves the expenses of the {x}?",
                ("Priya Raman", "Tomasz Nowak", "Grace Okafor", "Luis Ortega", "Hannah Berg"),
            ),
            (
                "The biggest risk for the {x} is {v}, flagged red on the register.",
                "What is the main danger identified for the {x}?",
                (
                    "the legacy database export",
                    "losing the only designer",
                    "the payment provider's API change",
                    "app store review delays",
                    "the unreliable nightly import",
                ),
            ),
        ),
    ),
    Topic(
        "recipe notes",
        ("lamb tagine", "sourdough loaf", "lemon tart", "mushroom risotto", "carrot cake"),
        (
            "This version of the {x} is adapted from Grandma's card, with less sugar and salt.",
            "Weigh everything first; it makes the rest of the cooking calm and quick.",
            "Good ingredients matter more than technique, especially the butter and the flour.",
            "The {x} keeps for two days in the fridge, covered, and tastes better the next day.",
            "Serve with a green salad and something to drink that is not too sweet.",
            "Clean as you go, otherwise the kitchen looks like a battlefield by the end.",
            "The quantities feed four people, or two with leftovers for lunch.",
            "A heavy pan spreads the heat evenly and stops the bottom from catching.",
            "Taste and adjust the seasoning at the end, never only at the start.",
            "The {x} was a hit at Sam's birthday, even with the children.",
            "Timings depend on the oven, so check early the first time you make it.",
            "Leftover herbs can be frozen in ice cube trays with a little oil.",
        ),
        (
            (
                "Bake the {x} at {v} degrees with the fan off, on the middle shelf.",
                "What oven temperature does the {x} need?",
                ("165", "230", "180", "200", "175"),
            ),
            (
                "The secret to the {x} is a spoonful of {v}, added right at the end.",
                "Which hidden ingredient makes the {x} special?",
                (
                    "preserved lemon",
                    "rye malt",
                    "orange blossom water",
                    "white miso",
                    "ground cardamom",
                ),
            ),
            (
                "Let the {x} rest for {v} before cutting, or it falls apart.",
                "How long should the {x} stand before it is sliced?",
                ("twenty minutes", "two hours", "forty minutes", "five minutes", "one night"),
            ),
            (
                "If there is no {v} in the house, plain yoghurt works in the {x} just as well.",
                "What can be swapped for yoghurt in the {x}?",
                ("crème fraîche", "buttermilk", "mascarpone", "sour cream", "quark"),
            ),
        ),
    ),
    Topic(
        "house notes",
        (
            "cottage in Wales",
            "flat on Elm Street",
            "lake house",
            "farmhouse in Provence",
            "studio by the station",
        ),
        (
            "These notes are for anyone staying at the {x} while we are away.",
            "Please water the plants on the windowsill twice a week, not more.",
            "The heating comes on automatically in the morning and the evening.",
            "Towels and bedding are in the cupboard on the landing, top shelf.",
            "The neighbours are friendly and have a spare set of keys for emergencies.",
            "Recycling is sorted into paper, glass and plastics in the boxes by the back door.",
            "The {x} has a fuse box in the hall cupboard, labelled room by room.",
            "If the internet drops, switch the router off for a minute and back on.",
            "Please close all windows before going out, the wind slams them shut.",
            "The wood burner needs dry logs only; the damp ones stay in the shed.",
            "Parking outside the {x} is free, but not in front of the neighbour's garage.",
            "Leave the keys in the lockbox when you go and text us that all is well.",
        ),
        (
            (
                "The water stopcock for the {x} is {v}.",
                "Where is the main water shut-off valve of the {x}?",
                (
                    "under the kitchen sink behind the bleach",
                    "in the cellar next to the boiler",
                    "inside the garden shed on the left wall",
                    "beneath the stairs behind the hoover",
                    "in the bathroom under a loose floor tile",
                ),
            ),
            (
                "Bins at the {x} are collected every {v} morning, so put them out the night before.",
                "On which day is the rubbish picked up at the {x}?",
                ("Tuesday", "Friday", "Wednesday", "Monday", "Thursday"),
            ),
            (
                "The boiler at the {x} is serviced by {v}; call them if it shows a red light.",
                "Which company maintains the heating boiler at the {x}?",
                (
                    "Dragon Heating",
                    "Elm Plumbing and Gas",
                    "Lakeside Services",
                    "Chauffage Martin",
                    "Metro Boiler Care",
                ),
            ),
            (
                "The home insurance for the {x} renews in {v}, and the papers are in the blue folder.",
                "In which month is the {x}'s insurance policy renewed?",
                ("October", "April", "January", "July", "March"),
            ),
        ),
    ),
    Topic(
        "training log",
        (
            "half marathon",
            "cycling sportive",
            "open water swim",
            "mountain trail race",
            "rowing regatta",
        ),
        (
            "Training for the {x} is going steadily, with one rest day a week.",
            "Sleep makes the biggest difference; after a bad night every session drags.",
            "The long session is on Sundays, slow enough to hold a conversation.",
            "Hydration and a banana beforehand stop the wobbly feeling halfway through.",
            "Stretching after each session takes ten minutes and keeps the calves happy.",
            "The training plan for the {x} builds up by ten percent a week at most.",
            "Rainy days are for the gym: core work, squats and the rowing machine.",
            "A friend joins on Wednesdays, which makes the interval session bearable.",
            "Heart rate stays lower on easy days than it did a month ago.",
            "Recovery weeks feel lazy, but the plan insists on one every fourth week.",
            "New kit is tried in training first, never on the day of the {x}.",
            "The route along the river is flat and quiet before eight in the morning.",
        ),
        (
            (
                "The physio said the knee pain before the {x} comes from {v}, not from the joint itself.",
                "What did the physiotherapist blame the knee trouble on while training for the {x}?",
                (
                    "a tight iliotibial band",
                    "weak glutes",
                    "a worn cleat position",
                    "overstriding downhill",
                    "a stiff lower back",
                ),
            ),
            (
                "My target for the {x} is {v}, which would beat last year's time.",
                "What finishing time am I aiming for in the {x}?",
                (
                    "1 hour 52 minutes",
                    "5 hours 30 minutes",
                    "48 minutes",
                    "3 hours 15 minutes",
                    "7 minutes 40 seconds",
                ),
            ),
            (
                "For the {x} I settled on the {v}, after trying three others.",
                "Which gear did I choose for the {x} in the end?",
                (
                    "Asics Novablast 4 shoes",
                    "Giant Defy saddle",
                    "Zone3 Vanquish wetsuit",
                    "Salomon hydration vest",
                    "Concept2 seat pad",
                ),
            ),
            (
                "The {x} starts at {v}, so breakfast has to be eaten by five.",
                "What time is the start of the {x}?",
                ("7:30", "6:45", "8:10", "9:00", "5:50"),
            ),
        ),
    ),
)


def _filler_paragraph(rng: random.Random, topic: Topic, subject: str) -> list[str]:
    count = rng.randint(3, 9)
    return [sentence.format(x=subject) for sentence in rng.sample(topic.filler, count)]


def _document(
    rng: random.Random, topic: Topic, slot: int, length: int, start_id: int, index: int
) -> tuple[FileDocument, list[FileQuestion]]:
    subject = topic.names[slot]
    facts = [
        (fact.format(x=subject, v=values[slot]), question.format(x=subject))
        for fact, question, values in topic.facts
    ]
    paragraphs: list[list[str]] = [[f"{subject.capitalize()}: {topic.kind}"]]
    while sum(len(" ".join(p)) + 2 for p in paragraphs) < length:
        paragraphs.append(_filler_paragraph(rng, topic, subject))
    # Alternate placements; each fact goes into a paragraph not used by another.
    placements = ["late" if n % 2 == 0 else "early" for n in range(len(facts))]
    rng.shuffle(placements)
    used: set[int] = set()
    for (fact, _), placement in zip(facts, placements, strict=True):
        offsets, position = [], 0
        for paragraph in paragraphs:
            offsets.append(position)
            position += len(" ".join(paragraph)) + 2
        choices = []
        for n in range(1, len(paragraphs)):
            if n in used:
                continue
            end = offsets[n] + len(" ".join(paragraphs[n])) + 1 + len(fact)
            if placement == "early" or LATE[0] <= end % OLD_STEP <= LATE[1]:
                choices.append(n)
        n = rng.choice(choices or [n for n in range(1, len(paragraphs)) if n not in used])
        used.add(n)
        if placement == "late":
            paragraphs[n].append(fact)
        else:
            paragraphs[n].insert(0, fact)
    text = "\n\n".join(" ".join(paragraph) for paragraph in paragraphs)
    name = f"{subject.lower().replace(' ', '-')}-{topic.kind.replace(' ', '-')}.md"
    questions = []
    for number, ((fact, question), placement) in enumerate(
        zip(facts, placements, strict=True), start=start_id
    ):
        start = text.index(fact)
        questions.append(
            FileQuestion(f"f{number:03d}", question, index, start, start + len(fact), placement)
        )
    return FileDocument(name, text), questions


def generate(seed: int = SEED) -> FileCorpus:
    rng = random.Random(seed)
    documents: list[FileDocument] = []
    questions: list[FileQuestion] = []
    for topic in TOPICS:
        for slot in range(len(topic.names)):
            length = rng.randint(3_000, 11_500)
            document, asked = _document(
                rng, topic, slot, length, len(questions) + 1, len(documents)
            )
            documents.append(document)
            questions.extend(asked)
            # A second file on the same subject without the facts: finding the subject's
            # files is then not enough, the passage must be told from its neighbours'.
            documents.append(_companion(rng, topic, slot, rng.randint(3_000, 11_500)))
    return FileCorpus(documents, questions)


def _companion(rng: random.Random, topic: Topic, slot: int, length: int) -> FileDocument:
    subject = topic.names[slot]
    paragraphs = [f"{subject.capitalize()}: more {topic.kind} notes"]
    while sum(len(p) + 2 for p in paragraphs) < length:
        paragraphs.append(" ".join(_filler_paragraph(rng, topic, subject)))
    name = f"{subject.lower().replace(' ', '-')}-{topic.kind.replace(' ', '-')}-more.md"
    return FileDocument(name, "\n\n".join(paragraphs))


def files_load(path: Path = FILES_PATH) -> FileCorpus:
    data = json.loads(path.read_text(encoding="utf-8"))
    return FileCorpus(
        [FileDocument(**d) for d in data["documents"]],
        [FileQuestion(**q) for q in data["questions"]],
    )


def files_dump(corpus: FileCorpus, path: Path = FILES_PATH) -> None:
    data = {
        "documents": [asdict(d) for d in corpus.documents],
        "questions": [asdict(q) for q in corpus.questions],
    }
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    corpus = generate()
    files_dump(corpus)
    sizes = [len(d.text) for d in corpus.documents]
    late = sum(q.placement == "late" for q in corpus.questions)
    print(
        f"{len(corpus.documents)} files of {min(sizes):,}–{max(sizes):,} characters, "
        f"{len(corpus.questions)} questions ({late} late in an old chunk) → {FILES_PATH}"
    )
