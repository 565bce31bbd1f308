"""Small talk and everyday requests between the facts: most of a real history is this.

Many exchanges sit near the facts' topics (dogs, travel, running, food, work) without
stating any fact about the user, so that they compete with the evidence in both the
vector and the full-text ranking. They never use a value from ``values.POOLS``.
"""

from __future__ import annotations

from .world import World

Exchange = tuple[str, str, dict[str, tuple[str, ...]]]

EXCHANGES: list[Exchange] = [
    (
        "Can you give me a quick dinner idea with {a} and {b}?",
        "Sure: roast the {b} with olive oil and garlic, then toss it with the {a} and a squeeze "
        "of lemon. Twenty-five minutes, one tray, minimal washing-up.",
        {
            "a": (
                "chickpeas",
                "lentils",
                "leftover chicken",
                "tofu",
                "halloumi",
                "cannellini beans",
            ),
            "b": ("squash", "cauliflower", "red peppers", "sweet potato", "broccoli", "aubergine"),
        },
    ),
    (
        "How long should I boil {a} for?",
        "It depends on size, but {a} usually need {b} minutes in salted water. Test with a knife: "
        "it should slide in without resistance.",
        {
            "a": ("new potatoes", "beetroot", "carrots", "parsnips", "eggs for soft yolks"),
            "b": ("six to eight", "ten to twelve", "fifteen to twenty", "about twenty-five"),
        },
    ),
    (
        "What can I use instead of {a} in a cake?",
        "You can swap {a} for {b}; the texture changes slightly but it works well in most sponges.",
        {
            "a": ("buttermilk", "eggs", "caster sugar", "self-raising flour", "butter"),
            "b": (
                "yoghurt thinned with milk",
                "apple sauce",
                "golden syrup",
                "plain flour plus baking powder",
                "a neutral oil",
            ),
        },
    ),
    (
        "Is it okay to freeze {a}?",
        "Yes, {a} freezes well for up to {b}. Cool it fully first and label the container with "
        "the date.",
        {
            "a": ("cooked rice", "soup", "bread", "grated cheese", "stock", "chilli"),
            "b": ("a month", "three months", "six months"),
        },
    ),
    (
        "Can you help me write a polite email {a}?",
        "Of course. Here's a draft: 'Hi, I hope you're well. I'm writing {a}. Please let me know "
        "if anything else is needed. Thanks so much.' Want it warmer or more formal?",
        {
            "a": (
                "asking for a deadline extension",
                "declining a meeting",
                "chasing an unpaid invoice",
                "requesting a day off",
                "following up on an interview",
                "asking a neighbour to trim their hedge",
            )
        },
    ),
    (
        "Give me three tips for {a}.",
        "1. Decide the one outcome that matters. 2. Block the time in your calendar. 3. Review "
        "what worked afterwards. Small, boring habits beat heroic efforts for {a}.",
        {
            "a": (
                "running better meetings",
                "focusing in an open-plan office",
                "planning my week",
                "writing shorter reports",
                "saying no at work",
                "onboarding a new colleague",
            )
        },
    ),
    (
        "My {a} keeps {b}. Any idea why?",
        "Usually that points to an update or a loose connection. Try restarting it, check for "
        "firmware updates, and if your {a} still keeps {b}, a factory reset often sorts it.",
        {
            "a": ("laptop", "router", "printer", "smart speaker", "headphones", "tablet"),
            "b": (
                "disconnecting",
                "freezing",
                "restarting itself",
                "draining its battery",
                "making a buzzing noise",
            ),
        },
    ),
    (
        "What's the difference between {a} and {b}?",
        "In short: {a} is about the what, {b} about the how. In practice people mix them up "
        "all the time, and context usually makes the meaning clear.",
        {
            "a": ("a strategy", "weather", "affect", "a virus", "an index fund", "latency"),
            "b": ("a tactic", "climate", "effect", "bacteria", "a tracker fund", "throughput"),
        },
    ),
    (
        "How do I get rid of {a} in the {b}?",
        "For {a} in the {b}, clean with a mild solution of white vinegar and water, dry "
        "thoroughly, and improve airflow so it doesn't come back.",
        {
            "a": ("mould", "limescale", "a musty smell", "fruit flies", "condensation"),
            "b": ("bathroom", "kitchen", "bedroom", "hallway cupboard", "shower"),
        },
    ),
    (
        "How often should I water {a}?",
        "Most {a} prefer to dry out a little between waterings: roughly every {b}, less in "
        "winter. Stick a finger in the soil; if it's dry two knuckles down, water.",
        {
            "a": (
                "succulents",
                "tomato plants",
                "herbs on a windowsill",
                "a fiddle-leaf fig",
                "hanging baskets",
            ),
            "b": ("week", "ten days", "two to three days in summer"),
        },
    ),
    (
        "Any advice for a dog that {a}?",
        "Lots of dogs {a}. Reward the calm behaviour you want, keep sessions short, and build "
        "up slowly. A good trainer can help if it doesn't improve in a few weeks.",
        {
            "a": (
                "pulls on the lead",
                "barks at the doorbell",
                "chews shoes",
                "jumps up at guests",
                "won't come back when called",
            )
        },
    ),
    (
        "Why does my cat {a}?",
        "Cats {a} for lots of reasons: comfort, territory, or simply attention. If it's new "
        "behaviour, a quick vet check rules out anything medical.",
        {
            "a": (
                "knead blankets",
                "bring me leaves",
                "sit on my papers",
                "yowl at night",
                "ignore the expensive bed",
            )
        },
    ),
    (
        "What should I pack for a {a} trip in {b}?",
        "For a {a} trip in {b}: layers, a waterproof, comfortable shoes, a power bank and a "
        "small first-aid kit. Roll clothes to save space.",
        {
            "a": ("weekend city", "camping", "walking", "work", "family"),
            "b": ("autumn", "winter", "early spring", "the summer heat"),
        },
    ),
    (
        "How do I avoid jet lag going {a}?",
        "Going {a}, shift your sleep by an hour a day beforehand, get daylight at your "
        "destination in the morning, and avoid heavy meals on the flight.",
        {"a": ("east", "west", "across nine time zones", "long-haul for a short stay")},
    ),
    (
        "How should I structure a training week for a {a}?",
        "For a {a}: one longer easy run, one session with efforts, one or two easy runs, and "
        "a rest day. Increase weekly distance by no more than ten percent.",
        {"a": ("first 10k", "half marathon", "faster 5k", "trail race", "return after injury")},
    ),
    (
        "My {a} aches after running. Should I worry?",
        "Mild aching in the {a} after a run is common. Rest, ice and gentle mobility usually "
        "settle it; if it's sharp, swollen or lasts more than a week, see a physio.",
        {"a": ("knee", "calf", "hip", "ankle", "shin", "lower back")},
    ),
    (
        "What's a good way to start {a}?",
        "Start tiny: ten minutes a day of {a}, at the same time each day. Track it on paper. "
        "After two weeks, add a little more.",
        {
            "a": (
                "meditating",
                "journaling",
                "stretching",
                "reading more",
                "learning to draw",
                "saving money",
                "getting up earlier",
            )
        },
    ),
    (
        "Can you summarise the main arguments for and against {a}?",
        "For {a}: flexibility, lower costs, wider choice. Against: less predictability, more "
        "admin, and it doesn't suit everyone. It depends on what you value most.",
        {
            "a": (
                "remote work",
                "renting over buying",
                "a four-day week",
                "electric cars",
                "standing desks",
                "open-plan offices",
            )
        },
    ),
    (
        "Ugh, it's {a} again today.",
        "Sorry to hear that. A warm drink and a slower pace might help. Anything I can take off "
        "your plate?",
        {"a": ("raining", "grey and cold", "boiling hot", "windy", "miserable", "foggy")},
    ),
    (
        "I'm feeling {a} today.",
        "Thanks for telling me. Days like that happen. Would a short walk or a list of small "
        "wins help?",
        {
            "a": (
                "a bit flat",
                "tired",
                "unmotivated",
                "anxious about work",
                "restless",
                "overwhelmed",
            )
        },
    ),
    (
        "Is {a} actually good for you?",
        "In moderation, {a} is fine for most people. The evidence is mixed on the big claims, "
        "so enjoy it without expecting miracles.",
        {
            "a": (
                "dark chocolate",
                "cold water swimming",
                "intermittent fasting",
                "red wine",
                "sparkling water",
                "a daily nap",
            )
        },
    ),
    (
        "Can you proofread this sentence: '{a}'?",
        "Nearly there: '{a}' reads better with a comma before the final clause and 'its' "
        "without an apostrophe where you mean possession.",
        {
            "a": (
                "Its been a busy week and we need to regroup",
                "The team have finished there report",
                "Please find attached the updated figures",
                "Lets discuss on Monday",
            )
        },
    ),
    (
        "How do I fix a {a}?",
        "To fix a {a}, turn off the supply first, then replace the worn part. There are good "
        "step-by-step videos, and it's usually a cheap repair.",
        {
            "a": (
                "dripping tap",
                "running toilet",
                "squeaky door",
                "loose cupboard hinge",
                "wobbly table leg",
                "stuck window",
            )
        },
    ),
    (
        "What's a good stretch after {a}?",
        "After {a}, try a standing quad stretch, a hamstring fold and a gentle chest opener, "
        "thirty seconds each.",
        {"a": ("a long drive", "sitting all day", "a bike ride", "gardening", "a long walk")},
    ),
    (
        "Can you suggest a name for a {a}?",
        "Some ideas for a {a}: 'The Long Table', 'Small Hours', 'North Star', 'Tidy Minds'. "
        "Want a theme?",
        {"a": ("book club", "pub quiz team", "newsletter", "work channel", "running group")},
    ),
    (
        "What's a good budget rule of thumb?",
        "A common one is 50/30/20: half on needs, a third on wants, a fifth on savings. Adjust "
        "it to your situation.",
        {},
    ),
    (
        "Any tips for sleeping better?",
        "Same wake time daily, a cool dark room, no screens in the last hour, and caffeine only "
        "before noon.",
        {},
    ),
    (
        "How do I politely leave a group chat?",
        "A short message works: 'Stepping out to cut down on notifications, message me directly "
        "any time!' Then mute or leave.",
        {},
    ),
    (
        "What should I do with {a}?",
        "You could compost, donate or repurpose {a}; local reuse groups often snap things up.",
        {
            "a": (
                "old clothes",
                "a broken chair",
                "a box of cables",
                "leftover paint",
                "spare jam jars",
            )
        },
    ),
    (
        "Recommend a {a} to do at home this weekend.",
        "How about {b}? Cheap, satisfying and you'll have something to show for it.",
        {
            "a": ("small project", "rainy-day activity", "cheap hobby"),
            "b": (
                "building a bird feeder",
                "making a photo book",
                "decluttering one drawer",
                "trying a new bread recipe",
                "repotting your plants",
            ),
        },
    ),
]

# Exchanges whose two halves must match: one template each.
EXCHANGES += (
    [
        (
            f"Explain {topic} like I'm five.",
            f"Imagine {picture}. That's basically {topic}: the big idea without the jargon.",
            {},
        )
        for topic, picture in [
            ("inflation", "a sweet jar that costs a little more every week"),
            ("compound interest", "a snowball rolling downhill and picking up more snow"),
            ("how vaccines work", "a fire drill that teaches your body what to do"),
            ("machine learning", "learning to spot cats from thousands of examples"),
            ("photosynthesis", "a leaf making its own food from sunlight"),
            ("recursion", "a set of nesting dolls, each holding a smaller one"),
        ]
    ]
    + [
        (f"What's a fun fact about {subject}?", f"Here's one: {fact}.", {})
        for subject, fact in [
            ("octopuses", "they have three hearts"),
            ("honey", "sealed properly it practically never spoils"),
            ("the Moon", "it drifts a few centimetres further from Earth each year"),
            ("bananas", "botanically they count as berries"),
            ("Saturn", "it is less dense than water"),
            ("crows", "they can recognise individual human faces"),
        ]
    ]
    + [
        (
            f"Remind me how to {task}.",
            f"To {task}: {how}. Takes a minute once you've done it twice.",
            {},
        )
        for task, how in [
            ("take a screenshot", "use the keyboard shortcut or the system screenshot tool"),
            ("share my screen", "use the share button at the bottom of the call window"),
            ("split a PDF", "open it in a PDF tool and export only the pages you need"),
            ("set an out-of-office", "open the mail settings and turn on automatic replies"),
        ]
    ]
)

GREETINGS = [
    ("Morning!", "Good morning! What's on today?"),
    ("Hi, me again.", "Hello again! How can I help?"),
    ("Evening. Long day.", "Evening! Want to talk it through or keep it light?"),
    ("Hey, got a minute?", "Always. What's up?"),
    ("Back again, hello.", "Welcome back!"),
]
CLOSINGS = [
    ("Thanks, that's all for now.", "Anytime. Talk soon!"),
    ("Great, cheers.", "You're welcome!"),
    ("Okay, off to bed.", "Sleep well!"),
    ("Perfect, thank you.", "Glad to help."),
]


ASIDES = [
    "",
    "",
    "",
    "Quick one: ",
    "Random question: ",
    "Sorry, another one. ",
    "Okay, different topic. ",
    "While I remember: ",
]
SIGN_OFFS = [
    "",
    "",
    "",
    " Hope that helps!",
    " Want more detail on any of that?",
    " Shout if you'd like alternatives.",
    " Let me know how it goes.",
]


def small_talk(world: World) -> tuple[tuple[str, str], tuple[str, str]]:
    user, reply, slots = world.choice(EXCHANGES)
    values = {slot: world.choice(options) for slot, options in slots.items()}
    return (
        ("user", world.choice(ASIDES) + user.format(**values)),
        ("assistant", reply.format(**values) + world.choice(SIGN_OFFS)),
    )
