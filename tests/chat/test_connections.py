"""The connections page (issue 30): keys encrypted at rest, the environment winning, a
test that says in words what is wrong, and a conversation answered by the model its
picker chose — against a real local HTTP server speaking the OpenAI protocol."""

from __future__ import annotations

import asyncio
import socket
import stat
from pathlib import Path
from typing import Any

import httpx2
import pytest
from cryptography.fernet import Fernet
from django.core.exceptions import ImproperlyConfigured, ValidationError
from django.test import Client
from rest_framework.test import APIClient

from apps.accounts.models import User
from apps.chat.connections.models import ModelConnection, ModelDefaults
from apps.chat.connections.probe import probe_anthropic
from apps.chat.connections.secrets import (
    KEY_FILE_NAME,
    SecretUnreadable,
    secret_decrypt,
    secret_encrypt,
)
from apps.chat.connections.selectors import (
    OFFLINE_VALUE,
    choice_answerer,
    model_options,
    option_value,
    site_models,
)
from apps.chat.connections.services import (
    connection_create,
    connection_delete,
    connection_test,
    conversation_model_choose,
)
from apps.chat.llm.factory import Answerer, Endpoint, build_provider
from apps.chat.models import Conversation, Message
from apps.chat.services import conversation_create
from tests.chat.model_server import OpenAIServer
from tests.factories import UserFactory

KEY = "test-only-not-a-key-7f3a"  # what a user pastes; its last four show


@pytest.fixture(autouse=True)
def no_model_in_the_environment(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    settings.ANTHROPIC_API_KEY = ""
    settings.CAIRN_LLM_BASE_URL = ""
    settings.CAIRN_LLM_MODEL = ""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def staff(db: None) -> User:
    user: User = UserFactory.create(is_staff=True)
    return user


@pytest.fixture
def staff_client(staff: User) -> Client:
    client = Client()
    client.force_login(staff)
    return client


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --- keys at rest ---------------------------------------------------------------------


def test_a_key_is_generated_once_into_var_readable_by_the_owner_only(
    settings: Any, tmp_path: Path
) -> None:
    settings.CAIRN_SECRETS_KEY, settings.VAR_DIR = "", tmp_path

    token = secret_encrypt(KEY)

    key_file = tmp_path / KEY_FILE_NAME
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert KEY not in token
    assert secret_decrypt(token) == KEY
    assert Fernet(key_file.read_text().encode()).decrypt(token.encode()).decode() == KEY
    assert [path.name for path in tmp_path.iterdir()] == [KEY_FILE_NAME]  # no draft left


def test_the_environment_key_encrypts_and_a_changed_key_cannot_read_old_secrets(
    settings: Any, tmp_path: Path
) -> None:
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    settings.VAR_DIR = tmp_path
    settings.CAIRN_SECRETS_KEY = old
    token = secret_encrypt(KEY)
    assert not (tmp_path / KEY_FILE_NAME).exists()

    settings.CAIRN_SECRETS_KEY = new
    with pytest.raises(SecretUnreadable, match="enter the key again"):
        secret_decrypt(token)
    settings.CAIRN_SECRETS_KEY = f"{new},{old}"  # rotation: the old key still reads
    assert secret_decrypt(token) == KEY

    settings.CAIRN_SECRETS_KEY = "not-a-fernet-key"
    with pytest.raises(ImproperlyConfigured, match="CAIRN_SECRETS_KEY"):
        secret_encrypt(KEY)


@pytest.mark.django_db
def test_an_added_connection_keeps_its_key_encrypted_and_reads_the_models() -> None:
    with OpenAIServer(api_key=KEY, models=["qwen2.5:7b", "llama-test"]) as server:
        connection, result = connection_create(
            kind="openai", name="Lab server", base_url=server.url + "/", api_key=KEY
        )

    assert result.ok, result.message
    assert result.message == "Connected: 2 models offered."
    stored = ModelConnection.objects.get(pk=connection.pk)
    assert stored.model_ids == ["llama-test", "qwen2.5:7b"]
    assert stored.base_url == server.url
    assert stored.api_key_last4 == "7f3a"
    assert KEY not in stored.api_key_encrypted
    assert secret_decrypt(stored.api_key_encrypted) == KEY
    assert ("/v1/models", "") in server.requests
    # The first working connection becomes the default while none is chosen.
    defaults = ModelDefaults.objects.get()
    assert (defaults.default_connection_id, defaults.default_model) == (connection.pk, "llama-test")


# --- the test says what is wrong, in words ---------------------------------------------


@pytest.mark.django_db
def test_a_wrong_key_is_told_in_words() -> None:
    with OpenAIServer(api_key=KEY) as server:
        connection, result = connection_create(
            kind="openai", base_url=server.url, api_key="test-only-key"
        )

    assert not result.ok
    assert result.message == f"{server.url} refused the key (401 Unauthorized): check it."
    assert connection.test_ok is False
    assert connection.model_ids == []


@pytest.mark.django_db
def test_an_unreachable_server_a_wrong_address_and_no_models_are_told_in_words() -> None:
    address = f"http://127.0.0.1:{_closed_port()}/v1"
    _, unreachable = connection_create(kind="openai", base_url=address)
    with OpenAIServer(models=[]) as empty, OpenAIServer() as server:
        _, no_models = connection_create(kind="openai", base_url=empty.url)
        _, no_v1 = connection_create(kind="openai", base_url=server.url.removesuffix("/v1"))

    assert unreachable.message.startswith(f"Cannot reach {address}: ")
    assert "Check the address and that the server is running." in unreachable.message
    assert (
        no_models.message == f"{empty.url} answered but offers no models: load or pull one first."
    )
    assert "(404 Not Found): check the base URL; for most servers it ends in /v1." in no_v1.message
    assert not (unreachable.ok)
    assert not (no_models.ok)
    assert not (no_v1.ok)


@pytest.mark.django_db
def test_testing_again_finds_the_server_gone_and_keeps_the_models_it_offered() -> None:
    with OpenAIServer() as server:
        connection, first = connection_create(kind="openai", base_url=server.url)
    assert first.ok

    again = connection_test(connection=connection)

    assert again.message.startswith(f"Cannot reach {server.url}: ")
    connection.refresh_from_db()
    assert connection.test_ok is False
    assert connection.test_message == again.message
    assert connection.model_ids == ["llama-test", "mistral-small"]


def test_anthropic_keys_are_tested_against_its_models_endpoint() -> None:
    def anthropic_api(request: httpx2.Request) -> httpx2.Response:
        assert request.url.path == "/v1/models"
        if KEY not in (
            request.headers.get("x-api-key"),
            request.headers.get("authorization", "")[7:],
        ):
            error = {"type": "authentication_error", "message": "invalid x-api-key"}
            return httpx2.Response(401, json={"type": "error", "error": error})
        model = {
            "type": "model",
            "id": "claude-haiku-4-5",
            "display_name": "Haiku",
            "created_at": "2025-10-01T00:00:00Z",
        }
        return httpx2.Response(
            200, json={"data": [model], "has_more": False, "first_id": None, "last_id": None}
        )

    client = httpx2.Client(transport=httpx2.MockTransport(anthropic_api))
    good = probe_anthropic(api_key=KEY, http_client=client)
    bad = probe_anthropic(api_key="test-only-wrong-key", http_client=client)

    assert (good.ok, good.models) == (True, ["claude-haiku-4-5"])
    assert bad.message == "api.anthropic.com refused the key (401 Unauthorized): check it."


@pytest.mark.django_db
def test_bad_input_is_refused_naming_the_field_and_nothing_is_stored() -> None:
    with pytest.raises(ValidationError) as no_url:
        connection_create(kind="openai", base_url="ftp://example.com")
    with pytest.raises(ValidationError) as no_key:
        connection_create(kind="anthropic", api_key="  ")
    with pytest.raises(ValidationError) as no_kind:
        connection_create(kind="gemini", base_url="http://127.0.0.1:1/v1")

    assert set(no_url.value.message_dict) == {"base_url"}
    assert set(no_key.value.message_dict) == {"api_key"}
    assert set(no_kind.value.message_dict) == {"kind"}
    assert not ModelConnection.objects.exists()


# --- the environment wins ---------------------------------------------------------------


@pytest.mark.django_db
def test_the_environment_wins_over_the_page_and_the_page_says_so(
    staff_client: Client, settings: Any
) -> None:
    with OpenAIServer() as server:
        connection, _ = connection_create(kind="openai", name="Lab", base_url=server.url)
    assert site_models().answerer.main.model == "llama-test"

    settings.ANTHROPIC_API_KEY = "test-only-environment-key-9d2c"
    settings.CAIRN_MAIN_MODEL, settings.CAIRN_CHEAP_MODEL = "claude-main", "claude-cheap"
    site = site_models()
    page = staff_client.get("/connections/").content.decode()

    assert site.from_environment
    assert (site.answerer.main.kind, site.answerer.main.model) == ("anthropic", "claude-main")
    assert site.answerer.cheap.model == "claude-cheap"
    assert "The environment wins" in page
    assert "…9d2c" in page
    assert "test-only-environment-key-9d2c" not in page
    assert "<code>CAIRN_MAIN_MODEL</code>" in page
    # The page's connections stay on offer to each conversation.
    values = [option.value for option in model_options()]
    assert option_value(str(connection.pk), "mistral-small") in values
    assert option_value("env-anthropic", "claude-main") in values


# --- the page ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_only_staff_see_the_connections_page(client: Client, user: User) -> None:
    assert client.get("/connections/").status_code == 302  # to the login page
    client.force_login(user)
    assert client.get("/connections/").status_code == 404
    assert client.post("/connections/add/", {"kind": "openai"}).status_code == 404
    assert not ModelConnection.objects.exists()


@pytest.mark.django_db
def test_staff_add_a_server_on_the_page_test_it_and_choose_the_models(
    staff_client: Client,
) -> None:
    with OpenAIServer(api_key=KEY) as server:
        added = staff_client.post(
            "/connections/add/",
            {"kind": "openai", "name": "Lab", "base_url": server.url, "api_key": KEY},
            follow=True,
        )
        connection = ModelConnection.objects.get()
        tested = staff_client.post(f"/connections/{connection.pk}/test/", follow=True)
    gone = staff_client.post(f"/connections/{connection.pk}/test/", follow=True)

    page = added.content.decode()
    assert "Added Lab. Connected: 2 models offered." in page
    assert "mistral-small" in page
    assert "…7f3a" in page
    assert KEY not in page
    assert "Lab: Connected: 2 models offered." in tested.content.decode()
    assert f"Lab: Cannot reach {server.url}" in gone.content.decode()

    cheap = option_value(str(connection.pk), "mistral-small")
    default = option_value(str(connection.pk), "llama-test")
    saved = staff_client.post("/connections/defaults/", {"default": default, "cheap": cheap})
    assert saved.status_code == 302
    answerer = site_models().answerer
    assert (answerer.main.model, answerer.cheap.model, answerer.main.api_key) == (
        "llama-test",
        "mistral-small",
        KEY,
    )


@pytest.mark.django_db
def test_the_page_refuses_bad_input_with_a_400_naming_the_field(staff_client: Client) -> None:
    bad_url = staff_client.post("/connections/add/", {"kind": "openai", "base_url": "nowhere"})
    assert not ModelConnection.objects.exists()
    bad_default = staff_client.post("/connections/defaults/", {"default": "x:y"})

    assert bad_url.status_code == 400
    assert "Enter the server&#x27;s address" in bad_url.content.decode()
    assert bad_default.status_code == 400
    assert "Select a valid choice" in bad_default.content.decode()
    assert ModelDefaults.objects.filter(default_connection__isnull=False).count() == 0


@pytest.mark.django_db
def test_a_deleted_connection_leaves_its_conversations_on_the_default(user: User) -> None:
    with OpenAIServer() as server:
        connection, _ = connection_create(kind="openai", base_url=server.url)
    conversation = conversation_create(user=user)
    conversation_model_choose(
        conversation=conversation, choice=option_value(str(connection.pk), "mistral-small")
    )
    assert choice_answerer(choice=conversation.chosen_model).main.model == "mistral-small"

    connection_delete(connection=connection)

    assert choice_answerer(choice=conversation.chosen_model).offline
    assert ModelDefaults.objects.get().default_connection is None


# --- the picker ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_picker_offers_the_connections_models_and_remembers_the_choice(
    client: Client, user: User, other_user: User
) -> None:
    with OpenAIServer() as server:
        connection, _ = connection_create(kind="openai", name="Lab", base_url=server.url)
    conversation = conversation_create(user=user)
    theirs = conversation_create(user=other_user)
    client.force_login(user)
    small = option_value(str(connection.pk), "mistral-small")

    page = client.get(f"/c/{conversation.pk}/").content.decode()
    picked = client.post(f"/c/{conversation.pk}/model/", {"model": small})
    offline = client.post(f"/c/{theirs.pk}/model/", {"model": OFFLINE_VALUE})
    unknown = client.post(f"/c/{conversation.pk}/model/", {"model": "env-openai:gpt-9"})

    assert f'<option value="{small}">mistral-small · Lab</option>' in page
    assert f'<option value="{OFFLINE_VALUE}">' in page
    assert "Default (llama-test)" in page
    assert picked.status_code == 302
    assert Conversation.objects.get(pk=conversation.pk).chosen_model == small
    assert (
        f'<option value="{small}" selected>'
        in client.get(f"/c/{conversation.pk}/").content.decode()
    )
    assert offline.status_code == 404
    assert Conversation.objects.get(pk=theirs.pk).chosen_model == ""
    assert unknown.status_code == 400
    assert unknown.content.decode().startswith("model: ")


def test_the_cheap_model_on_another_server_does_the_cheap_work() -> None:
    with OpenAIServer(models=["big"]) as main, OpenAIServer(models=["small"]) as cheap:
        provider = build_provider(
            Answerer(
                main=Endpoint(kind="openai", model="big", base_url=main.url),
                cheap=Endpoint(kind="openai", model="small", base_url=cheap.url),
            )
        )

        async def use() -> str:
            try:
                async for _ in provider.stream(system="s", messages=[]):
                    pass
                return await provider.complete(system="s", prompt="p")
            finally:
                await provider.aclose()

        answer = asyncio.run(use())

    assert answer == "Hello from the local model."
    assert main.requests == [("/v1/chat/completions", "big")]
    assert cheap.requests == [("/v1/chat/completions", "small")]
    assert (provider.model_name("main"), provider.model_name("cheap")) == ("big", "small")


@pytest.mark.django_db(transaction=True)
def test_a_turn_is_answered_by_the_picked_model_and_says_so(
    user: User, token_client: APIClient
) -> None:
    with OpenAIServer(reply="Tea, by the look of it.") as server:
        connection, _ = connection_create(kind="openai", base_url=server.url)
        conversation = conversation_create(user=user)
        conversation_model_choose(
            conversation=conversation, choice=option_value(str(connection.pk), "mistral-small")
        )
        response = token_client.post(
            f"/api/v1/conversations/{conversation.pk}/messages/",
            {"text": "What do I drink?"},
            format="json",
        )

    assert response.status_code == 201, response.content
    answer = Message.objects.get(conversation=conversation, role=Message.Role.ASSISTANT)
    assert answer.content.startswith("Tea, by the look of it.")
    assert answer.model_name == "mistral-small"
    # The answer from the picked model; the cheap work after it from the site's (its
    # default, llama-test, while no cheap model is chosen).
    completions = [model for path, model in server.requests if path.endswith("/completions")]
    assert completions[0] == "mistral-small"
    assert set(completions[1:]) <= {"llama-test"}
    client = Client()
    client.force_login(user)
    page = client.get(f"/c/{conversation.pk}/").content.decode()
    assert 'data-model-name="mistral-small">Answered by mistral-small</p>' in page


@pytest.mark.django_db
def test_settings_send_staff_to_the_connections_page_and_others_to_their_administrator(
    staff_client: Client, client: Client, user: User
) -> None:
    client.force_login(user)

    for_staff = staff_client.get("/accounts/settings/").content.decode()
    for_others = client.get("/accounts/settings/").content.decode()

    assert '<a href="/connections/">Model connections</a>' in for_staff
    assert "/connections/" not in for_others
    assert "ask your administrator to add one" in for_others


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_socket_uses_the_model_picked_since_it_opened(settings: Any, user: User) -> None:
    from asgiref.sync import sync_to_async

    from tests.chat.helpers import connect, events_until, of_type

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    settings.CAIRN_ALIGNMENT_REVIEW = False
    with OpenAIServer(reply="From the lab.") as server:
        connection, _ = await sync_to_async(connection_create)(kind="openai", base_url=server.url)
        conversation = await sync_to_async(conversation_create)(user=user)
        ws = await connect(user, conversation.pk)

        await ws.send_json_to({"type": "message", "text": "Who answers?"})
        first = of_type(await events_until(ws, "done"), "delta")
        await sync_to_async(conversation_model_choose)(
            conversation=conversation, choice=option_value(str(connection.pk), "mistral-small")
        )
        await ws.send_json_to({"type": "message", "text": "And now?"})
        second = of_type(await events_until(ws, "done"), "delta")
        await ws.disconnect()

    assert "".join(event["text"] for event in first) == "From the lab."
    assert "".join(event["text"] for event in second) == "From the lab."
    answers = await sync_to_async(list)(
        Message.objects.filter(conversation=conversation, role=Message.Role.ASSISTANT)
        .order_by("order")
        .values_list("model_name", flat=True)
    )
    assert answers == ["llama-test", "mistral-small"]
