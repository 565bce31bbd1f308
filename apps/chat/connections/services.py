"""Writes of the connections page and the model picker. Keys are encrypted before they
are stored; each write validates its input and raises ValidationError naming the field."""

from __future__ import annotations

import uuid
from urllib.parse import urlsplit

import httpx2
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from apps.chat.models import Conversation

from .models import ModelConnection, ModelDefaults
from .probe import ProbeResult, probe_anthropic, probe_openai
from .secrets import SecretUnreadable, secret_decrypt, secret_encrypt
from .selectors import endpoint_for, model_defaults

MAX_KEY_CHARS = 500


def _clean_base_url(base_url: str) -> str:
    base_url = base_url.strip().rstrip("/")
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValidationError(
            {"base_url": "Enter the server's address, e.g. http://127.0.0.1:11434/v1."}
        )
    return base_url


def _probe(
    *, kind: str, base_url: str, api_key: str, http_client: httpx2.Client | None
) -> ProbeResult:
    if kind == ModelConnection.Kind.ANTHROPIC:
        return probe_anthropic(api_key=api_key, http_client=http_client)
    return probe_openai(base_url=base_url, api_key=api_key, http_client=http_client)


def _record(connection: ModelConnection, result: ProbeResult) -> None:
    connection.tested_at = timezone.now()
    connection.test_ok = result.ok
    connection.test_message = result.message
    if result.ok:  # a failed test keeps the models it offered last time
        connection.model_ids = result.models


def connection_create(
    *,
    kind: str,
    name: str = "",
    base_url: str = "",
    api_key: str = "",
    http_client: httpx2.Client | None = None,
) -> tuple[ModelConnection, ProbeResult]:
    """Add a connection and test it at once: its model list is read from the server.
    Kept even when the test fails (the server may be down for now); the result says why.
    The site's first working model becomes the default while none is chosen."""
    if kind not in ModelConnection.Kind.values:
        raise ValidationError({"kind": "Choose Anthropic or an OpenAI-compatible server."})
    api_key = api_key.strip()
    if len(api_key) > MAX_KEY_CHARS or any(ch.isspace() for ch in api_key):
        raise ValidationError({"api_key": "A key is one word of at most 500 characters."})
    if kind == ModelConnection.Kind.ANTHROPIC:
        base_url = ""
        if not api_key:
            raise ValidationError({"api_key": "An Anthropic connection needs its API key."})
    else:
        base_url = _clean_base_url(base_url)
    name = name.strip()[:100] or (
        "Anthropic" if kind == ModelConnection.Kind.ANTHROPIC else urlsplit(base_url).netloc
    )
    # The network first, outside any transaction; then one write.
    result = _probe(kind=kind, base_url=base_url, api_key=api_key, http_client=http_client)
    connection = ModelConnection(
        kind=kind,
        name=name,
        base_url=base_url,
        api_key_encrypted=secret_encrypt(api_key) if api_key else "",
        api_key_last4=api_key[-4:],
    )
    _record(connection, result)
    with transaction.atomic():
        connection.save()
        defaults = ModelDefaults.objects.select_for_update().get_or_create(id=1)[0]
        if result.ok and defaults.default_connection_id is None:
            defaults.default_connection = connection
            defaults.default_model = result.models[0]
            defaults.save()
    return connection, result


def connection_test(
    *, connection: ModelConnection, http_client: httpx2.Client | None = None
) -> ProbeResult:
    """Ask the server for its models again (one real request) and keep what it said."""
    try:
        api_key = (
            secret_decrypt(connection.api_key_encrypted) if connection.api_key_encrypted else ""
        )
    except SecretUnreadable as error:
        result = ProbeResult(ok=False, message=str(error))
    else:
        result = _probe(
            kind=connection.kind,
            base_url=connection.base_url,
            api_key=api_key,
            http_client=http_client,
        )
    _record(connection, result)
    connection.save(
        update_fields=["tested_at", "test_ok", "test_message", "model_ids", "updated_at"]
    )
    return result


def connection_delete(*, connection: ModelConnection) -> None:
    """Conversations that picked one of its models go back to the site's default (their
    choice no longer resolves); so do the defaults (their foreign keys are set null)."""
    connection.delete()


def model_defaults_set(*, default: str, cheap: str = "") -> ModelDefaults:
    """Choose the default and the cheap model among the stored connections' models; a
    blank cheap model means the default does that work too."""
    chosen: dict[str, tuple[ModelConnection | None, str]] = {}
    for field, value in (("default", default), ("cheap", cheap)):
        if not value:
            chosen[field] = (None, "")
            continue
        key, _, model = value.partition(":")
        connection = _connection_or_none(key)
        if connection is None or model not in connection.model_ids:
            raise ValidationError({field: "Choose one of the models your connections offer."})
        chosen[field] = (connection, model)
    if chosen["default"][0] is None and chosen["cheap"][0] is not None:
        raise ValidationError({"cheap": "Choose a default model before a cheap one."})
    defaults = model_defaults()
    defaults.default_connection, defaults.default_model = chosen["default"]
    defaults.cheap_connection, defaults.cheap_model = chosen["cheap"]
    defaults.save()
    return defaults


def _connection_or_none(key: str) -> ModelConnection | None:
    try:
        return ModelConnection.objects.filter(pk=uuid.UUID(key)).first()
    except ValueError:
        return None


def conversation_model_choose(*, conversation: Conversation, choice: str) -> Conversation:
    """Remember the model ``choice`` (an option value, "" for the site's default) for the
    conversation's turns."""
    choice = choice.strip()
    if choice and endpoint_for(choice) is None:
        raise ValidationError({"model": "Choose one of the models on offer."})
    conversation.chosen_model = choice
    conversation.save(update_fields=["chosen_model"])
    return conversation
