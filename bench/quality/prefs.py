"""Preference updates: the user states a preference, then changes their mind once or twice
in later sessions. The question asks for the current one; its evidence is the last turn
only, and the earlier statements stay in the corpus as the strongest distractors."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from itertools import pairwise

from .world import Pointer, World

CATEGORY = "preference-update"
MIN_GAP = timedelta(days=30)

FIRST = [
    "For the record, {statement}",
    "{statement}",
    "Something about me: {statement}",
]
CHANGE = [
    "Change of plan: {statement}",
    "I've changed my mind. {statement}",
    "Update, since I told you otherwise before: {statement}",
    "{statement}",
]
FIRST_ACKS = ["Noted, I'll remember that.", "Good to know!", "Got it."]
CHANGE_ACKS = [
    "Thanks for the update; I'll go with that from now on.",
    "Understood, noted the change.",
    "Makes sense. Updated.",
]


@dataclass(frozen=True)
class Preference:
    values: tuple[str, ...]  # in the order the user holds them; two or three
    states: str  # the first statement, with {value}
    changes: str  # a later one, with {value} and {old}
    asks: list[str]


PREFERENCES = [
    Preference(
        ("black coffee", "matcha", "hot water with lemon"),
        "I can't function without {value} first thing in the morning.",
        "I've swapped {old} for {value} in the mornings. Fewer jitters.",
        ["What do I drink in the morning these days?", "What's my current morning drink?"],
    ),
    Preference(
        ("vegetarian", "pescatarian", "flexitarian"),
        "I've been {value} for about a year now.",
        "I'm {value} now, not {old} any more.",
        ["What is my diet at the moment?", "How do I eat these days, food-wise?"],
    ),
    Preference(
        ("Vim", "VS Code", "Helix"),
        "I do all my coding in {value}; muscle memory at this point.",
        "Moved from {old} to {value} for coding. The plugins sold me.",
        ["Which code editor am I using now?", "What editor should your coding tips assume?"],
    ),
    Preference(
        ("TypeScript", "Elm"),
        "The side project is all {value}.",
        "Rewrote the side project from {old} into {value}.",
        ["What language is my side project written in now?"],
    ),
    Preference(
        ("Brooks", "Hoka", "Saucony"),
        "{value} trainers are the only ones that don't hurt my knees.",
        "Switched running shoe brands: {value} now instead of {old}.",
        [
            "Which brand of running shoes do I prefer now?",
            "What trainers should I buy for running?",
        ],
    ),
    Preference(
        ("aisle seat", "window seat"),
        "On flights I always want an {value}, I hate climbing over people.",
        "On planes I'd now rather have a {value}; I've stopped caring about the loo trips.",
        ["Where should I sit when you book my flights?", "What seat do I want on planes?"],
    ),
    Preference(
        ("Notion", "Obsidian", "a paper notebook"),
        "All my notes live in {value}.",
        "My notes have moved to {value}; {old} got too fiddly.",
        ["What do I use to take notes now?", "Where do I keep my notes?"],
    ),
    Preference(
        ("short bullet points", "detailed explanations with examples"),
        "Please keep answers to {value}, I skim.",
        "I actually prefer {value} from you now.",
        ["How do I like your answers formatted?", "What style of reply do I want from you?"],
    ),
    Preference(
        ("Alex", "Lex"),
        "Call me {value}, everyone does.",
        "Please call me {value} from now on, not {old}.",
        ["What should you call me?", "What name do I go by with you?"],
    ),
    Preference(
        ("Thai green curry", "Ethiopian injera", "Sichuan hotpot"),
        "Friday takeaway is always {value} in this house.",
        "Friday takeaway has become {value}.",
        ["What's our Friday takeaway these days?", "What do we order in at the end of the week?"],
    ),
    Preference(
        ("paperbacks", "an e-reader", "audiobooks"),
        "I only read {value}; screens give me headaches.",
        "I've gone over to {value} for reading.",
        ["How do I prefer to read books now?", "What format are my books in?"],
    ),
    Preference(
        ("all-inclusive resorts", "hut-to-hut hiking"),
        "Holidays for me means {value}: zero decisions.",
        "Holiday-wise I'm all about {value} now.",
        [
            "What kind of holiday do I want these days?",
            "How do I like to spend my time off travelling?",
        ],
    ),
    Preference(
        ("a flat in the city centre", "a cottage in the countryside"),
        "Long term I want {value}, near everything.",
        "Long term I now see us in {value}.",
        ["Where do I want to live in the long run?", "What's my dream home situation?"],
    ),
    Preference(
        ("sage green", "terracotta", "deep navy"),
        "We're painting the living room {value}.",
        "Living room colour is now {value}, sorry {old}.",
        [
            "What colour are we painting the lounge?",
            "Which paint did we choose for the sitting room?",
        ],
    ),
    Preference(
        ("a barn in the Cotswolds", "a registry office and a pub"),
        "The wedding will be in {value}, that's the dream.",
        "Wedding venue rethink: {value}, small and cheap.",
        ["Where are we holding the wedding?", "What's our wedding venue?"],
    ),
    Preference(
        ("pineapple and ham", "nduja and honey"),
        "My pizza order is {value}, fight me.",
        "New pizza order: {value}.",
        ["What pizza topping should you order for me?", "What do I like on my pizza?"],
    ),
    Preference(
        ("a hybrid", "a fully electric car", "no car at all, just car-sharing"),
        "Next car will be {value}, I think.",
        "Thinking about it more, we'll go with {value} rather than {old}.",
        ["What kind of car are we planning to get?", "What's our plan for the next vehicle?"],
    ),
    Preference(
        ("first thing at nine", "after two in the afternoon"),
        "Please book meetings {value}; that's when I'm sharpest.",
        "Meetings work best for me {value} now.",
        ["When do I prefer to have meetings?", "What time of day should calls go in my diary?"],
    ),
    Preference(
        ("Rioja", "orange wine", "dry cider"),
        "My wine of choice is {value}.",
        "I've gone off {old}; it's {value} these days.",
        ["What do I like to drink with dinner now?", "Which wine do I prefer?"],
    ),
    Preference(
        ("American spelling", "British spelling"),
        "Use {value} in my documents, please.",
        "Switch to {value} in anything you draft for me.",
        ["Which spelling should you use in my writing?", "Should my drafts use color or colour?"],
    ),
    Preference(
        ("around midnight", "by half past ten"),
        "I usually go to bed {value}.",
        "New sleep routine: lights out {value}.",
        ["What time am I going to bed these days?", "When do I turn in at night?"],
    ),
    Preference(
        ("granola", "eggs on toast", "overnight oats"),
        "Breakfast is {value}, every day.",
        "Breakfast is {value} now, I've gone off {old}.",
        ["What do I have for breakfast now?", "What's my morning meal?"],
    ),
    Preference(
        ("the leisure centre pool", "a climbing gym"),
        "I train at {value} three times a week.",
        "Cancelled the old membership; I train at {value} now.",
        ["Where do I exercise these days?", "Where do I work out?"],
    ),
    Preference(
        ("growing it long", "a buzz cut"),
        "Hair update: I'm {value}.",
        "Hair: went for {value} in the end.",
        ["What's my hairstyle now?", "How do I wear my hair?"],
    ),
    Preference(
        ("Netflix", "Mubi"),
        "We only pay for {value} at the moment.",
        "Cancelled {old}; we've got {value} instead.",
        ["Which streaming service do we subscribe to?", "What do we watch films on?"],
    ),
    Preference(
        ("a spreadsheet", "YNAB"),
        "I track the budget in {value}.",
        "Budget tracking has moved to {value}.",
        ["How am I tracking my spending?", "What do I use for budgeting?"],
    ),
    Preference(
        ("Kind regards", "Warmly"),
        "Sign off my emails with '{value}', please.",
        "Sign emails '{value}' from now on, it's friendlier.",
        [
            "How should you sign off the emails you draft for me?",
            "What closing should my emails have?",
        ],
    ),
    Preference(
        ("formal", "casual and friendly"),
        "Keep the tone of my drafts {value}.",
        "Make my drafts {value} from now on.",
        ["What tone should my drafts have?", "How should my messages sound?"],
    ),
    Preference(
        ("the Faroe Islands", "Patagonia", "Svalbard"),
        "Dream trip: {value}. One day.",
        "Dream trip has changed: {value} now.",
        ["Where is my dream trip?", "Which bucket-list destination am I saving for?"],
    ),
    Preference(
        ("with my parents", "in a cabin with friends"),
        "Christmas this year will be {value}.",
        "Christmas plans changed: we'll be {value}.",
        ["Where am I spending Christmas?", "What are my holiday season plans?"],
    ),
    Preference(
        ("Fira Code", "JetBrains Mono"),
        "My terminal font is {value}.",
        "Changed my editor font to {value}.",
        ["What font do I use for code?", "Which typeface is in my terminal?"],
    ),
    Preference(
        ("QWERTY", "Colemak"),
        "I type on {value}, obviously.",
        "I've switched my keyboard layout to {value}. Painful week.",
        ["What keyboard layout do I use?", "Which layout am I typing on?"],
    ),
    Preference(
        ("Windows", "Fedora", "macOS"),
        "My personal laptop runs {value}.",
        "Wiped the personal laptop and put {value} on it.",
        ["What operating system is on my own laptop?", "What OS do I run at home?"],
    ),
    Preference(
        ("tennis", "padel"),
        "My sport these days is {value}.",
        "Gave up {old}, I play {value} now.",
        ["Which racket sport do I play?", "What sport am I into now?"],
    ),
    Preference(
        ("a beach wedding", "a winter wedding"),
        "My sister wants {value}, and I've been roped into planning.",
        "My sister changed her mind and now wants {value}.",
        ["What kind of wedding does my sister want?"],
    ),
    Preference(
        ("a Maine Coon", "a retired greyhound"),
        "If we ever get another pet, I'm set on {value}.",
        "Honestly I've come round to {value} as our next pet.",
        ["Which animal would I pick for our next pet?"],
    ),
    Preference(
        ("lavender", "bergamot"),
        "The only scent I like in candles is {value}.",
        "Candle preference has shifted: {value} now.",
        ["What scent should I buy candles in?"],
    ),
    Preference(
        ("Arsenal shirts", "vintage band T-shirts"),
        "For presents, I always love {value}.",
        "Gift tip for you: I'd now rather get {value}.",
        ["What should people get me as a present?"],
    ),
    Preference(
        ("the north Cornish coast", "the Scottish Highlands"),
        "Summer trip this year: {value}.",
        "Summer trip moved: we're doing {value} instead.",
        ["Where are we going on our summer trip?"],
    ),
    Preference(
        ("podcasts at double speed", "podcasts at normal speed"),
        "I listen to {value}; life is short.",
        "I've gone back to {value}, it's more relaxing.",
        ["How fast do I listen to podcasts?"],
    ),
]


def add_preferences(world: World, *, three_step_share: float) -> None:
    for preference in PREFERENCES:
        values = preference.values
        if len(values) == 3 and not world.chance(three_step_share):
            values = values[::2] if world.chance(0.5) else values[:2]
        first_text = world.choice(FIRST).format(statement=preference.states.format(value=values[0]))
        session = world.session(before=_latest_start(world, len(values) - 1))
        first = world.add(session, ("user", first_text), ("assistant", world.choice(FIRST_ACKS)))
        earlier = [Pointer(first, 0, values[0])]
        last = None
        for step, (old, value) in enumerate(pairwise(values), start=1):
            session = world.session(
                after=session.day + MIN_GAP, before=_latest_start(world, len(values) - 1 - step)
            )
            text = world.choice(CHANGE).format(
                statement=preference.changes.format(value=value, old=old)
            )
            if last is not None:
                earlier.append(Pointer(last, 0, old))
            last = world.add(
                session, ("user", world.padded(text)), ("assistant", world.choice(CHANGE_ACKS))
            )
        assert last is not None
        world.ask(
            CATEGORY,
            world.choice(preference.asks),
            values[-1],
            Pointer(last, 0, values[-1]),
            superseded=tuple(earlier),
        )


def _latest_start(world: World, changes_after: int) -> date:
    """Early enough that ``changes_after`` more changes, a month or more apart, still fit."""
    last = max(session.day for session in world.sessions)
    return last - MIN_GAP * changes_after + timedelta(days=1)
