"""The data step of the migration to plain friendly IDs (issue 30): ``allergic_penicillin_01c1``
→ ``allergic_penicillin``, ``fitness_0a35_context`` → ``fitness``, wherever the plain form is
free in the user's shared ``@name`` space; each old ID stays as an alias, so ``@references``
in earlier messages still resolve.

It lives in contexts because it needs both kinds (contexts may read claims, not the
reverse) and works on the migration's historical models, passed in as ``apps``."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from itertools import chain
from typing import Any

from apps.claims.friendly_ids import meaningful_words, validate_friendly_id

_GENERATED_CLAIM = re.compile(r"^(?P<stem>[a-z][a-z0-9_]*?)_[0-9a-f]{4}$")
_GENERATED_CONTEXT = re.compile(r"^(?P<stem>[a-z][a-z0-9_]*?)_[0-9a-f]{4}_context$")


def _plain(
    friendly_id: str, texts: Iterable[str], pattern: re.Pattern[str], kind: str
) -> str | None:
    """The hash-free form of a generated ID, or None when the ID was not generated from
    one of ``texts`` (a user's choice, or text edited since) and so is left alone."""
    match = pattern.match(friendly_id)
    if match is None:
        return None
    stem = match.group("stem")
    for text in texts:
        words = "_".join(meaningful_words(text))
        if words == stem or words.startswith(f"{stem}_"):
            return stem if validate_friendly_id(stem, kind=kind) is None else None
    return None


def plain_friendly_ids(apps: Any, schema_editor: Any = None) -> None:
    """Rename generated claim and context IDs to their plain form where it is unique."""
    Claim = apps.get_model("claims", "Claim")
    ClaimAlias = apps.get_model("claims", "ClaimAlias")
    Context = apps.get_model("contexts", "Context")
    ContextAlias = apps.get_model("contexts", "ContextAlias")

    taken: dict[int, set[str]] = defaultdict(set)
    for model in (Claim, ClaimAlias, Context, ContextAlias):
        for user_id, friendly_id in model.objects.values_list("user_id", "friendly_id"):
            taken[user_id].add(friendly_id)

    # Oldest first: on a clash between two plain forms the older memory keeps the name.
    claims = Claim.objects.exclude(status="superseded").order_by("user_id", "number")
    for claim in claims.only("id", "user_id", "number", "friendly_id", "statement").iterator():
        # The name came from the first version's words: versions share number and name.
        versions = Claim.objects.filter(
            user_id=claim.user_id, number=claim.number, friendly_id=claim.friendly_id
        ).order_by("created_at")
        texts = chain([claim.statement], versions.values_list("statement", flat=True))
        plain = _plain(claim.friendly_id, texts, _GENERATED_CLAIM, "claim")
        if plain is None or plain in taken[claim.user_id]:
            continue
        ClaimAlias.objects.create(
            user_id=claim.user_id, friendly_id=claim.friendly_id, claim_id=claim.id
        )
        # Its earlier versions share its number and, from now on, its name.
        Claim.objects.filter(
            user_id=claim.user_id, number=claim.number, friendly_id=claim.friendly_id
        ).update(friendly_id=plain)
        taken[claim.user_id].add(plain)

    contexts = Context.objects.order_by("user_id", "created_at")
    for context in contexts.only("id", "user_id", "friendly_id", "name").iterator():
        plain = _plain(context.friendly_id, [context.name], _GENERATED_CONTEXT, "context")
        if plain is None or plain in taken[context.user_id]:
            continue
        ContextAlias.objects.create(
            user_id=context.user_id, friendly_id=context.friendly_id, context_id=context.id
        )
        Context.objects.filter(pk=context.pk).update(friendly_id=plain)
        taken[context.user_id].add(plain)
