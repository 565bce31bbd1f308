"""From the wire to a KnowledgeDocument, or a ValidationError listing every problem."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils import timezone

from apps.claims.models import ClaimOrigin, ClaimStatus, EntityType
from apps.claims.services.labels import MAX_TAG_DEPTH
from apps.claims.services.validation import (
    clean_claim_types,
    clean_confidence,
    clean_domains,
    clean_friendly_id,
    clean_questions,
    clean_statement,
    clean_status,
)
from apps.contexts.models import MAX_CONTEXT_DEPTH
from apps.core.validation import input_problem

from .reader import DocumentErrors, ObjectReader
from .records import (
    FORMAT_NAME,
    FORMAT_VERSION,
    ClaimRecord,
    ContextRecord,
    EntityRecord,
    KnowledgeDocument,
    MembershipRecord,
    TagRecord,
)


def document_parse(raw: Any) -> KnowledgeDocument:
    errors = DocumentErrors()
    # The door every HTTP request passes (apps/core/middleware.py), for the command too:
    # NUL, surrogates, huge integers and deep nesting anywhere, metadata included.
    problem = input_problem(raw)
    if problem is not None:
        errors.add(problem.field, problem.message)
        errors.raise_if_any()
    top = ObjectReader(raw, "", errors)
    if top.raw.get("format") != FORMAT_NAME:
        errors.add("format", f"Not a Cairn knowledge document (expected format '{FORMAT_NAME}').")
    elif top.raw.get("version") != FORMAT_VERSION:
        errors.add(
            "version",
            f"Unsupported version {top.raw.get('version')!r}; this Cairn "
            f"reads version {FORMAT_VERSION}.",
        )
    errors.raise_if_any()  # a foreign document is not worth reading further
    document = KnowledgeDocument(
        last_claim_number=top.integer("last_claim_number"),
        claims=[_claim(item, f"claims[{i}]", errors) for i, item in enumerate(top.items("claims"))],
        contexts=[
            _context(item, f"contexts[{i}]", errors) for i, item in enumerate(top.items("contexts"))
        ],
        tags=[_tag(item, f"tags[{i}]", errors) for i, item in enumerate(top.items("tags"))],
        entities=[
            _entity(item, f"entities[{i}]", errors) for i, item in enumerate(top.items("entities"))
        ],
    )
    _check_links(document, errors)
    errors.raise_if_any()
    return document


def _friendly_id(reader: ObjectReader, kind: str) -> str:
    return reader.cleaned(
        "friendly_id",
        lambda value: clean_friendly_id(value, kind=kind),
        reader.text("friendly_id"),
        "",
    )


def _claim(raw: Any, path: str, errors: DocumentErrors) -> ClaimRecord:
    r = ObjectReader(raw, path, errors)
    valid_from, valid_until = r.moment("valid_from"), r.moment("valid_until")
    if valid_from and valid_until and valid_until < valid_from:
        r.fail("valid_until", "A claim cannot stop being valid before it starts.")
    return ClaimRecord(
        id=r.text("id", required=True, max_length=100),
        number=r.integer("number", required=True, minimum=1),
        friendly_id=_friendly_id(r, "claim"),
        statement=r.cleaned("statement", clean_statement, r.text("statement"), ""),
        claim_types=r.cleaned("claim_types", clean_claim_types, r.strings("claim_types"), []),
        domains=r.cleaned("domains", clean_domains, r.strings("domains"), []),
        status=r.cleaned("status", clean_status, r.text("status", default="active"), ""),
        possible_questions=r.cleaned(
            "possible_questions", clean_questions, r.strings("possible_questions"), []
        ),
        pinned=r.boolean("pinned"),
        confidence=r.cleaned(
            "confidence", clean_confidence, r.number("confidence", default=1.0), 1.0
        ),
        valid_from=valid_from,
        valid_until=valid_until,
        supersedes=r.ref("supersedes"),
        origin=r.choice("origin", ClaimOrigin.values, default=ClaimOrigin.IMPORTED),
        origin_token_name=r.text("origin_token_name", max_length=100),
        source_message=r.ref("source_message"),
        metadata=r.mapping("metadata"),
        reinforced_count=r.integer("reinforced_count"),
        created_at=r.timestamp("created_at"),
        updated_at=r.timestamp("updated_at"),
    )


def _membership(raw: Any, path: str, errors: DocumentErrors) -> MembershipRecord:
    if isinstance(raw, str):  # a bare claim id, for hand-written documents
        return MembershipRecord(claim=raw, added_at=timezone.now())
    r = ObjectReader(raw, path, errors)
    return MembershipRecord(claim=r.text("claim", required=True), added_at=r.timestamp("added_at"))


def _context(raw: Any, path: str, errors: DocumentErrors) -> ContextRecord:
    r = ObjectReader(raw, path, errors)
    return ContextRecord(
        id=r.text("id", required=True, max_length=100),
        friendly_id=_friendly_id(r, "context"),
        name=r.text("name", required=True, max_length=200).strip(),
        description=r.text("description"),
        parent=r.ref("parent"),
        claims=[
            _membership(item, f"{path}.claims[{i}]", errors)
            for i, item in enumerate(r.items("claims"))
        ],
        created_at=r.timestamp("created_at"),
        updated_at=r.timestamp("updated_at"),
    )


def _tag(raw: Any, path: str, errors: DocumentErrors) -> TagRecord:
    r = ObjectReader(raw, path, errors)
    return TagRecord(
        id=r.text("id", required=True, max_length=100),
        friendly_id=_friendly_id(r, "tag"),
        name=r.text("name", required=True, max_length=100).strip(),
        parent=r.ref("parent"),
        claims=r.strings("claims"),
        created_at=r.timestamp("created_at"),
        updated_at=r.timestamp("updated_at"),
    )


def _entity(raw: Any, path: str, errors: DocumentErrors) -> EntityRecord:
    r = ObjectReader(raw, path, errors)
    return EntityRecord(
        id=r.text("id", required=True, max_length=100),
        friendly_id=_friendly_id(r, "entity"),
        name=r.text("name", required=True, max_length=200).strip(),
        entity_type=r.choice("entity_type", EntityType.values, default=EntityType.THING),
        description=r.text("description"),
        claims=r.strings("claims"),
        created_at=r.timestamp("created_at"),
        updated_at=r.timestamp("updated_at"),
    )


def _unique(kind: str, values: Sequence[Any], field: str, errors: DocumentErrors) -> None:
    first: dict[Any, int] = {}
    for index, value in enumerate(values):
        if value is None:
            continue
        if value in first:
            errors.add(
                f"{kind}[{index}].{field}",
                f"{value!r} is also the {field} of {kind}[{first[value]}].",
            )
        else:
            first[value] = index


def _of_current(claims: Sequence[ClaimRecord], field: str) -> list[Any]:
    """``field`` of each current claim; None (not compared) for the superseded versions."""
    return [
        None if claim.status == ClaimStatus.SUPERSEDED else getattr(claim, field)
        for claim in claims
    ]


def _check_claim_refs(
    path: str, refs: Sequence[str], claim_ids: set[str], errors: DocumentErrors
) -> None:
    for ref in sorted(set(refs) - claim_ids):
        errors.add(path, f"No claim has the id {ref!r}.")
    if len(set(refs)) != len(refs):
        errors.add(path, "A claim is listed twice.")


def _check_tree(
    kind: str, nodes: Sequence[ContextRecord | TagRecord], max_depth: int, errors: DocumentErrors
) -> None:
    """Parents exist, no cycles, at most ``max_depth`` levels (a root is level 1)."""
    parent_of = {node.id: node.parent for node in nodes}
    for index, node in enumerate(nodes):
        if node.parent is not None and node.parent not in parent_of:
            errors.add(f"{kind}[{index}].parent", f"No {kind[:-1]} has the id {node.parent!r}.")
            continue
        seen, current, depth = {node.id}, node.parent, 1
        while current is not None:
            if current in seen:
                errors.add(f"{kind}[{index}].parent", "The parents form a cycle.")
                break
            depth += 1
            if depth > max_depth:
                errors.add(
                    f"{kind}[{index}].parent",
                    f"{kind.capitalize()} nest at most {max_depth} levels deep.",
                )
                break
            seen.add(current)
            current = parent_of.get(current)


def _check_links(document: KnowledgeDocument, errors: DocumentErrors) -> None:
    claims = document.claims
    # A memory's earlier (superseded) versions share its number and friendly ID.
    _unique("claims", [claim.id for claim in claims], "id", errors)
    _unique("claims", _of_current(claims, "friendly_id"), "friendly_id", errors)
    for kind, records in (
        ("contexts", document.contexts),
        ("tags", document.tags),
        ("entities", document.entities),
    ):
        _unique(kind, [record.id for record in records], "id", errors)
        _unique(kind, [record.friendly_id for record in records], "friendly_id", errors)
    _unique("claims", _of_current(claims, "number"), "number", errors)
    claim_ids = {claim.id for claim in claims}
    _check_supersession(claims, claim_ids, errors)
    _check_tree("contexts", document.contexts, MAX_CONTEXT_DEPTH, errors)
    _check_tree("tags", document.tags, MAX_TAG_DEPTH, errors)
    for index, context in enumerate(document.contexts):
        _check_claim_refs(
            f"contexts[{index}].claims", [m.claim for m in context.claims], claim_ids, errors
        )
    labelled: list[tuple[str, Sequence[TagRecord | EntityRecord]]] = [
        ("tags", document.tags),
        ("entities", document.entities),
    ]
    for kind, labels in labelled:
        for index, label in enumerate(labels):
            _check_claim_refs(f"{kind}[{index}].claims", label.claims, claim_ids, errors)
    last_number = max((claim.number for claim in claims), default=0)
    if document.last_claim_number and document.last_claim_number < last_number:
        errors.add("last_claim_number", f"Must be at least the highest number ({last_number}).")


def _check_supersession(
    claims: Sequence[ClaimRecord], claim_ids: set[str], errors: DocumentErrors
) -> None:
    """Each link names a claim of the document, a claim is replaced at most once, and no
    chain runs in a circle."""
    replaced_by: dict[str, int] = {}
    for index, claim in enumerate(claims):
        target = claim.supersedes
        if target is None:
            continue
        if target not in claim_ids:
            errors.add(f"claims[{index}].supersedes", f"No claim has the id {target!r}.")
        elif target in replaced_by:
            errors.add(
                f"claims[{index}].supersedes",
                f"{target!r} is already superseded by claims[{replaced_by[target]}].",
            )
        else:
            replaced_by[target] = index
    # Walk each chain once: 1 = on the chain being walked, 2 = known to end.
    supersedes = {claim.id: claim.supersedes for claim in claims}
    state: dict[str, int] = {}
    for index, claim in enumerate(claims):
        chain: list[str] = []
        current: str | None = claim.id
        while current is not None and current not in state:
            state[current] = 1
            chain.append(current)
            current = supersedes.get(current)
        if current is not None and state[current] == 1:
            errors.add(f"claims[{index}].supersedes", "The supersession links form a cycle.")
        for node in chain:
            state[node] = 2
