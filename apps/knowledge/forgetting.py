"""What retracting a claim hides, in words (issue 28): the flash after Retract and the
claim's page say exactly what answers no longer use — the claim, the chat turn it was taken
from (still shown in its conversation) and the facts derived from that turn — and Restore
brings all of it back. The hiding itself is search's rule (``apps.indexing.search``) and
``facts_relevant``'s; this module only reads what it covers."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.text import Truncator

from apps.claims.models import Claim
from apps.facts.models import ProjectFact
from apps.facts.wording import key_words
from apps.indexing.search import said_by, said_on


@dataclass(frozen=True)
class Forgotten:
    turn: str | None  # "your message of 3 May “I prefer morning workouts…”"
    facts: tuple[str, ...]  # "workout time = 7am"

    def sentence(self, *, label: str, restored: bool = False) -> str:
        """ "Retracted #3 “…”: answers no longer use it, nor your message of 3 May “…”
        (still shown in its conversation), nor 1 fact taken from it: …"."""
        parts = [self.turn + " (still shown in its conversation)"] if self.turn else []
        if self.facts:
            noun = "fact" if len(self.facts) == 1 else "facts"
            parts.append(f"{len(self.facts)} {noun} taken from it: {'; '.join(self.facts)}")
        if restored:
            also = f", with {' and '.join(parts)}" if parts else ""
            return f"Restored {label}: answers use it again{also}."
        nor = "".join(f", nor {part}" for part in parts)
        return f"Retracted {label}: answers no longer use it{nor}. Restore undoes it."

    def hidden_now(self) -> str:
        """What a retracted claim's page says is hidden with it."""
        parts = ["this claim"]
        if self.turn:
            parts.append(self.turn + " (still shown in its conversation)")
        if self.facts:
            parts.append("the facts taken from it: " + "; ".join(self.facts))
        return "Hidden from answers and memory search: " + ", ".join(parts) + "."


def claim_forgotten(*, claim: Claim) -> Forgotten:
    """What retracting ``claim`` hides besides the claim itself."""
    message = claim.source_message
    if message is None or message.conversation.user_id != claim.user_id:
        return Forgotten(turn=None, facts=())
    who = said_by(role=message.role, external_source=message.conversation.external_source)
    whose = "your message" if who == "You" else f"{who}'s message"
    opening = Truncator(" ".join(message.content.split())).chars(60)
    turn = f"{whose} of {said_on(message.created_at)} “{opening}”"
    facts = ProjectFact.objects.filter(
        source_message=message, is_current=True, project__owner=claim.user
    ).order_by("fact_key")
    return Forgotten(
        turn=turn,
        facts=tuple(f"{key_words(fact.fact_key)} = {fact.value_text}" for fact in facts[:20]),
    )
