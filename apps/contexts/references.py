"""Resolving ``@references``: one identifier to the claims it stands for (DESIGN §5).

Order for one identifier: ``claim_N`` → claim friendly ID (an earlier version's number or
name, or an old name, finds the current version with a note) → context friendly ID or a
former one (the whole subtree) → entity → tag (with its child tags) → domain → context
name → not found. A missing reference is a result carrying a message for the user, never
an exception.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from django.db.models import QuerySet

from apps.claims.models import USABLE_STATUSES, Claim, Domain
from apps.claims.resolve import (
    ClaimFound,
    claim_found_by_friendly_id,
    claim_found_by_id,
    claim_found_by_number,
)
from apps.claims.selectors import (
    LeanClaim,
    claims_for_domain,
    claims_for_entity,
    claims_for_tag,
    entity_list,
    lean_claim,
    lean_claims,
    tag_list,
)

from .models import Context
from .reference_parser import ParsedReference, parse_references
from .selectors import (
    context_find,
    context_find_by_alias,
    context_find_by_name,
    context_resolve_claims,
)

if TYPE_CHECKING:
    from apps.accounts.models import User

ResolutionKind = Literal["claim", "context", "entity", "tag", "domain", "not_found"]
_CLAIM_NUMBER = re.compile(r"^claim_(\d{1,18})$", re.IGNORECASE)
MAX_IDENTIFIER_LENGTH = 128
MAX_LABEL_CLAIMS = 500
_IDENTIFIER = re.compile(rf"^[A-Za-z][A-Za-z0-9_-]{{0,{MAX_IDENTIFIER_LENGTH - 1}}}$")


@dataclass(frozen=True)
class ReferenceResolution:
    identifier: str
    kind: ResolutionKind
    label: str
    claims: tuple[LeanClaim, ...] = ()
    object_id: uuid.UUID | None = None
    title: str = ""
    message: str = ""
    span: tuple[int, int] | None = field(default=None, compare=False)

    @property
    def found(self) -> bool:
        return self.kind != "not_found"


def _lean(claims: QuerySet[Claim]) -> tuple[LeanClaim, ...]:
    # A domain or a broad tag can hold thousands of claims, more than any prompt can use:
    # the newest MAX_LABEL_CLAIMS come back (a context resolves whole; DESIGN §4).
    return tuple(lean_claims(claims, limit=MAX_LABEL_CLAIMS))


def _not_found(identifier: str, message: str | None = None) -> ReferenceResolution:
    return ReferenceResolution(
        identifier=identifier,
        kind="not_found",
        label=f"@{identifier}",
        message=message or f"Nothing in your memory is called @{identifier}.",
    )


def resolve_reference(user: User, identifier: str) -> ReferenceResolution:
    """Resolve one identifier (without the ``@``) for ``user`` only."""
    identifier = (identifier or "").strip().lstrip("@")
    if not _IDENTIFIER.match(identifier):
        # Control characters, SQL or regex syntax never reach a query: not an identifier.
        printable = "".join(ch for ch in identifier[:40] if ch.isprintable())
        return _not_found(printable, "That is not a reference Cairn can look up.")
    label = f"REFERENCED @{identifier}"

    number = _CLAIM_NUMBER.match(identifier)
    if number:
        found = claim_found_by_number(user=user, number=int(number.group(1)))
        if found is None:
            return _not_found(identifier, f"You have no claim #{number.group(1)}.")
        return _claim_result(identifier, label, found)

    key = identifier.lower()
    found = claim_found_by_friendly_id(user=user, friendly_id=key)
    if found is not None:
        return _claim_result(identifier, label, found)

    context = context_find(user=user, friendly_id=key)
    if context is not None:
        return _context_result(user, identifier, label, context)
    alias = context_find_by_alias(user=user, friendly_id=key)
    if alias is not None:
        note = f"@{key} is now @{alias.friendly_id}."
        return _context_result(user, identifier, label, alias, message=note)

    entity = entity_list(user=user).filter(friendly_id=key).first()
    if entity is not None:
        return ReferenceResolution(
            identifier=identifier,
            kind="entity",
            label=label,
            object_id=entity.id,
            title=entity.name,
            claims=_lean(claims_for_entity(user=user, entity=entity)),
        )

    tag = tag_list(user=user).filter(friendly_id=key).first()
    if tag is not None:
        return ReferenceResolution(
            identifier=identifier,
            kind="tag",
            label=label,
            object_id=tag.id,
            title=tag.name,
            claims=_lean(claims_for_tag(user=user, tag=tag)),
        )

    if key.endswith("_domain") and key.removesuffix("_domain") in Domain.values:
        domain = key.removesuffix("_domain")
        return ReferenceResolution(
            identifier=identifier,
            kind="domain",
            label=label,
            title=Domain(domain).label,
            claims=_lean(claims_for_domain(user=user, domain=domain)),
        )

    context = context_find_by_name(user=user, name=identifier)
    if context is not None:
        return _context_result(user, identifier, label, context)
    return _not_found(identifier)


def resolve_uuid_reference(user: User, claim_id: str) -> ReferenceResolution:
    """``@memory:<uuid>``: a claim by its UUID, labelled as a plain reference."""
    try:
        found = claim_found_by_id(user=user, claim_id=uuid.UUID(claim_id))
    except ValueError:
        found = None
    if found is None:
        return _not_found(f"memory:{claim_id}", "No memory with that id.")
    return _claim_result(f"memory:{claim_id}", "REFERENCED", found)


def _claim_result(identifier: str, label: str, found: ClaimFound) -> ReferenceResolution:
    """A reference to an earlier version or an old name brings the current version, with
    a note. A retracted, superseded or pending claim resolves (the user named it) but
    brings no claim into the answer, which uses only active and contested ones; the
    message says so."""
    claim = found.claim
    usable = claim.status in USABLE_STATUSES
    status = "" if usable else f"#{claim.number} is {claim.get_status_display().lower()}."
    message = " ".join(part for part in (found.note, status) if part)
    claims = (lean_claim(claim),) if usable else ()
    return ReferenceResolution(
        identifier=identifier,
        kind="claim",
        label=label,
        object_id=claim.id,
        title=f"#{claim.number}",
        claims=claims,
        message=message,
    )


def _context_result(
    user: User, identifier: str, label: str, context: Context, *, message: str = ""
) -> ReferenceResolution:
    return ReferenceResolution(
        identifier=identifier,
        kind="context",
        label=label,
        object_id=context.id,
        title=context.name,
        claims=tuple(context_resolve_claims(user=user, context=context)),
        message=message,
    )


def resolve_parsed(user: User, reference: ParsedReference) -> ReferenceResolution:
    if reference.kind == "uuid":
        result = resolve_uuid_reference(user, reference.identifier)
    else:
        result = resolve_reference(user, reference.identifier)
    return ReferenceResolution(**{**result.__dict__, "span": (reference.start, reference.end)})


def resolve_message(
    user: User, text: str, *, ranks: Sequence[tuple[int, int]] = ()
) -> tuple[str, list[ReferenceResolution]]:
    """Parse a whole message and resolve each reference in order: (clean text, results).
    ``ranks`` are the message's rank spans (the facts extractor's; contexts cannot read
    them itself), so "#1" in "my #1 crypto" is no claim here either."""
    parsed = parse_references(text, ranks=ranks)
    return parsed.clean_text, [resolve_parsed(user, ref) for ref in parsed.references]
