"""Read helpers shared by the knowledge editor (admin) and the Knowledge page."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from django.urls import NoReverseMatch, reverse

from apps.claims.models import Claim, ClaimType, Domain

if TYPE_CHECKING:
    from apps.chat.models import Message

MAX_CHAIN = 25
NUMBER_TERM = re.compile(r"^#?(\d{1,9})$")


def supersession_chain(*, claim: Claim) -> list[Claim]:
    """Oldest first: the claims ``claim`` replaced, itself, and those that replaced it.

    Supersession only ever links a user's claims to each other (claim_supersede creates
    the new claim for the old one's owner), so the chain never leaves the owner."""
    older: list[Claim] = []
    node = claim.supersedes
    while node is not None and len(older) < MAX_CHAIN:
        older.append(node)
        node = node.supersedes
    newer: list[Claim] = []
    current = claim
    while len(newer) < MAX_CHAIN:
        try:
            current = current.superseded_by
        except Claim.DoesNotExist:
            break
        newer.append(current)
    return [*reversed(older), claim, *newer]


def source_message_url(message: Message) -> str | None:
    """Where the message that produced a claim can be read, when the chat has such a page."""
    try:
        url = reverse("chat:conversation", args=[message.conversation_id])
    except NoReverseMatch:
        return None
    return f"{url}#message-{message.pk}"


def type_labels(values: list[str]) -> list[str]:
    labels = dict(ClaimType.choices)
    return [str(labels.get(value, value)) for value in values]


def domain_labels(values: list[str]) -> list[str]:
    labels = dict(Domain.choices)
    return [str(labels.get(value, value)) for value in values]


def number_from_term(term: str) -> int | None:
    """``42`` or ``#42`` → 42: how people type a claim number into a search box."""
    match = NUMBER_TERM.match(term.strip())
    return int(match.group(1)) if match else None
