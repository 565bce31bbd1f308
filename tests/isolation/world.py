"""Two users whose knowledge looks the same from the outside: the same friendly IDs,
context names, fact keys and titles. Only user A's rows carry the SECRET marker, so any
response to B that contains it is a leak."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from apps.accounts.models import User
from apps.chat.models import ChatImport, Conversation, Message
from apps.chat.services import conversation_create, message_append
from apps.claims.models import Claim, Entity, Tag
from apps.claims.services import claim_create, entity_create, tag_create, tag_link_claims
from apps.contexts.models import Context
from apps.contexts.services import context_add_claims, context_create
from apps.projects.models import Project
from apps.projects.services import project_ensure_personal
from tests.factories import UserFactory

SECRET = "ALPHA-SECRET-7Q"


@dataclass
class Account:
    user: User
    project: Project
    claim: Claim
    context: Context
    entity: Entity
    tag: Tag
    conversation: Conversation
    message: Message
    extra: dict[str, Any] = field(default_factory=dict)


def build_account(email: str, marker: str) -> Account:
    user = UserFactory(email=email)
    project = project_ensure_personal(user=user)
    claim = claim_create(
        user=user,
        statement=f"My locker code is {marker}",
        friendly_id="locker_code",
        possible_questions=[f"What is {marker}?"],
    )
    context = context_create(user=user, name="Work Secrets", friendly_id="work_secrets")
    context_add_claims(context=context, claims=[claim])
    entity = entity_create(
        user=user, name=f"Agent {marker}", entity_type="person", friendly_id="agent_person_entity"
    )
    tag = tag_create(user=user, name="Private", friendly_id="private_tag")
    tag_link_claims(tag=tag, claims=[claim])
    conversation = conversation_create(user=user, project=project, title=f"Chat {marker}")
    message = message_append(
        conversation=conversation, role="user", content=f"Remember {marker} please"
    )
    account = Account(user, project, claim, context, entity, tag, conversation, message)
    try:
        from apps.facts.services import fact_store

        account.extra["fact"] = fact_store(
            project=project, key="user.locker.code", value=marker
        ).fact
    except ImportError:  # facts not installed in this build
        pass
    account.extra.update(_indexed_document(project, marker))
    account.extra["imports"] = ChatImport.objects.create(
        user=user, project=project, file_name=f"export-{marker}.zip", error=f"Failed {marker}"
    )
    return account


def _indexed_document(project: Project, marker: str) -> dict[str, Any]:
    """A source, a document and a chunk carrying the marker (rows only, no stored file)."""
    from apps.indexing.models import Chunk, Document, Source

    source = Source.objects.create(project=project, kind="upload", name=f"Uploads {marker}")
    document = Document.objects.create(
        source=source, path=f"{marker}.txt", status="indexed", chunk_count=1
    )
    chunk = Chunk.objects.create(
        document=document, user=project.owner, project=project, chunk_index=0,
        text=f"The vault code is {marker}", start=0, end=30,
        embedding=[1.0] + [0.0] * 383, embedding_model="isolation",
    )  # fmt: skip
    return {"sources": source, "documents": document, "chunks": chunk}


def build_world() -> tuple[Account, Account]:
    """(A, B): A owns the secret; B's rows are twins with harmless text."""
    return (
        build_account("alice@example.com", SECRET),
        build_account("bob@example.com", "nothing-to-see"),
    )
