"""Export and import of a whole account: a round trip loses nothing, a bad document or a
non-empty account writes nothing."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command

from apps.accounts.models import User
from apps.claims.models import Claim, ClaimCounter
from apps.claims.services import claim_create
from apps.claims.signals import claims_content_changed
from apps.contexts.models import Context
from apps.contexts.services import context_create
from apps.knowledge.portability import AccountNotEmptyError, knowledge_export, knowledge_import
from tests.factories import UserFactory
from tests.knowledge.rich_account import build_rich_account, snapshot

pytestmark = pytest.mark.django_db


@pytest.fixture
def rich_user(user: User) -> User:
    build_rich_account(user)
    return user


def test_round_trip_keeps_every_field_and_link(
    rich_user: User, other_user: User, django_capture_on_commit_callbacks: Any
) -> None:
    document = json.loads(json.dumps(knowledge_export(user=rich_user)))  # through JSON text
    sent: list[list[Any]] = []

    def listener(claim_ids: list[Any], **kwargs: Any) -> None:
        sent.append(claim_ids)

    claims_content_changed.connect(listener)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            report = knowledge_import(user=other_user, document=document)
    finally:
        claims_content_changed.disconnect(listener)

    original, copy = snapshot(rich_user), snapshot(other_user)
    assert copy == original
    assert len(original["claims"]) == 10
    assert original["counter"] == 9
    assert original["claims"][(8, 0)]["reinforced_count"] == 1
    assert original["claims"][(8, 2)]["supersedes"] == (8, 1)
    assert original["contexts"]["ssdva"]["parent"] is not None
    assert (report.claims, report.contexts, report.tags, report.entities) == (10, 4, 2, 2)
    assert (report.memberships, report.links, report.last_claim_number) == (8, 6, 9)
    # New rows, not the old ones re-owned; embeddings are recomputed from the signal.
    assert not set(report.id_map["claims"]) & set(report.id_map["claims"].values())
    assert sorted(map(str, sent[0])) == sorted(report.id_map["claims"].values())
    # Conversations are not part of the document, so the source message link is dropped.
    assert Claim.objects.filter(user=rich_user, source_message__isnull=False).count() == 1
    assert not Claim.objects.filter(user=other_user, source_message__isnull=False).exists()


def test_numbering_continues_after_the_import(rich_user: User, other_user: User) -> None:
    knowledge_import(user=other_user, document=knowledge_export(user=rich_user))

    assert claim_create(user=other_user, statement="After import").number == 10


def test_the_document_lists_every_claim_field(rich_user: User) -> None:
    document = knowledge_export(user=rich_user)

    assert (document["format"], document["version"]) == ("cairn-knowledge", 1)
    exported = set(document["claims"][0])
    assert {f.name for f in Claim._meta.concrete_fields} - exported == {
        "user",
        "embedding",
        "embedding_model",
        "search_vector",
    }
    assert [c["name"] for c in document["contexts"][:3]] == ["Life", "Health", "Sleep"]


def test_a_non_empty_account_is_refused(rich_user: User, other_user: User) -> None:
    document = knowledge_export(user=rich_user)
    context_create(user=other_user, name="Already here")

    with pytest.raises(AccountNotEmptyError, match="already holds knowledge"):
        knowledge_import(user=other_user, document=document)

    assert not Claim.objects.filter(user=other_user).exists()
    assert Context.objects.filter(user=other_user).count() == 1


def claim_doc(**fields: Any) -> dict[str, Any]:
    return {"id": "c1", "number": 1, "friendly_id": "first_claim", "statement": "First", **fields}


def doc(**parts: Any) -> dict[str, Any]:
    return {"format": "cairn-knowledge", "version": 1, "claims": [claim_doc()], **parts}


@pytest.mark.parametrize(
    ("document", "path"),
    [
        ([], "document"),
        ({"format": "something-else", "version": 1}, "format"),
        (doc(version=2), "version"),
        (doc(claims=[claim_doc(statement="")]), "claims[0].statement"),
        (doc(claims=[claim_doc(statement="x" * 10_001)]), "claims[0].statement"),
        (doc(claims=[claim_doc(claim_types=["opinion"])]), "claims[0].claim_types"),
        (doc(claims=[claim_doc(domains=["space"])]), "claims[0].domains"),
        (doc(claims=[claim_doc(status="maybe")]), "claims[0].status"),
        (doc(claims=[claim_doc(number="one")]), "claims[0].number"),
        (doc(claims=[claim_doc(friendly_id="Bad Id")]), "claims[0].friendly_id"),
        (doc(claims=[claim_doc(created_at="yesterday")]), "claims[0].created_at"),
        (doc(claims=[claim_doc(created_at="2024-01-01T10:00:00")]), "claims[0].created_at"),
        (doc(claims=[claim_doc(supersedes="c9")]), "claims[0].supersedes"),
        (doc(claims=[claim_doc(supersedes="c1")]), "claims[0].supersedes"),
        (doc(claims=[claim_doc(), claim_doc(id="c2", friendly_id="second")]), "claims[1].number"),
        (doc(claims=[claim_doc(), claim_doc(id="c2", number=2)]), "claims[1].friendly_id"),
        (
            doc(
                contexts=[
                    {"id": "x", "name": "A", "friendly_id": "a_context", "parent": "y"},
                    {"id": "y", "name": "B", "friendly_id": "b_context", "parent": "x"},
                ]
            ),
            "contexts[0].parent",
        ),
        (
            doc(contexts=[{"id": "x", "name": "A", "friendly_id": "a_ctx", "claims": ["c7"]}]),
            "contexts[0].claims",
        ),
        (doc(tags=[{"id": "t", "name": "", "friendly_id": "t_tag"}]), "tags[0].name"),
        (
            doc(
                entities=[
                    {"id": "e", "name": "E", "friendly_id": "e_entity", "entity_type": "robot"}
                ]
            ),
            "entities[0].entity_type",
        ),
        (doc(last_claim_number=0.5), "last_claim_number"),
    ],
)
def test_a_bad_document_is_refused_with_its_path_and_writes_nothing(
    user: User, document: Any, path: str
) -> None:
    with pytest.raises(ValidationError) as raised:
        knowledge_import(user=user, document=document)

    assert path in raised.value.message_dict
    assert not Claim.objects.exists()
    assert not Context.objects.exists()
    assert not ClaimCounter.objects.filter(user=user, last_number__gt=0).exists()


def test_contexts_deeper_than_ten_levels_are_refused(user: User) -> None:
    contexts = [
        {
            "id": f"x{n}",
            "name": f"L{n}",
            "friendly_id": f"level_{n}_context",
            "parent": f"x{n - 1}" if n else None,
        }
        for n in range(11)
    ]

    with pytest.raises(ValidationError) as raised:
        knowledge_import(user=user, document=doc(contexts=contexts))

    assert "contexts[10].parent" in raised.value.message_dict


def test_a_minimal_hand_written_document_is_accepted(user: User) -> None:
    report = knowledge_import(
        user=user,
        document=doc(
            contexts=[{"id": "home", "name": "Home", "friendly_id": "home", "claims": ["c1"]}]
        ),
    )

    claim = Claim.objects.get(user=user)
    assert (claim.number, claim.origin, claim.claim_types, claim.status) == (
        1,
        "imported",
        ["fact"],
        "active",
    )
    assert report.memberships == 1


def test_round_trip_through_the_management_commands(rich_user: User, tmp_path: Path) -> None:
    target = UserFactory(email="carol@example.com")
    path = tmp_path / "knowledge.json"

    call_command(
        "export_knowledge", "--user", "ALICE@example.com", "--output", str(path), stderr=StringIO()
    )
    out = StringIO()
    call_command("import_knowledge", str(path), "--user", target.email, stdout=out)

    assert snapshot(target) == snapshot(rich_user)
    assert "Imported 10 claims" in out.getvalue()
    assert "next claim is #10" in out.getvalue()


def test_export_command_writes_to_stdout(rich_user: User) -> None:
    out = StringIO()
    call_command("export_knowledge", "--user", rich_user.email, stdout=out)

    assert len(json.loads(out.getvalue())["claims"]) == 10


def test_command_errors_are_clear(rich_user: User, tmp_path: Path) -> None:
    path = tmp_path / "knowledge.json"
    call_command(
        "export_knowledge", "--user", rich_user.email, "--output", str(path), stderr=StringIO()
    )
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")

    with pytest.raises(CommandError, match="No user"):
        call_command("export_knowledge", "--user", "nobody@example.com")
    with pytest.raises(CommandError, match="already holds knowledge"):
        call_command("import_knowledge", str(path), "--user", rich_user.email)
    with pytest.raises(CommandError, match="Cannot read"):
        call_command("import_knowledge", str(broken), "--user", rich_user.email)
