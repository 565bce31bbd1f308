"""What a person or a model can do to a claim, one function each, whatever the door.

Every function takes the claim already fetched through a selector scoped to its user (or
its number, through ``memory_claim``), applies the rule once, and returns what changed
as a typed value; a service's ``ValidationError`` comes back as a ``MemoryRefusal``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError
from django.db import transaction

from apps.accounts.models import MemoryMode
from apps.claims.models import Claim, ClaimOrigin, ClaimStatus
from apps.claims.selectors import claim_by_number
from apps.claims.services import (
    claim_complete,
    claim_pin,
    claim_restore,
    claim_retract,
    claim_supersede,
)
from apps.contexts.services import context_transfer_memberships

from .dedupe import claim_add_or_reinforce
from .errors import ClaimNotFound, MemoryRefusal, refusal_from
from .schemas import CompleteInput, RememberInput, parse

if TYPE_CHECKING:
    from apps.accounts.models import User
    from apps.chat.models import Message

MEMORY_OFF = (
    "Memory is off in this user's settings: nothing is saved. They can turn it on under "
    "Settings in Cairn."
)


@dataclass(frozen=True)
class Remembered:
    claim: Claim
    created: bool  # False: the statement was known already and was reinforced

    @property
    def waits_for_review(self) -> bool:
        return self.claim.status == ClaimStatus.PENDING


@dataclass(frozen=True)
class Before:
    """A claim as it was before an action, for the words that say what changed."""

    number: int
    statement: str
    status: str


@dataclass(frozen=True)
class ClaimChanged:
    claim: Claim  # as it is now; after an edit, the new version
    before: Before


@contextmanager
def _refusing() -> Iterator[None]:
    try:
        yield
    except ValidationError as error:
        raise refusal_from(error) from error


def memory_claim(*, user: User, number: int) -> Claim:
    """The user's claim #number; another user's answers like a missing one."""
    claim = claim_by_number(user=user, number=number)
    if claim is None:
        raise ClaimNotFound("number", f"There is no claim #{number}.")
    return claim


def status_kept(*, user: User, asked_by_user: bool = False) -> str | None:
    """The user's memory mode, applied: the status a new memory gets (pending under
    "suggest", active under "auto"), or None under "off" (nothing is kept). What the user
    asked for is theirs, saved active whatever the mode."""
    if asked_by_user or user.memory_mode == MemoryMode.AUTO:
        return ClaimStatus.ACTIVE
    if user.memory_mode == MemoryMode.SUGGEST:
        return ClaimStatus.PENDING
    return None


def memory_remember(
    *,
    user: User,
    data: RememberInput,
    origin: str,
    origin_token_name: str = "",
    source_message: Message | None = None,
) -> Remembered:
    """Save a claim, or reinforce the one it repeats. What Cairn keeps of its own accord
    follows the user's memory mode (off: nothing; suggest: it waits for review; auto:
    used at once); what the user asked for is saved as asked."""
    status = status_kept(user=user, asked_by_user=data.asked_by_user)
    if status is None:
        raise MemoryRefusal("memory_mode", MEMORY_OFF)
    with _refusing():
        claim, created = claim_add_or_reinforce(
            user=user,
            statement=data.statement,
            claim_types=list(data.claim_types),
            possible_questions=list(data.possible_questions),
            origin=origin,
            origin_token_name=origin_token_name,
            source_message=source_message,
            status=status,
        )
    return Remembered(claim=claim, created=created)


NOT_YOUR_WORDS = (
    "Only your own messages can be saved as a memory: an answer is Cairn's words, not "
    "something you said."
)


def memory_remember_message(*, user: User, message: Message, statement: str) -> Remembered:
    """Save what the user said in ``message`` (or their edit of it, ``statement``) as a
    memory linked to it: the person's own act, saved as asked whatever the memory mode.
    Only the user's own words: an answer of Cairn's is not something they said (the page
    offers the action on their messages alone, and every door refuses the rest alike)."""
    if message.role != "user":
        raise MemoryRefusal("message", NOT_YOUR_WORDS)
    data = parse(RememberInput, {"statement": statement, "asked_by_user": True})
    return memory_remember(user=user, data=data, origin=ClaimOrigin.CHAT, source_message=message)


def _changed(claim: Claim, work: Callable[[], Claim]) -> ClaimChanged:
    before = Before(number=claim.number, statement=claim.statement, status=claim.status)
    with _refusing():
        now = work()
    now.refresh_from_db()
    return ClaimChanged(claim=now, before=before)


def memory_edit(*, claim: Claim, statement: str, **fields: Any) -> ClaimChanged:
    """Edit has one meaning at every door: a new version replaces the claim (in its
    contexts too) and the old one stays as its history. ``fields`` are
    ``claim_supersede``'s optional ones (types, domains, questions, pin, …)."""

    @transaction.atomic
    def supersede() -> Claim:
        new = claim_supersede(claim=claim, statement=statement, **fields)
        context_transfer_memberships(old=claim, new=new)
        return new

    return _changed(claim, supersede)


def memory_complete(*, claim: Claim, data: CompleteInput) -> ClaimChanged:
    """A goal or task done, a shopping item ticked off: history, not retracted."""
    return _changed(claim, lambda: claim_complete(claim=claim, action=data.action, note=data.note))


def memory_restore(*, claim: Claim) -> ClaimChanged:
    """A done item back on its list, or a retracted claim back in the answers."""
    return _changed(claim, lambda: claim_restore(claim=claim))


def memory_retract(*, claim: Claim) -> ClaimChanged:
    """The claim, the turn it was taken from and the facts derived from that turn leave
    every answer (issue 28); ``memory_restore`` undoes it."""
    return _changed(claim, lambda: claim_retract(claim=claim))


def memory_pin(*, claim: Claim, pinned: bool) -> ClaimChanged:
    """Pinned claims are standing context for every answer (and cited only when
    relevant, issue 28); unpinning takes one out of that background."""
    return _changed(claim, lambda: claim_pin(claim=claim, pinned=pinned))
