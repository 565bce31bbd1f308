"""Facts about the people in the user's life, said of a person by name ("Aisha") or by
relation ("my landlord"). Single-fact questions name the person as the statement did;
multi-hop questions use the *other* handle, so that answering needs the turn that says
who is who as well (``hops``).

``{who}`` is the handle, ``{whos}`` its possessive, ``{value}`` the answer. Statements
start with the handle or put it mid-sentence; ``capitalised`` fixes "my" at the start.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Attribute:
    pool: str
    says: list[str]
    asks: list[str]
    acks: list[str]


ATTRIBUTES: dict[str, Attribute] = {
    "city": Attribute(
        "place",
        [
            "{who} finally moved to {value}: new job, new flat, the works.",
            "Video call with {who}, who's been living in {value} since the spring. It was "
            "already dark there.",
            "Helped {who} pack the last boxes before the move to {value}.",
        ],
        [
            "Where does {who} live now?",
            "Which city is {who} based in these days?",
            "Where did {who} relocate to?",
        ],
        [
            "A big move! Sounds like a fresh start.",
            "Moving is exhausting; hope they settle in quickly.",
            "Long-distance friendships take effort but they're worth it.",
        ],
    ),
    "job": Attribute(
        "job",
        [
            "{who} works as a {value} now. Long hours but they love it.",
            "Turns out {who} retrained as a {value} last year. I had no idea.",
            "{whos} new job as a {value} starts next month.",
        ],
        [
            "What does {who} do for a living?",
            "What is {whos} profession?",
            "What job does {who} have?",
        ],
        [
            "What a career! Changing paths takes courage.",
            "That sounds like demanding but rewarding work.",
            "Interesting. Do they enjoy it?",
        ],
    ),
    "allergy": Attribute(
        "allergen",
        [
            "{who} is seriously allergic to {value}, so I'll have to check everything.",
            "Note to self: {who} reacts badly to {value}. Allergy, not a preference.",
            "Scary moment: {who} had a reaction to {value} at the barbecue.",
        ],
        [
            "What is {who} allergic to?",
            "What does {who} have an allergy to?",
            "What should I keep away from {who} for health reasons?",
        ],
        [
            "Good that you know. It's worth keeping an antihistamine around.",
            "Allergies can be frightening. Better safe than sorry.",
            "That must have been scary. Glad everyone's okay.",
        ],
    ),
    "pet": Attribute(
        "pet_kind",
        [
            "{who} got a {value}! Apparently it has its own social media account already.",
            "{whos} {value} escaped again and hid behind the fridge for a day.",
            "Went round to meet {whos} new {value}. Very strange, very cute.",
        ],
        [
            "What pet does {who} have?",
            "What kind of animal does {who} keep?",
            "What creature did {who} adopt?",
        ],
        [
            "Unusual pets have such personalities.",
            "Ha! Hope it's safe and sound now.",
            "Sounds like a character.",
        ],
    ),
    "hobby": Attribute(
        "hobby",
        [
            "{who} has got really into {value}; every single weekend now.",
            "{who} wants me to try {value} with them next month.",
            "{whos} new obsession is {value}. They won't talk about anything else.",
        ],
        [
            "What is {whos} hobby?",
            "What does {who} spend their weekends doing?",
            "What pastime has {who} taken up?",
        ],
        [
            "It's great to have something absorbing outside work.",
            "Could be fun to try together!",
            "Nothing like a new passion.",
        ],
    ),
    "instrument": Attribute(
        "instrument",
        [
            "{who} plays the {value} in a community orchestra. Concert next week.",
            "Heard {who} practise the {value} through the wall. Getting better!",
            "{who} is selling their old {value} to buy a better one.",
        ],
        [
            "What instrument does {who} play?",
            "What does {who} play in the orchestra?",
            "What musical instrument is {who} practising?",
        ],
        [
            "Live music is the best. Will you go?",
            "Practice pays off.",
            "Upgrading is a big step for a musician.",
        ],
    ),
    "language": Attribute(
        "language",
        [
            "{who} is learning {value} before their year abroad.",
            "{who} switched to speaking {value} at home with the kids.",
            "{who} passed the {value} exam with top marks!",
        ],
        [
            "Which language is {who} studying?",
            "What language does {who} speak at home?",
            "What language is {who} learning?",
        ],
        [
            "That's a great skill to have.",
            "Children pick languages up so fast.",
            "Congratulations to them!",
        ],
    ),
    "food": Attribute(
        "dish",
        [
            "{whos} favourite food is {value}; they could eat it every day.",
            "For {whos} birthday I'm cooking {value}, their absolute favourite.",
            "{who} taught me to make proper {value} tonight.",
        ],
        [
            "What is {whos} favourite dish?",
            "What does {who} love to eat most?",
            "What should I cook for {who} as a treat?",
        ],
        [
            "Cooking someone's favourite is a lovely gesture.",
            "What a good evening.",
            "Sounds delicious.",
        ],
    ),
    "car": Attribute(
        "car",
        [
            "{who} just bought a {value} and keeps sending me photos of it.",
            "{who} gave me a lift in their {value}; very smooth.",
            "{who} is selling their {value} if you know anyone.",
        ],
        ["What car does {who} drive?", "What vehicle does {who} own?", "What is {whos} car?"],
        ["A new car is exciting.", "Nice!", "I'll keep an ear out."],
    ),
    "team": Attribute(
        "team",
        [
            "{who} supports {value}, so we don't talk about football.",
            "{who} dragged me to watch {value} play. I don't get the offside rule.",
            "{who} has a season ticket for {value}.",
        ],
        [
            "Which football club does {who} support?",
            "What team does {who} follow?",
            "Who does {who} cheer for in football?",
        ],
        [
            "Football rivalries are sacred.",
            "Offside confuses everyone at first.",
            "That's commitment.",
        ],
    ),
    "drink": Attribute(
        "drink",
        [
            "{whos} usual order is a {value}, every single time.",
            "{who} got me to try a {value}. Not bad, actually.",
            "Bought {who} a {value} to say thanks for the help.",
        ],
        [
            "What does {who} usually order to drink?",
            "What's {whos} go-to drink?",
            "What drink does {who} always get?",
        ],
        ["Creatures of habit!", "Always good to try something new.", "A kind way to say thanks."],
    ),
}

ROLES = [
    "manager",
    "landlord",
    "brother",
    "sister",
    "cousin",
    "next-door neighbour",
    "personal trainer",
    "therapist",
    "best friend",
    "flatmate",
    "godmother",
    "uncle",
    "aunt",
    "mentor",
    "accountant",
    "piano teacher",
    "physiotherapist",
    "hairdresser",
    "babysitter",
    "dog walker",
    "driving instructor",
    "PhD supervisor",
    "business partner",
    "stepdad",
    "grandmother",
    "grandfather",
    "niece",
    "nephew",
    "sister-in-law",
    "brother-in-law",
    "father-in-law",
    "mother-in-law",
    "godson",
    "climbing partner",
    "running buddy",
    "pen pal",
    "tennis coach",
    "family doctor",
    "solicitor",
    "plumber",
    "mechanic",
    "estate agent",
    "wedding planner",
    "pilates instructor",
    "skip-level manager",
    "old university roommate",
    "childhood friend",
    "bandmate",
    "stepsister",
    "great-aunt",
    "goddaughter",
    "carpool buddy",
    "allotment neighbour",
    "chess club rival",
]

INTRODUCTIONS = [
    "Had a long chat with {name} today; they've been my {role} for years now.",
    "Quick context for later: {name} is my {role}.",
    "Lunch with {name}, my {role}, who says hello.",
    "{name} (my {role}, if I haven't mentioned) sent a lovely card.",
    "Bumped into {name} at the station. Good to see my {role} outside the usual setting.",
]
INTRODUCTION_ACKS = [
    "Noted! It's nice when people stick around in your life.",
    "Good to know who's who.",
    "That sounds like a pleasant catch-up.",
    "How kind of them.",
]


def possessive(handle: str) -> str:
    return f"{handle}'" if handle.endswith("s") else f"{handle}'s"
