"""Who a passage names, who said it, and who "my old flatmate" is: read by rules, in
microseconds, when a chunk is written (``services.mentions``), so that search can gather
the turns about a person a question names (``search._entities``).

- A **speaker**: a chat turn that opens with a name and a colon ("Melanie: I took the
  kids …"), as transcripts of people talking are imported. What such a turn says in the
  first person is about its speaker.
- A **name**: a capitalised word or run of words that is not an everyday word ("Ilse",
  "Captain Squeak"); each word counts, and a run also whole. A word only capitalised at a
  sentence's start ("Spent the weekend …") is kept apart (``INITIAL``): it names someone
  only if the user also writes it capitalised where ordinary words are not.
- A **relation**: "my old flatmate", "my wife's cousin", told by the turn's speaker (the
  user, or the transcript's speaker); and an **alias** where a turn says who that is
  ("my old flatmate, Ilse, …", "Ilse, my old flatmate", "my wife Anna", "my boss is
  Sam"). Once a user has said who is who, the turns that only say "my old flatmate" are
  found for "Ilse".

The rules read English; a word is a name by its capital, so that a name the
statistical recogniser does not know (most are) still counts, and nothing is loaded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from apps.core.dates import MONTHS, WEEKDAYS
from apps.core.words import name_stop_words

SPEAKER, NAMED, INITIAL, RELATION, ALIAS = "speaker", "named", "initial", "relation", "alias"
KEY_MAX_LENGTH = 130
MAX_RUN_WORDS = 4

_WORD = r"[^\W\d_][\w'’-]*"
NAME_WORD = re.compile(_WORD)
# "Melanie: …", "Mary Jane: …" at a turn's head; not "FYI:", "Note:", "Quick update:".
_SPEAKER = re.compile(r"\s*((?:[A-Z][\w'’-]*)(?: [A-Z][\w'’-]*){0,2}):[ \t]+\S")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_NOT_SPEAKERS = _words(
    "note update edit answer question summary reminder todo warning tip example step re "
    "subject title user assistant human ai system bot chatgpt claude cairn you me ps nb "
    "important source sources context q a"
)
_CALENDAR = frozenset(word.casefold() for word in (*MONTHS, *WEEKDAYS))
# Capitalised words that are never a name.
_NEVER = frozenset({"i", "i'm", "i’m", "i've", "i’ve", "i'll", "i’ll", "i'd", "i’d", "ok", "okay"})
_POSSESSIVE = re.compile(r"['’]s?$")
# Given names that are everyday words ("Will", "May", "June"): a name where a transcript's
# heading says someone by it speaks ("Will: I took the kids …"), and where a question
# writes it capitalised inside a sentence ("What does Will do …?"); never read as a name
# in a passage's text, nor at a question's start ("Will she enjoy …?").
_EVERYDAY_NAMES = frozenset({"will", "may", "june", "april", "august"})

# People one has (kin, friends, people at work, people one pays), singular: "my old
# flatmate" is someone, "my kids" are not one person.
# fmt: off
RELATION_NOUNS = _words(
    """
    friend bestie pal mate buddy flatmate roommate housemate neighbour neighbor colleague
    coworker co-worker teammate classmate schoolmate boss manager mentor coach teacher
    tutor doctor gp dentist therapist landlord landlady wife husband partner spouse
    boyfriend girlfriend fiance fiancé fiancee fiancée ex mum mom mother dad father
    sister brother sibling twin son daughter cousin aunt auntie uncle niece nephew grandma
    grandmother grandpa grandfather granny nan nana grandson granddaughter stepmother
    stepfather stepmum stepmom stepdad stepson stepdaughter godmother godfather godson
    goddaughter mother-in-law father-in-law sister-in-law brother-in-law son-in-law
    daughter-in-law assistant accountant lawyer vet physio trainer babysitter nanny
    cleaner childminder client student pupil penpal
    """
)
# fmt: on
# "my" and the words after it; which of them are people is checked in Python
# (``relations_in``).
_MY = re.compile(r"\b[Mm]y\s+([\w'’-]+(?:\s+[\w'’-]+){0,3})")
_NAME_RUN = rf"[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){{0,{MAX_RUN_WORDS - 1}}}"
# Where a turn says who a relation is: "my old flatmate, Ilse", "my wife Anna", "my
# neighbour downstairs, Ilse,", "my boss is Sam", "my old flatmate, that's Ilse".
_REL_THEN_NAME = re.compile(
    rf"(?:\s+[a-z]+)?(?:,\s*|\s+)(?:(?:is|was|that's|that’s|that\s+is|means|called|named)"
    rf"(?:\s+called)?\s+)?(?P<name>{_NAME_RUN})"
)
# "Ilse, my old flatmate", "Ilse is my old flatmate", "Ilse (my old flatmate)".
_NAME_THEN_REL = re.compile(rf"(?P<name>{_NAME_RUN})(?:,\s*|\s+is\s+|\s+\()$")


@dataclass(frozen=True)
class Mention:
    """One key a passage holds: ``role`` is ``SPEAKER``, ``NAMED``, ``INITIAL``,
    ``RELATION`` or ``ALIAS`` (``key`` is then the name and ``alias`` the relation it
    stands for)."""

    key: str
    role: str
    alias: str = ""


def speaker_of(text: str) -> str | None:
    """The name a turn opens with before a colon, as transcripts mark who speaks."""
    match = _SPEAKER.match(text)
    if match is None:
        return None
    name = match.group(1)
    words = name.split()
    if any(word.casefold() in _NOT_SPEAKERS for word in words):
        return None
    everyday = name.casefold() in name_stop_words() and name.casefold() not in _EVERYDAY_NAMES
    if len(words) == 1 and (name.isupper() or everyday):
        return None  # "FYI:", "So:" — a heading, not a person
    return name


def unheaded(text: str) -> str:
    """A passage as the embedding model reads it: without a transcript's speaker heading
    ("Melanie: I took the kids …" → "I took the kids …"). Who speaks is a mention
    (``SPEAKER``), and its words stay in the full-text index; in the vector, a name
    heading every turn of a transcript outweighs what a short turn says ("Melanie: Thanks!"
    came nearest to every question about Melanie on the quality corpus)."""
    head = _SPEAKER.match(text)
    if head is None or speaker_of(text) is None:
        return text
    return text[head.end(1) + 1 :].lstrip()


def as_read(text: str, *, opens_turn: bool) -> str:
    """What the embedding model reads of a passage: a chat turn's first passage
    (``opens_turn``) ``unheaded``, anything else as it is. Indexing and re-embedding
    both read passages so."""
    return unheaded(text) if opens_turn else text


def mentions_in(text: str, *, speaker: str | None = None) -> list[Mention]:
    """The distinct keys of a passage. ``speaker``: who said it (a turn's ``speaker_of``
    its whole text, which a later passage of a long turn no longer starts with); the
    head naming them is then not read as a name in the text."""
    found: dict[tuple[str, str, str], Mention] = {}

    def add(key: str, role: str, alias: str = "") -> None:
        if key and len(key) <= KEY_MAX_LENGTH:
            found.setdefault((key, role, alias), Mention(key, role, alias))

    body = text
    if speaker:
        for key in speaker_keys(speaker):
            add(key, SPEAKER)
        head = _SPEAKER.match(text)
        if head and head.group(1) == speaker:
            body = " " * head.end(1) + text[head.end(1) :]
    teller = key_of(speaker) if speaker else ""
    for start, run in _capitalised_runs(body):
        role = INITIAL if _sentence_start(body, start) and " " not in run else NAMED
        for key in name_keys(run):
            add(key, role)
    for relation, start, end in relations_in(body):
        add(relation_key(teller, relation), RELATION)
        name = _named_with(body, start, end)
        if name:
            for key in name_keys(name):
                add(key, ALIAS, relation_key(teller, relation))
    return list(found.values())


def key_of(words: str) -> str:
    """How a name is stored and looked up: case-folded, without a possessive's "'s"."""
    return _POSSESSIVE.sub("", " ".join(words.split()).casefold().strip(".-&'’ "))


def name_keys(run: str) -> list[str]:
    """A run of capitalised words as keys: each word that can be a name, and the run
    whole when it has several ("Captain Squeak": captain, squeak, captain squeak)."""
    words = [key_of(word) for word in run.split()]
    keys = [word for word in words if _can_name(word)]
    if len(words) > 1 and keys:
        keys.append(" ".join(words))
    return keys


def speaker_keys(speaker: str) -> list[str]:
    """A transcript speaker's keys: ``name_keys``, and a lone name that is also an everyday
    word ("Will") as it is, the heading vouching for it."""
    if key_of(speaker) in _EVERYDAY_NAMES:
        return [key_of(speaker)]
    return name_keys(speaker)


def relation_key(teller: str, relation: str) -> str:
    """A relation as told by one speaker: "my mom" in Melanie's turns is Melanie's mother,
    in the user's own turns the user's (``teller`` empty)."""
    return f"{teller}|{' '.join(relation.casefold().split())}"


def relations_in(text: str) -> list[tuple[str, int, int]]:
    """The relations "my …" names in ``text`` (without "my"), with the span of each: up
    to two lower-case words before a person noun ("my old flatmate", "my ex-colleague"),
    and a possessive chain after it ("my wife's cousin")."""
    found = []
    for match in _MY.finditer(text):
        words = match.group(1).split()
        relation: list[str] = []
        for word in words:
            if not word.islower():
                break
            relation.append(word)
            if _is_relation_noun(word) and not word.endswith(("'s", "’s")):
                break
            if len(relation) == 3:
                relation = []
                break
        if not relation or not _is_relation_noun(relation[-1]):
            continue
        phrase = " ".join(relation)
        start = match.start(1)
        end = text.index(relation[-1], start + len(" ".join(relation[:-1]))) + len(relation[-1])
        found.append((phrase, match.start(), end))
    return found


@dataclass(frozen=True)
class AskedNames:
    """The keys a question could name someone or something by (``query_keys``).
    ``written``: capitalised where only names are, inside a sentence ("What does Ilse
    do …"), so the question itself vouches for them; ``opening``: a sentence's first
    word ("Lisbon trip budget"), where a capital says nothing, a name only if the user
    has written it as one somewhere."""

    written: tuple[str, ...] = ()
    opening: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.written or self.opening)


def query_keys(query: str) -> AskedNames:
    """The capitalised words and runs of a question that are not everyday words
    (whether the user ever named anyone so is for the index to say). A lone word opening
    a sentence and followed by an everyday word is left out: such a word is nearly always
    a verb ("Tell me …", "Return the …"); "Lisbon trip budget", "Ilse's kids?" and
    "Melanie?" keep theirs."""
    written: list[str] = []
    opening: list[str] = []
    for start, run in _capitalised_runs(query):
        keys = name_keys(run)
        if not _sentence_start(query, start) or " " in run:
            written += [key for key in keys if key not in written]
            continue
        following = NAME_WORD.search(query, start + len(run))
        if (
            _POSSESSIVE.search(run)
            or following is None
            or following.group().casefold() not in name_stop_words()
        ):
            opening += [key for key in keys if key not in opening]
    for word in NAME_WORD.finditer(query):
        key = key_of(word.group())
        if (
            word.group()[:1].isupper()
            and key in _EVERYDAY_NAMES
            and key not in written
            and not _sentence_start(query, word.start())
        ):
            written.append(key)
    return AskedNames(tuple(written), tuple(k for k in opening if k not in written))


def _is_relation_noun(word: str) -> bool:
    bare = _POSSESSIVE.sub("", word.casefold())
    for prefix in ("ex-", "step-"):
        bare = bare.removeprefix(prefix)
    return bare in RELATION_NOUNS


def _named_with(text: str, start: int, end: int) -> str | None:
    """The name a relation at ``start``–``end`` is said to be, either side of it."""
    after = _REL_THEN_NAME.match(text, end)
    if after and _can_name(key_of(after.group("name").split()[0])):
        return after.group("name")
    before = _NAME_THEN_REL.search(text, 0, start)
    if before and _can_name(key_of(before.group("name").split()[-1])):
        return before.group("name")
    return None


def _capitalised_runs(text: str) -> list[tuple[int, str]]:
    """Runs of capitalised words (start, text), each at most ``MAX_RUN_WORDS`` long;
    everyday words at a run's ends are left off ("The Crab Pot" → "Crab Pot")."""
    runs: list[tuple[int, str]] = []
    words = [m for m in NAME_WORD.finditer(text) if m.group()[:1].isupper()]
    current: list[re.Match[str]] = []
    for match in words:
        if (
            current
            and text[current[-1].end() : match.start()] == " "
            and (len(current) < MAX_RUN_WORDS)
        ):
            current.append(match)
            continue
        runs += _trimmed(text, current)
        current = [match]
    runs += _trimmed(text, current)
    return runs


def _trimmed(text: str, run: list[re.Match[str]]) -> list[tuple[int, str]]:
    while run and not _can_name(key_of(run[0].group())):
        run = run[1:]
    while run and not _can_name(key_of(run[-1].group())):
        run = run[:-1]
    if not run:
        return []
    return [(run[0].start(), text[run[0].start() : run[-1].end()].rstrip(".'’"))]


def _can_name(key: str) -> bool:
    return (
        len(key) > 1
        and key not in name_stop_words()
        and key not in _CALENDAR
        and key not in _NEVER
        and not key.isdigit()
    )


def _sentence_start(text: str, position: int) -> bool:
    before = text[:position].rstrip(" \t\"'“‘(*-")
    return not before or before[-1] in ".!?:;\n"
