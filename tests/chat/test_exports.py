"""Importing ChatGPT and Claude data exports (issue 16): small exports written for these
tests in each vendor's documented shape, uploaded as a user would."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.chat.exports.parse import ExportError, ParsedConversation, iter_export
from apps.chat.models import ChatImport, Conversation, Message
from apps.claims.models import Claim, ClaimStatus
from apps.core.models import Work
from apps.projects.services import project_ensure_personal

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fake_provider")]
from tests.indexing.conftest import fake_provider  # noqa: E402, F401 - fixture

T0 = 1_714_550_400.0  # 2024-05-01T08:00:00Z


def chatgpt_node(
    node_id: str, parent: str | None, children: list[str], message: Any
) -> dict[str, Any]:
    return {"id": node_id, "parent": parent, "children": children, "message": message}


def chatgpt_message(
    mid: str, role: str, parts: list[Any], at: float, **extra: Any
) -> dict[str, Any]:
    return {
        "id": mid,
        "author": {"role": role, "name": None, "metadata": {}},
        "create_time": at,
        "content": {"content_type": "text", "parts": parts},
        "metadata": extra.pop("metadata", {}),
        **extra,
    }


def chatgpt_export() -> list[dict[str, Any]]:
    """A conversation whose answer was regenerated (the second branch is the one the user
    kept: current_node), with a hidden system message, an image and an attached file."""
    mapping = {
        "root": chatgpt_node("root", None, ["sys"], None),
        "sys": chatgpt_node(
            "sys",
            "root",
            ["u1"],
            chatgpt_message(
                "m-sys", "system", [""], T0, metadata={"is_visually_hidden_from_conversation": True}
            ),
        ),
        "u1": chatgpt_node(
            "u1",
            "sys",
            ["a1-old", "a1"],
            chatgpt_message(
                "m-u1",
                "user",
                [
                    "Where should I sail in June?",
                    {"content_type": "image_asset_pointer", "asset_pointer": "file-service://x"},
                ],
                T0 + 60,
                metadata={"attachments": [{"name": "charts.pdf"}]},
            ),
        ),
        "a1-old": chatgpt_node(
            "a1-old",
            "u1",
            [],
            chatgpt_message("m-a1-old", "assistant", ["A discarded draft."], T0 + 61),
        ),
        "a1": chatgpt_node(
            "a1",
            "u1",
            ["u2"],
            chatgpt_message("m-a1", "assistant", ["Try the Dalmatian coast."], T0 + 62),
        ),
        "u2": chatgpt_node(
            "u2",
            "a1",
            ["a2"],
            chatgpt_message("m-u2", "user", ["I love sailing with Ada."], T0 + 120),
        ),
        "a2": chatgpt_node(
            "a2",
            "u2",
            [],
            chatgpt_message("m-a2", "assistant", ["Ada sounds like great crew."], T0 + 121),
        ),
    }
    return [
        {
            "title": "Sailing plans",
            "create_time": T0,
            "update_time": T0 + 121,
            "mapping": mapping,
            "current_node": "a2",
            "conversation_id": "c-sailing",
        },
        {
            "title": "Empty chat",
            "create_time": T0,
            "mapping": {"root": chatgpt_node("root", None, [], None)},
            "current_node": "root",
            "conversation_id": "c-empty",
        },
    ]


def claude_export() -> list[dict[str, Any]]:
    return [
        {
            "uuid": "cl-1",
            "name": "Harbour dues",
            "created_at": "2024-06-02T09:00:00.000000+00:00",
            "updated_at": "2024-06-02T09:05:00.000000+00:00",
            "chat_messages": [
                {
                    "uuid": "cm-1",
                    "sender": "human",
                    "text": "How much are the harbour dues in Split?",
                    "content": [
                        {"type": "text", "text": "How much are the harbour dues in Split?"}
                    ],
                    "created_at": "2024-06-02T09:00:00.000000+00:00",
                    "attachments": [{"file_name": "invoice.txt", "extracted_content": "..."}],
                    "files": [],
                },
                {
                    "uuid": "cm-2",
                    "sender": "assistant",
                    "text": "About 60 euros a night.",
                    "content": [
                        {"type": "tool_use", "name": "web_search", "input": {"q": "split"}},
                        {"type": "text", "text": "About 60 euros a night."},
                    ],
                    "created_at": "2024-06-02T09:01:00.000000+00:00",
                    "attachments": [],
                    "files": [],
                },
            ],
        }
    ]


def read_all(data: bytes) -> list[ParsedConversation]:
    items = list(iter_export(io.BytesIO(data)))
    assert all(isinstance(item, ParsedConversation) for item in items)
    return items  # type: ignore[return-value]


def zipped(document: Any, name: str = "conversations.json") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(name, json.dumps(document))
        archive.writestr("user.json", "{}")
    return buffer.getvalue()


def test_chatgpt_keeps_the_branch_the_user_saw_and_notes_what_is_not_text() -> None:
    parsed = read_all(zipped(chatgpt_export()))

    assert {item.source for item in parsed} == {"chatgpt"}
    sailing = parsed[0].conversation
    assert sailing.title == "Sailing plans"
    assert [m.external_id for m in sailing.messages] == ["m-u1", "m-a1", "m-u2", "m-a2"]
    assert sailing.messages[0].text == (
        "Where should I sail in June?\n\n[image]\n\n[attached file: charts.pdf]"
    )
    assert sailing.messages[0].created_at.isoformat() == "2024-05-01T08:01:00+00:00"
    assert parsed[1].conversation.messages == ()


def test_claude_messages_with_their_times_attachments_and_tool_use() -> None:
    (parsed,) = read_all(json.dumps(claude_export()).encode())

    assert parsed.source == "claude"
    conversation = parsed.conversation
    assert [m.role for m in conversation.messages] == ["user", "assistant"]
    assert conversation.messages[0].text.endswith("[attached file: invoice.txt]")
    assert conversation.messages[1].text == "[tool use: web_search]\n\nAbout 60 euros a night."


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"not json at all", "not valid JSON"),
        (json.dumps({"format": "cairn-knowledge"}).encode(), "expected a list of conversations"),
        (zipped([], name="other.json"), "no conversations.json"),
        (b"PK\x03\x04 broken zip", "damaged"),
    ],
)
def test_a_foreign_or_damaged_file_says_why(data: bytes, words: str) -> None:
    with pytest.raises(ExportError, match=words):
        list(iter_export(io.BytesIO(data)))


def _upload(client: APIClient, data: bytes, name: str, **fields: Any) -> Any:
    return client.post(
        "/api/v1/imports/", {"file": SimpleUploadedFile(name, data), **fields}, format="multipart"
    )


def test_an_export_imported_through_the_api_becomes_searchable_conversations(
    token_client: APIClient, user: User, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        accepted = _upload(token_client, zipped(chatgpt_export()), "chatgpt-export.zip")

    assert accepted.status_code == 202
    status = token_client.get(f"/api/v1/imports/{accepted.json()['id']}/").json()
    assert status["status"] == "done"
    assert status["searchable"] is True
    assert status["progress"] == 1.0
    assert (status["source"], status["conversations_total"], status["conversations_created"]) == (
        "chatgpt",
        2,
        2,
    )
    assert status["messages_stored"] == status["messages_indexed"] == 4
    sailing = Conversation.objects.get(user=user, external_id="c-sailing")
    assert sailing.title == "Sailing plans"
    assert sailing.created_at.isoformat() == "2024-05-01T08:00:00+00:00"
    messages = list(sailing.messages.order_by("order"))
    assert [m.content[:20] for m in messages] == [
        "Where should I sail ",
        "Try the Dalmatian co",
        "I love sailing with ",
        "Ada sounds like grea",
    ]
    assert messages[2].created_at.isoformat() == "2024-05-01T08:02:00+00:00"
    found = token_client.get("/api/v1/search", {"q": "Dalmatian coast", "kinds": "message"}).json()
    assert any("Dalmatian" in hit["excerpt"] for hit in found["results"])
    assert Claim.objects.filter(user=user).count() == 0  # not extracted unless asked


def test_importing_the_same_export_twice_creates_nothing_new(
    token_client: APIClient, user: User, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    for _ in range(2):
        with django_capture_on_commit_callbacks(execute=True):
            second = _upload(token_client, zipped(chatgpt_export()), "export.zip")

    status = token_client.get(f"/api/v1/imports/{second.json()['id']}/").json()
    assert status["conversations_created"] == 0
    assert status["messages_stored"] == 0
    assert status["status"] == "done"
    assert Conversation.objects.filter(user=user).count() == 2
    assert Message.objects.filter(conversation__user=user).count() == 4


def test_claude_json_with_claims_asked_for_arrive_pending(
    token_client: APIClient, user: User, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    document = claude_export()
    document[0]["chat_messages"][0]["content"][0]["text"] += " I prefer quiet anchorages."
    with django_capture_on_commit_callbacks(execute=True):
        accepted = _upload(
            token_client, json.dumps(document).encode(), "conversations.json", extract_claims=True
        )

    assert accepted.json()["source"] in ("", "claude")
    conversation = Conversation.objects.get(user=user, external_source="claude")
    assert conversation.title == "Harbour dues"
    claims = Claim.objects.filter(user=user)
    assert [c.status for c in claims] == [ClaimStatus.PENDING]
    assert "quiet anchorages" in claims[0].statement


def test_a_bad_file_is_400_naming_the_field_and_writes_nothing(
    token_client: APIClient, user: User
) -> None:
    response = _upload(token_client, b'{"format": "cairn-knowledge"}', "conversations.json")

    assert response.status_code == 400
    assert "file" in response.json()
    assert ChatImport.objects.count() == 0
    assert Conversation.objects.filter(user=user).count() == 0


def test_another_users_import_is_not_found(
    token_client: APIClient,
    other_user: User,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    theirs = APIClient()
    theirs.force_authenticate(other_user)
    with django_capture_on_commit_callbacks(execute=True):
        accepted = _upload(theirs, zipped(claude_export()), "export.zip")

    assert token_client.get(f"/api/v1/imports/{accepted.json()['id']}/").status_code == 404
    assert token_client.get("/api/v1/imports/").json()["results"] == []


def test_the_import_page_uploads_and_shows_progress(
    client: Client, user: User, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    client.force_login(user)
    page = client.get("/imports/")
    assert "No imports yet" in page.content.decode()

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/imports/",
            {
                "file": SimpleUploadedFile("export.zip", zipped(claude_export())),
                "project": str(page.context["form"].initial["project"]),
            },
        )

    assert response.status_code == 302
    listing = client.get("/imports/").content.decode()
    assert "export.zip" in listing
    assert "Searchable" in listing
    assert 'aria-valuenow="100"' in listing
    refused = client.post(
        "/imports/",
        {
            "file": SimpleUploadedFile("notes.txt", b"hello"),
            "project": str(page.context["form"].initial["project"]),
        },
    )
    assert "not a ChatGPT or Claude export" in refused.content.decode()


def test_the_management_command_imports_a_file(user: User, tmp_path: Any) -> None:
    export = tmp_path / "chatgpt.zip"
    export.write_bytes(zipped(chatgpt_export()))
    out = io.StringIO()

    call_command("import_chats", str(export), "--user", user.email, stdout=out)

    assert "2 conversations (2 new), 4 messages from chatgpt: searchable." in out.getvalue()
    assert Message.objects.filter(conversation__user=user, index_status="indexed").count() == 4


def test_an_imported_conversation_says_it_is_searchable_in_the_api_and_on_its_page(
    token_client: APIClient,
    client: Client,
    user: User,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        _upload(token_client, zipped(claude_export()), "export.zip")
    conversation = Conversation.objects.get(user=user, external_source="claude")

    body = token_client.get(f"/api/v1/conversations/{conversation.pk}/").json()
    client.force_login(user)
    page = client.get(f"/c/{conversation.pk}/").content.decode()

    assert (body["imported_from"], body["import_status"]) == ("claude", "searchable")
    assert "Imported from Claude · searchable" in page


def test_a_large_export_is_stored_a_batch_per_task(
    token_client: APIClient,
    user: User,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    from apps.chat.exports import tasks

    monkeypatch.setattr(tasks, "CONVERSATIONS_PER_TASK", 1)
    with django_capture_on_commit_callbacks(execute=True):
        accepted = _upload(token_client, zipped(chatgpt_export()), "export.zip")

    status = token_client.get(f"/api/v1/imports/{accepted.json()['id']}/").json()
    assert (status["status"], status["conversations_done"], status["messages_indexed"]) == (
        "done",
        2,
        4,
    )
    # One storing task a conversation, each owing the indexing of what it stored, all in
    # the import's group (the second conversation holds no message of its own)
    work = Work.objects.filter(group=f"import:{accepted.json()['id']}").order_by("id")
    assert [(row.task.rsplit(".", 1)[1], row.state) for row in work] == [
        ("chat_import_run", "done"),
        ("chat_import_index", "done"),
        ("chat_import_run", "done"),
    ]
    stored = Message.objects.filter(chat_import_id=accepted.json()["id"])
    assert sorted(work[1].args[1]) == sorted(str(pk) for pk in stored.values_list("pk", flat=True))


def test_a_transcript_import_says_when_it_is_searchable(
    token_client: APIClient, user: User, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    turns = [
        {"role": "user", "content": "We anchored off Vis.", "created_at": "2024-06-01T10:00:00Z"},
        {
            "role": "assistant",
            "content": "Vis has a quiet bay.",
            "created_at": "2024-06-01T10:01:00Z",
        },
    ]
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        created = token_client.post(
            "/api/v1/conversations/import/", {"title": "Vis", "messages": turns}, format="json"
        )
    url = f"/api/v1/conversations/{created.json()['conversation']}/"
    assert token_client.get(url).json()["import_status"] == "indexing"

    for callback in callbacks:
        callback()

    assert token_client.get(url).json()["import_status"] == "searchable"
    assert Message.objects.filter(conversation__user=user, index_status="indexed").count() == 2


def test_a_failed_import_says_why_and_can_be_retried_then_deleted_with_its_conversations(
    token_client: APIClient,
    user: User,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    from apps.chat.exports import tasks

    # Given an import whose reading fails in the worker (a file damaged after upload)
    def damaged(handle: Any) -> Any:
        raise ExportError("The export is damaged: conversations.json ends early.")

    monkeypatch.setattr(tasks, "count_conversations", damaged)
    with django_capture_on_commit_callbacks(execute=True):
        accepted = _upload(token_client, zipped(claude_export()), "export.zip")
    url = f"/api/v1/imports/{accepted.json()['id']}/"

    # Then it is failed with the reason, at once (no retry can mend a damaged file)
    failed = token_client.get(url).json()
    assert (failed["status"], failed["searchable"]) == ("failed", False)
    assert failed["error"] == "The export is damaged: conversations.json ends early."

    # When the user retries it, the file now readable
    monkeypatch.undo()
    with django_capture_on_commit_callbacks(execute=True):
        retried = token_client.post(f"{url}retry/")
    assert retried.status_code == 202
    done = token_client.get(url).json()
    assert (done["status"], done["searchable"], done["error"]) == ("done", True, "")
    assert Conversation.objects.filter(user=user).count() == 1

    # A finished import cannot be retried
    assert token_client.post(f"{url}retry/").status_code == 400

    # And deleting it with its conversations leaves nothing it stored
    assert token_client.delete(f"{url}?with_conversations=true").status_code == 204
    assert token_client.get(url).status_code == 404
    assert not Conversation.objects.filter(user=user).exists()
    assert not Message.objects.filter(conversation__user=user).exists()


def test_an_import_deleted_without_its_conversations_keeps_them_and_others_cannot_delete_it(
    token_client: APIClient,
    user: User,
    other_user: User,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        accepted = _upload(token_client, zipped(claude_export()), "export.zip")
    url = f"/api/v1/imports/{accepted.json()['id']}/"
    stranger = APIClient()
    stranger.force_authenticate(other_user)

    assert stranger.delete(url).status_code == 404
    assert stranger.post(f"{url}retry/").status_code == 404
    assert token_client.delete(url).status_code == 204

    assert not ChatImport.objects.filter(user=user).exists()
    assert Conversation.objects.filter(user=user).count() == 1


def test_the_import_page_retries_and_deletes(
    user: User,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    from apps.chat.exports import tasks

    def damaged(handle: Any) -> Any:
        raise ExportError("The export is damaged.")

    monkeypatch.setattr(tasks, "count_conversations", damaged)
    client = Client()
    client.force_login(user)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            "/imports/",
            {
                "file": SimpleUploadedFile("export.zip", zipped(claude_export())),
                "project": str(project_ensure_personal(user=user).pk),
            },
        )
    chat_import = ChatImport.objects.get(user=user)
    page = client.get("/imports/").content.decode()
    assert "The export is damaged." in page
    assert f"/imports/{chat_import.pk}/retry/" in page

    monkeypatch.undo()
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/imports/{chat_import.pk}/retry/")
    assert "Searchable" in client.get("/imports/").content.decode()

    response = client.post(
        f"/imports/{chat_import.pk}/delete/", {"with_conversations": "on"}, follow=True
    )
    assert "Deleted the import of export.zip and 1 conversation." in response.content.decode()
    assert not Conversation.objects.filter(user=user).exists()
