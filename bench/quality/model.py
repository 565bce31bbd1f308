"""The retrieval-quality corpus as data: conversations of turns, and questions that name
the turns holding their answers. Stored as ``corpus.json`` next to this file.

A turn is addressed by its conversation's index in the corpus and its ``order`` there,
counted from 1 as the transcript import numbers messages (``Message.order``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

CORPUS_PATH = Path(__file__).resolve().parent / "corpus.json"

CATEGORIES = (
    "single-fact",
    "multi-hop",
    "temporal",
    "preference-update",
    "in-thread",
    "multi-session",
    "inferential",
)
# The families issue 31 added: answers gathered from several sessions, and answers that
# follow from turns naming none of the question's words (``lives``).
NEW_FAMILIES = ("multi-session", "inferential")
# An answer with several parts (one per evidence turn) is written as the parts joined so.
PART_SEPARATOR = "; "


@dataclass(frozen=True)
class Turn:
    role: str  # "user" | "assistant"
    content: str
    created_at: str  # ISO 8601 with offset, as the transcript API takes it


@dataclass(frozen=True)
class Conversation:
    title: str
    turns: list[Turn]


@dataclass(frozen=True)
class Evidence:
    """A turn holding (part of) an answer; ``contains`` is text that turn must contain."""

    conversation: int
    order: int
    contains: str


@dataclass(frozen=True)
class Question:
    id: str
    category: str
    question: str
    answer: str
    evidence: list[Evidence]
    # True when the answer text appears in no turn but the evidence: the labels are then
    # complete, since no other turn could answer the question as well.
    answer_only_in_evidence: bool = True
    # Preference updates: the earlier statements the evidence overrides, oldest first.
    superseded: list[Evidence] = field(default_factory=list)
    # How the evidence is told, when not as the user's own chat with the assistant:
    # ``speakers``, a transcript of two friends, each turn headed by its speaker's name
    # (``friends``). A family's variants are split into halves apart (``split_halves``).
    variant: str = ""


@dataclass(frozen=True)
class Corpus:
    seed: int
    conversations: list[Conversation]
    questions: list[Question]
    notes: list[str] = field(default_factory=list)

    @property
    def turn_count(self) -> int:
        return sum(len(conversation.turns) for conversation in self.conversations)

    def turn(self, evidence: Evidence) -> Turn:
        return self.conversations[evidence.conversation].turns[evidence.order - 1]


def answer_parts(answer: str) -> list[str]:
    """The parts of an answer: several for a gathered one, else the answer itself."""
    return answer.split(PART_SEPARATOR)


def corpus_dump(corpus: Corpus, path: Path = CORPUS_PATH) -> None:
    # One turn or question per line: small, and diffs of a regenerated corpus stay readable.
    data = asdict(corpus)
    lines = [
        f'{{"seed": {corpus.seed}, "notes": {json.dumps(data["notes"])},',
        '"conversations": [',
    ]
    for index, conversation in enumerate(data["conversations"]):
        lines.append(f'{{"title": {json.dumps(conversation["title"])}, "turns": [')
        turns = [json.dumps(turn, ensure_ascii=False) for turn in conversation["turns"]]
        lines.append(",\n".join(turns))
        lines.append("]}" + ("," if index < len(data["conversations"]) - 1 else ""))
    lines.append('], "questions": [')
    # A question without a variant is written without the field, as before variants were.
    questions = [
        {key: value for key, value in q.items() if key != "variant" or value}
        for q in data["questions"]
    ]
    lines.append(",\n".join(json.dumps(q, ensure_ascii=False) for q in questions))
    lines.append("]}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def corpus_load(path: Path = CORPUS_PATH) -> Corpus:
    data = json.loads(path.read_text(encoding="utf-8"))
    return Corpus(
        seed=data["seed"],
        notes=data.get("notes", []),
        conversations=[
            Conversation(title=c["title"], turns=[Turn(**t) for t in c["turns"]])
            for c in data["conversations"]
        ],
        questions=[
            Question(
                **{
                    **q,
                    "evidence": [Evidence(**e) for e in q["evidence"]],
                    "superseded": [Evidence(**e) for e in q.get("superseded", [])],
                }
            )
            for q in data["questions"]
        ],
    )


def split_halves(questions: list[Question]) -> tuple[list[Question], list[Question]]:
    """Tuning and test halves, each with half of every category and of each of its
    variants: within a category's variant the questions are ordered by a hash of their id
    and dealt alternately, so the split is fixed, independent of the corpus file's order,
    unrelated to the questions' text, and adding a variant moves no earlier question from
    its half."""
    tuning: list[Question] = []
    test: list[Question] = []
    for category, variant in sorted({(q.category, q.variant) for q in questions}):
        members = sorted(
            (q for q in questions if (q.category, q.variant) == (category, variant)),
            key=lambda q: hashlib.sha256(q.id.encode()).hexdigest(),
        )
        tuning += members[0::2]
        test += members[1::2]
    return tuning, test
