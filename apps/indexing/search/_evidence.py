"""Evidence is what someone said or wrote (DESIGN §6, issue 28): the one rule every door
applies — the chat turn, the ``memory_search`` tool, REST search and MCP ``search_memory``.

Evidence is the user's own statements, their files, claims and facts, and the turns of
conversations they imported (ChatGPT's and Claude's answers among them). Not evidence:

- Cairn's own answers: a later answer citing them cites an echo, and a chain of echoes
  ("On 27 Nov I said: '- lease.pdf says: …'"); their sources are found on their own;
- a bare question of the user's ("What is my rent?"): it holds nothing to cite;
- a turn that failed or was stopped;
- a turn a retracted claim was taken from: forgetting the claim forgets where it came from
  (the turn stays in its conversation; Restore brings it back).

A hit is relevant to a question when its words clearly match (its BM25 score in the head
of its list) or its meaning does (cosine at or above the cite threshold): the threshold
applies to the fused evidence, never to the vector alone (a file that says "Pi-hole at
192.168.8.53" is the answer to "the Pi-hole's IP address" whatever its cosine).

Chat turns are titled by who said them and when, with the year when it is not this year:
"You, 3 May", "ChatGPT, 6 May 2024".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Protocol, TypeVar

from apps.claims.models import Claim, ClaimStatus
from apps.core.date_labels import day_label
from apps.core.words import STOP_WORDS

from ._quoting import quotable

if TYPE_CHECKING:
    from apps.accounts.models import User

# Who wrote an imported conversation's answers, by the export's source.
ASSISTANT_NAMES = {"chatgpt": "ChatGPT", "claude": "Claude"}
# A clear word match (``relevant``): in the head of the BM25 list, holding this share of
# the question's content words.
WORD_HEAD_SHARE = 0.5
WORD_COVER_SHARE = 0.5
_WORD = re.compile(r"[a-z0-9]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def said_by(*, role: str, external_source: str = "") -> str:
    """Who wrote a chat turn: "You", the assistant of an imported chat, or "Cairn"."""
    if role == "user":
        return "You"
    return ASSISTANT_NAMES.get(external_source, "Cairn" if not external_source else "Assistant")


def said_on(moment: datetime, *, now: datetime | None = None) -> str:
    """ "3 May" this year, "6 May 2024" another year: the site's one date format."""
    return day_label(moment, now=now)


def turn_title(
    *, role: str, external_source: str, created_at: datetime, text: str, now: datetime | None = None
) -> str:
    """ "ChatGPT, 6 May 2024: first words…": who, when and what."""
    words = " ".join(quotable(text).split())
    opening = words if len(words) <= 60 else words[:59].rstrip() + "…"
    who = said_by(role=role, external_source=external_source)
    return f"{who}, {said_on(created_at, now=now)}: {opening}"


def is_bare_question(text: str) -> bool:
    """Whether a passage only asks ("When is my dentist appointment?"): every sentence of
    it is a question, so it holds nothing to cite."""
    sentences = [part for part in _SENTENCE_END.split(text.strip()) if part.strip()]
    return bool(sentences) and all(part.rstrip().endswith("?") for part in sentences)


def hidden_message_ids(*, user: User) -> list[str]:
    """Ids of the user's chat turns that retracted claims were taken from."""
    ids = Claim.objects.filter(
        user=user, status=ClaimStatus.RETRACTED, source_message__isnull=False
    ).values_list("source_message_id", flat=True)
    return [str(message_id) for message_id in ids.distinct()]


def is_evidence(*, role: str, status: str, external_source: str, content: str) -> bool:
    """Whether a chat turn is evidence (the module docstring): a finished turn of the
    user's that says something, or of an imported conversation's assistant."""
    if status != "complete":
        return False
    if role == "assistant":
        return bool(external_source)  # ChatGPT's or Claude's, not Cairn's
    return not is_bare_question(quotable(content))


class Scored(Protocol):
    @property
    def vector_similarity(self) -> float | None: ...

    @property
    def text_rank(self) -> float | None: ...

    @property
    def text(self) -> str: ...

    @property
    def in_period(self) -> bool: ...


H = TypeVar("H", bound=Scored)


def relevant(hits: Sequence[H], *, question: str, threshold: float) -> list[H]:
    """The hits relevant to ``question``, in their order: a clear word match, a close
    meaning (cosine at or above ``threshold``), or a turn said in the period the question
    names ("in May 2024").

    A word match is clear when the hit is in the head of the BM25 list (at least
    ``WORD_HEAD_SHARE`` of the best score) and holds at least ``WORD_COVER_SHARE`` of the
    question's content words: BM25 alone ranks whatever shares any word, and its scale
    depends on the size of the account (two rows weigh a rare word at 0.7, two thousand at
    7), so the head is told by share, not by a fixed score."""
    ranks = [hit.text_rank for hit in hits if hit.text_rank is not None]
    head = WORD_HEAD_SHARE * max(ranks, default=0.0)
    wanted = content_words(question)
    return [
        hit
        for hit in hits
        if (hit.vector_similarity is not None and hit.vector_similarity >= threshold)
        or hit.in_period
        or (
            hit.text_rank is not None
            and hit.text_rank >= head
            and covers(wanted, hit.text) >= WORD_COVER_SHARE
        )
    ]


def content_words(text: str) -> set[str]:
    """The words that carry ``text``'s meaning, lower-case and crudely stemmed."""
    return {
        _stem(word)
        for word in _WORD.findall(text.lower())
        if word not in STOP_WORDS and (len(word) > 1 or word.isdigit())
    }


def covers(wanted: set[str], text: str) -> float:
    """The share of ``wanted`` words that ``text`` holds (0 when nothing is wanted)."""
    if not wanted:
        return 0.0
    return len(wanted & content_words(text)) / len(wanted)


def _stem(word: str) -> str:
    """Enough stemming for a word match: "workouts" → "workout", "bought" stays."""
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word
