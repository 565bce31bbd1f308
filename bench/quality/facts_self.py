"""Single facts about the user, stated once in passing.

Each template: the slots it fills (a pool name from ``values.POOLS``, or a tuple of
literal options), the ways the user says it, the assistant's acknowledgement (which never
repeats the answer), optionally an *elicited* form (the assistant asks, the user answers
in a short reply that only makes sense with the question before it), and the questions
asked later. Questions are worded as someone asks months later, mostly not with the
words of the statement ("beagle called Biscuit" ← "What breed is my dog?").
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Template:
    slots: dict[str, str | tuple[str, ...]]
    says: list[str]
    acks: list[str]
    asks: list[tuple[str, list[str]]]  # (the answer, over the slots; question wordings)
    elicit: list[tuple[str, str]] = field(default_factory=list)  # (assistant, user reply)


SELF_FACTS: list[Template] = [
    Template(
        {"breed": "dog_breed", "pet": "pet_name"},
        [
            "We adopted a {breed} called {pet} from the rescue centre on Saturday. Two years old "
            "and already ruling the sofa.",
            "Meet the newest family member: {pet}, a {breed}, picked up from the shelter today.",
        ],
        [
            "Congratulations! The first weeks with a rescue are a big adjustment. Have you found "
            "a vet yet?",
            "How lovely. Give it time to settle; a quiet corner and a routine help.",
        ],
        [
            ("{breed}", ["What breed is my dog?", "What kind of dog did we adopt?"]),
            ("{pet}", ["What's my dog's name?", "What did we call the rescue dog?"]),
        ],
    ),
    Template(
        {"company": "company"},
        [
            "First day at {company} today. The badge photo is terrible but the team seems kind.",
            "Signed the contract with {company} — I start on Monday!",
        ],
        [
            "Congratulations on the new role! First weeks are mostly listening; be kind to "
            "yourself.",
            "That's big news. Anything you want to prepare before you start?",
        ],
        [
            (
                "{company}",
                [
                    "Which company do I work for now?",
                    "Who is my current employer?",
                    "Where did I get hired?",
                ],
            )
        ],
    ),
    Template(
        {
            "title": (
                "staff data engineer",
                "principal product designer",
                "head of customer research",
                "senior site reliability engineer",
            )
        },
        [
            "The promotion went through — I'm officially {title} as of this month.",
            "New title on my email signature: {title}. Feels strange.",
        ],
        [
            "Well deserved! Do the responsibilities change much?",
            "Congratulations. It usually takes a few weeks to feel like it's yours.",
        ],
        [("{title}", ["What's my job title?", "What role was I promoted to?"])],
    ),
    Template(
        {"minutes": ("thirty-five", "forty", "fifty")},
        [
            "I cycle to the office now, about {minutes} minutes along the canal towpath.",
            "My ride in along the canal takes {minutes} minutes if the lights are kind.",
        ],
        [
            "That's a nice way to start the day. Do you have somewhere to shower at work?",
            "Good exercise built into the routine. Mind the towpath in the wet!",
        ],
        [
            (
                "{minutes} minutes",
                ["How long does it take me to get to work?", "How many minutes is my commute?"],
            )
        ],
    ),
    Template(
        {"floor": ("fourth", "fifth", "sixth")},
        [
            "Our flat is on the {floor} floor and the lift is broken again. Groceries are a "
            "workout.",
            "Carried the new mattress up to the {floor} floor by hand. Never again.",
        ],
        [
            "Oof. Is the landlord fixing it soon?",
            "That's a proper workout. Hope your back is okay.",
        ],
        [("{floor} floor", ["What floor is my apartment on?", "How high up do we live?"])],
        [
            (
                "Do you live somewhere with stairs or a lift?",
                "Stairs, sadly — we're on the {floor} floor and the lift is always broken.",
            )
        ],
    ),
    Template(
        {"allergen": "allergen"},
        [
            "The skin-prick test came back: I'm allergic to {allergen}. Explains a lot.",
            "Allergy clinic today. Turns out it's {allergen} that sets me off.",
        ],
        [
            "Good to finally know. Did they give you an action plan?",
            "That must be a relief to pin down. Keep antihistamines handy.",
        ],
        [("{allergen}", ["What am I allergic to?", "What did the allergy test find?"])],
    ),
    Template(
        {"blood": ("O negative", "AB positive", "B negative")},
        [
            "Gave blood at lunchtime. The donor card says I'm {blood}, which they seemed "
            "pleased about.",
            "Got my donor card in the post: {blood}. Apparently they'll be calling me a lot.",
        ],
        [
            "Thank you for donating! Drink plenty of water today.",
            "That's generous of you. Regular donors make a real difference.",
        ],
        [("{blood}", ["What's my blood type?", "What group is my blood?"])],
    ),
    Template(
        {"size": ("EU 44", "UK 9.5", "EU 38")},
        [
            "Ordered the trail runners in {size} this time, the last pair pinched my toes.",
            "Returned the hiking boots and got them in {size}. Much better.",
        ],
        [
            "Good call; feet swell on long runs so a little room helps.",
            "Comfort is everything with footwear. Break them in gently.",
        ],
        [("{size}", ["What shoe size do I take?", "Which size should I order footwear in?"])],
    ),
    Template(
        {"car": "car"},
        [
            "Picked up the car today — a secondhand {car}, silver, sixty thousand miles on the "
            "clock.",
            "We finally bought a car: a {car}. Not glamorous but it starts every time.",
        ],
        [
            "Congratulations! Worth booking a service soon to know where it stands.",
            "Exciting. Any road trips planned?",
        ],
        [("{car}", ["What car do I drive?", "What vehicle did we buy?"])],
        [("What did you end up getting for the car?", "A {car}! Used, but in great shape.")],
    ),
    Template(
        {"instrument": "instrument"},
        [
            "Had my first {instrument} lesson tonight. The teacher is patient, thank goodness.",
            "I've signed up for {instrument} lessons on Wednesdays. Terrible so far but fun.",
        ],
        [
            "Everyone sounds rough at first. Little and often is the secret.",
            "Good for you! What made you pick it?",
        ],
        [("{instrument}", ["What instrument am I learning?", "What do I take music lessons in?"])],
    ),
    Template(
        {"language": "language"},
        [
            "Day 100 of my {language} streak! I can finally order food without panicking.",
            "I've started {language} classes on Thursday evenings.",
        ],
        [
            "A hundred days is a real habit. Try some podcasts for listening practice.",
            "Evening classes are great for momentum. How's the grammar?",
        ],
        [
            (
                "{language}",
                ["Which language am I studying?", "What language have I been practising?"],
            )
        ],
    ),
    Template(
        {"book": "book"},
        [
            "Book club picked {book} this month. I'm halfway and not sure I like it.",
            "Our book club is reading {book}; the meeting is next Tuesday.",
        ],
        [
            "Give it until the end; the last third often changes how it reads.",
            "Fun! Do you want some discussion questions?",
        ],
        [
            (
                "{book}",
                ["What is my book club reading?", "Which novel did the reading group choose?"],
            )
        ],
    ),
    Template(
        {"film": "film"},
        [
            "Rewatched {film} for maybe the tenth time. Still my favourite film ever.",
            "If I could only keep one movie it would be {film}, no contest.",
        ],
        ["Some films just get better with every watch.", "A comfort film is a precious thing."],
        [("{film}", ["What's my all-time favourite movie?", "Which film do I love most?"])],
    ),
    Template(
        {"phone": ("Pixel 7a", "Fairphone 5", "iPhone 13 mini")},
        [
            "Dropped my {phone} on the tiles and cracked the screen. Brilliant start to the day.",
            "The {phone} battery is dying by lunchtime now.",
        ],
        [
            "Ugh, sorry. A repair shop can often replace the glass the same day.",
            "Battery replacements are usually cheap compared with a new phone.",
        ],
        [("{phone}", ["What phone do I have?", "What model is my mobile?"])],
    ),
    Template(
        {"plant": ("moth orchid", "bird of paradise", "Christmas cactus")},
        [
            "The {plant} on the kitchen windowsill finally flowered after three years!",
            "My {plant} is blooming, I nearly cried.",
        ],
        [
            "Patience rewarded! Keep its routine the same so it doesn't drop buds.",
            "What a lovely moment. Did you change anything recently?",
        ],
        [("{plant}", ["Which of my houseplants bloomed?", "What plant flowered at home?"])],
    ),
    Template(
        {"veg": ("purple sprouting broccoli", "Jerusalem artichokes", "borlotti beans")},
        [
            "I planted {veg} in the raised bed this year, fingers crossed.",
            "The allotment is mostly {veg} this season.",
        ],
        [
            "Nice choice. Keep an eye out for slugs early on.",
            "Home-grown always tastes better. Are you watering daily?",
        ],
        [
            (
                "{veg}",
                ["What am I growing in the garden?", "What vegetable did I put in the raised bed?"],
            )
        ],
    ),
    Template(
        {"town": ("Aberystwyth", "Clonakilty", "Whitby")},
        [
            "I grew up in {town}; one bakery, one bus a day, lots of rain.",
            "Going back to {town} for a funeral. Haven't been home in years.",
        ],
        [
            "Small towns leave a mark. Do you still know people there?",
            "That must bring up a lot. Take care of yourself.",
        ],
        [("{town}", ["Where did I grow up?", "What's my hometown?"])],
    ),
    Template(
        {"degree": ("marine geology", "medieval history", "music technology")},
        [
            "Funny thing is I studied {degree} at university, nothing to do with my job now.",
            "My degree was in {degree}, which comes up at pub quizzes and nowhere else.",
        ],
        ["Unusual paths make for interesting careers.", "That's a fun background to have."],
        [("{degree}", ["What did I study at uni?", "What subject is my degree in?"])],
    ),
    Template(
        {"medicine": ("propranolol", "amitriptyline", "topiramate")},
        [
            "The doctor put me on {medicine} for the migraines. Starting tomorrow.",
            "New prescription: {medicine}, low dose, to stop the migraines.",
        ],
        [
            "I hope it helps. Keep a headache diary so you can see if it's working.",
            "Fingers crossed. Side effects often settle after a couple of weeks.",
        ],
        [
            (
                "{medicine}",
                [
                    "What was I prescribed for my headaches?",
                    "Which medication am I taking to prevent migraines?",
                ],
            )
        ],
    ),
    Template(
        {"time": ("22:41", "24:05", "19:58")},
        [
            "New personal best at parkrun this morning: {time}!",
            "Shaved forty seconds off at parkrun, {time} now.",
        ],
        [
            "Brilliant! All that training is paying off.",
            "That's a great improvement. How did you pace it?",
        ],
        [("{time}", ["What's my fastest 5k time?", "How quick was my best parkrun?"])],
    ),
    Template(
        {"amount": ("£640", "£875", "£1,120")},
        [
            "I'm putting {amount} a month aside for the house deposit now.",
            "Set up a standing order: {amount} every month into the deposit savings.",
        ],
        [
            "Automating it is the best trick. You won't miss what you don't see.",
            "That's a solid habit. Is it in an account with decent interest?",
        ],
        [
            (
                "{amount}",
                [
                    "How much am I saving each month?",
                    "What's my monthly contribution to the deposit fund?",
                ],
            )
        ],
    ),
    Template(
        {"rent": ("£1,450", "£1,685", "£1,390")},
        [
            "Rent went up to {rent} a month. Ouch.",
            "Landlord emailed, rent's going to {rent} from April.",
        ],
        [
            "That's a steep rise. It might be worth checking what similar flats go for.",
            "Sorry, that's painful. Is it in line with your contract?",
        ],
        [("{rent}", ["How much do I pay for rent?", "What does our flat cost per month?"])],
    ),
    Template(
        {"show": ("Slow Horses", "Severance", "The Bear", "Shōgun")},
        [
            "I'm hooked on {show}, watched four episodes last night instead of sleeping.",
            "Started {show} on a whim and now I can't stop.",
        ],
        [
            "Sleep is overrated until the next morning! Is it worth the hype?",
            "The best shows do that. No spoilers from me.",
        ],
        [("{show}", ["What series am I binge-watching?", "Which TV show am I obsessed with?"])],
    ),
    Template(
        {"restaurant": "restaurant"},
        [
            "{restaurant} is still our go-to for date night; the staff know our order.",
            "We went back to {restaurant} for date night. Never disappoints.",
        ],
        ["Having a regular place is lovely.", "Sounds like a great evening."],
        [
            (
                "{restaurant}",
                ["Where do we usually go for date night?", "What's our favourite restaurant?"],
            )
        ],
    ),
    Template(
        {"dentist": "surname"},
        [
            "My dentist, Dr {dentist}, says I grind my teeth at night. Need a mouth guard.",
            "Dr {dentist} at the dental practice wants to see me again in six months.",
        ],
        [
            "Grinding is common with stress. A night guard really helps.",
            "Regular check-ups save a lot of trouble later.",
        ],
        [
            (
                "{dentist}",
                ["Who is my dentist?", "What's the name of the person who checks my teeth?"],
            )
        ],
    ),
    Template(
        {"podcast": ("Song Exploder", "Hardcore History", "Radiolab", "99% Invisible")},
        [
            "{podcast} is what I listen to on long runs, the miles disappear.",
            "Binged three episodes of {podcast} on my run this morning.",
        ],
        ["Good audio makes a long run fly by.", "Great way to pass the miles."],
        [
            (
                "{podcast}",
                [
                    "Which podcast do I listen to while running?",
                    "What do I have in my ears on long jogs?",
                ],
            )
        ],
    ),
    Template(
        {"place": ("food bank", "animal sanctuary", "community fridge")},
        [
            "I volunteer at the {place} every other Saturday now. Good for the soul.",
            "Did my shift at the {place} today, sorted tins for four hours.",
        ],
        ["That's a wonderful thing to do.", "Every shift makes a difference."],
        [("{place}", ["Where do I volunteer?", "What charity do I give my Saturdays to?"])],
    ),
    Template(
        {"fear": ("clowns", "moths", "escalators")},
        [
            "I know it's silly but I'm properly terrified of {fear}, always have been.",
            "My phobia of {fear} flared up today, heart racing.",
        ],
        [
            "It's not silly; phobias are common and treatable.",
            "That sounds stressful. Breathing slowly can help in the moment.",
        ],
        [("{fear}", ["What's my phobia?", "What am I scared of?"])],
    ),
    Template(
        {"tattoo": ("hummingbird", "compass rose", "sprig of lavender")},
        [
            "Got a small {tattoo} tattooed on my wrist. It stings!",
            "Booked in for my first tattoo: a little {tattoo} on the ankle.",
        ],
        [
            "Exciting! Keep it moisturised while it heals.",
            "A first tattoo is a big moment. Did you design it yourself?",
        ],
        [("{tattoo}", ["What tattoo do I have?", "What design did I get inked?"])],
    ),
    Template(
        {"game": ("Wingspan", "Terraforming Mars", "Carcassonne")},
        [
            "Our game night staple is {game}; I've lost six weeks running.",
            "Board game evening again, we played {game} until midnight.",
        ],
        ["The losing streak has to break eventually!", "Sounds like a fun night."],
        [
            (
                "{game}",
                ["What board game do we play most?", "What do we usually play on game night?"],
            )
        ],
    ),
    Template(
        {"team": "team"},
        [
            "Watching {team} lose again. Why do I support this club?",
            "{team} won! Best weekend in months.",
        ],
        ["Football loyalty is for life, for better or worse.", "Enjoy it while it lasts!"],
        [("{team}", ["Which football team do I support?", "Who do I cheer for in football?"])],
    ),
    Template(
        {"alarm": ("5:50", "6:15", "7:05")},
        [
            "My alarm goes off at {alarm} every weekday and I hate it.",
            "Moved my weekday alarm to {alarm} to fit in a walk.",
        ],
        [
            "Consistent wake times help more than a lie-in does.",
            "A morning walk is a great way to wake up.",
        ],
        [("{alarm}", ["What time do I get up on weekdays?", "When does my alarm ring?"])],
    ),
    Template(
        {
            "project": (
                "tracking sourdough starters",
                "swapping allotment surplus",
                "logging bouldering problems",
            )
        },
        [
            "My side project is an app for {project}. Probably no one else wants it.",
            "Spent the evening on my little app for {project}.",
        ],
        [
            "Scratching your own itch is the best reason to build something.",
            "Side projects are great for learning.",
        ],
        [("{project}", ["What does my side project do?", "What is the app I'm building for?"])],
    ),
    Template(
        {"recipe": ("plum dumplings", "fish pie", "lemon drizzle cake")},
        [
            "Made my grandmother's {recipe} tonight. Tasted exactly like childhood.",
            "Finally found Nan's handwritten recipe for {recipe}.",
        ],
        [
            "Food is memory. That's a lovely thing to keep alive.",
            "What a treasure. Maybe copy it somewhere safe.",
        ],
        [
            (
                "{recipe}",
                ["Which of my grandmother's recipes did I cook?", "What family recipe did I make?"],
            )
        ],
    ),
    Template(
        {"partner": "name"},
        [
            "{partner} is making dinner tonight so I'm on washing-up duty.",
            "My partner {partner} surprised me with concert tickets.",
        ],
        ["Sounds like a fair trade.", "How thoughtful!"],
        [("{partner}", ["What's my partner's name?", "Who am I in a relationship with?"])],
    ),
    Template(
        {"cat": "pet_name"},
        [
            "The cat, {cat}, knocked a full mug off the desk during my meeting.",
            "{cat} the cat has decided my keyboard is a bed.",
        ],
        ["Cats have impeccable timing.", "Classic cat behaviour."],
        [("{cat}", ["What's my cat called?", "What's the name of our cat?"])],
    ),
    Template(
        {"bike": ("Genesis Croix de Fer", "Brompton", "Ribble Endurance")},
        [
            "Took the {bike} out for fifty miles, legs are done.",
            "The {bike} is back from its service, shifting like new.",
        ],
        ["Great ride! Refuel well.", "A fresh service makes such a difference."],
        [("{bike}", ["What bicycle do I ride?", "What's my bike model?"])],
    ),
    Template(
        {"anniversary": ("a lighthouse cottage", "a canal boat", "a treehouse")},
        [
            "For our anniversary we're staying in {anniversary}. Can't wait.",
            "Booked {anniversary} for the anniversary weekend!",
        ],
        ["How romantic!", "What a lovely plan."],
        [
            (
                "{anniversary}",
                [
                    "Where are we spending our anniversary?",
                    "What did I book for the anniversary trip?",
                ],
            )
        ],
    ),
]

# Facts only the assistant's turn holds: the user asked for a suggestion and later asks
# what it was. The evidence is the assistant's reply.
ASSISTANT_FACTS: list[tuple[str, str, str, list[str]]] = [
    (
        "Can you recommend a science-fiction novel for the holidays?",
        "Try {value}: thoughtful, not too long, and it stays with you.",
        "book",
        [
            "What sci-fi book did you recommend for my holiday?",
            "Which novel did you suggest I read over the holidays?",
        ],
    ),
    (
        "What wine goes with mushroom risotto?",
        "A {value} would be lovely with it; earthy and not too heavy.",
        ("Pinot Noir from Burgundy", "dry Fiano", "Nebbiolo Langhe"),
        [
            "What did you say I should drink with the risotto?",
            "Which wine pairing did you suggest for my mushroom dish?",
        ],
    ),
    (
        "Any stretch for a stiff lower back after sitting all day?",
        "Try the {value}: hold it for thirty seconds, three times a day.",
        ("pigeon pose", "cat-cow sequence", "supine twist"),
        [
            "Which stretch did you recommend for my back?",
            "What exercise did you tell me to do for my sore spine?",
        ],
    ),
    (
        "I need a film for a cosy night in with my parents.",
        "How about {value}? Gentle, funny and everyone can enjoy it.",
        "film",
        [
            "Which movie did you suggest for the evening with my parents?",
            "What film did you recommend for my family night in?",
        ],
    ),
    (
        "Suggest a board game for four people who don't like long rules.",
        "{value} is perfect: learnable in five minutes, still clever.",
        ("Codenames", "Azul", "Cascadia"),
        [
            "Which game did you suggest for our group of four?",
            "What simple tabletop game did you recommend?",
        ],
    ),
    (
        "What should I name my sourdough starter?",
        "Every starter deserves a grand name. How about {value}?",
        ("Clint Yeastwood", "Bread Pitt", "Doughy Parton"),
        [
            "What name did you come up with for my starter?",
            "What did you suggest calling my sourdough?",
        ],
    ),
    (
        "Give me a band to listen to if I like slow, moody music.",
        "You might love {value}; start with their quieter records.",
        "band",
        [
            "Which artist did you recommend when I wanted moody music?",
            "What band did you suggest for slow listening?",
        ],
    ),
    (
        "What's a good houseplant for a dark bathroom?",
        "A {value} will cope with low light and the humidity.",
        ("cast iron plant", "maidenhair fern", "ZZ plant"),
        [
            "Which plant did you recommend for the bathroom?",
            "What greenery did you say would survive without much light?",
        ],
    ),
]
