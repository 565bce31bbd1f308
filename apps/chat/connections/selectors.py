"""Which models a turn may use and which one it does. The environment wins: when
ANTHROPIC_API_KEY (or CAIRN_LLM_BASE_URL with CAIRN_LLM_MODEL) is set, its models are the
default and cheap ones, whatever the page stored; the page's connections stay on offer
in each conversation's picker."""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass

from django.conf import settings
from django.http import Http404

from apps.chat.llm.factory import OFFLINE, Answerer, Endpoint, env_answerer
from apps.chat.models import Conversation

from .models import ModelConnection, ModelDefaults
from .secrets import SecretUnreadable, secret_decrypt

logger = logging.getLogger(__name__)

OFFLINE_KEY = "offline"
ENV_PREFIX = "env-"
ENV_ANTHROPIC = f"{ENV_PREFIX}anthropic"
ENV_OPENAI = f"{ENV_PREFIX}openai"


@dataclass(frozen=True)
class ModelOption:
    """One model a conversation (or the defaults form) may pick."""

    value: str  # "<connection key>:<model id>"; model ids may hold ":" themselves
    connection: str  # the connection's name
    model: str

    @property
    def label(self) -> str:
        return self.model if self.value == OFFLINE_VALUE else f"{self.model} · {self.connection}"


OFFLINE_VALUE = f"{OFFLINE_KEY}:{OFFLINE.model}"


@dataclass(frozen=True)
class EnvSetting:
    """An environment variable the page shows, with its value when it is no secret."""

    name: str
    shown: str


def option_value(connection_key: str, model: str) -> str:
    return f"{connection_key}:{model}"


def connection_list() -> list[ModelConnection]:
    return list(ModelConnection.objects.order_by("created_at"))


def connection_get(*, connection_id: uuid.UUID | str) -> ModelConnection:
    try:
        return ModelConnection.objects.get(id=uuid.UUID(str(connection_id)))
    except (ValueError, ModelConnection.DoesNotExist) as exc:
        raise Http404("No such connection.") from exc


def model_defaults() -> ModelDefaults:
    """The stored defaults; an unsaved empty row until the first is chosen (a read never
    writes)."""
    stored = (
        ModelDefaults.objects.select_related("default_connection", "cheap_connection")
        .filter(id=1)
        .first()
    )
    return stored or ModelDefaults(id=1)


def env_settings() -> list[EnvSetting]:
    """The model variables set in the environment, keys shown by their last 4 only."""
    shown: list[EnvSetting] = []
    if settings.ANTHROPIC_API_KEY.strip():
        shown.append(EnvSetting("ANTHROPIC_API_KEY", masked(settings.ANTHROPIC_API_KEY)))
        shown.append(EnvSetting("CAIRN_MAIN_MODEL", settings.CAIRN_MAIN_MODEL))
        shown.append(EnvSetting("CAIRN_CHEAP_MODEL", settings.CAIRN_CHEAP_MODEL))
    for name in ("CAIRN_LLM_BASE_URL", "CAIRN_LLM_MODEL", "CAIRN_LLM_CHEAP_MODEL"):
        if str(getattr(settings, name)).strip():
            shown.append(EnvSetting(name, getattr(settings, name)))
    if settings.CAIRN_LLM_API_KEY.strip():
        shown.append(EnvSetting("CAIRN_LLM_API_KEY", masked(settings.CAIRN_LLM_API_KEY)))
    return shown


def masked(key: str) -> str:
    return f"…{key.strip()[-4:]}" if key.strip() else ""


def _env_endpoints() -> dict[str, list[Endpoint]]:
    """The environment's connection, by key, with its models (main first)."""
    configured = env_answerer()
    if configured is None:
        return {}
    key = ENV_ANTHROPIC if configured.main.kind == "anthropic" else ENV_OPENAI
    endpoints = [configured.main]
    if configured.cheap.model != configured.main.model:
        endpoints.append(configured.cheap)
    return {key: endpoints}


def _stored_endpoint(connection: ModelConnection, model: str) -> Endpoint | None:
    """None when this server's secrets key cannot read the stored key."""
    try:
        api_key = (
            secret_decrypt(connection.api_key_encrypted) if connection.api_key_encrypted else ""
        )
    except SecretUnreadable:
        logger.warning("connection %s: its key cannot be decrypted", connection.pk)
        return None
    return Endpoint(
        kind="anthropic" if connection.kind == ModelConnection.Kind.ANTHROPIC else "openai",
        model=model,
        base_url=connection.base_url,
        api_key=api_key,
        label=connection.name,
    )


def model_options() -> list[ModelOption]:
    """Every model on offer: the environment's, each stored connection's, then offline."""
    options = [
        ModelOption(
            value=option_value(key, endpoint.model), connection=endpoint.label, model=endpoint.model
        )
        for key, endpoints in _env_endpoints().items()
        for endpoint in endpoints
    ]
    for connection in connection_list():
        options += [
            ModelOption(
                value=option_value(str(connection.pk), model),
                connection=connection.name,
                model=model,
            )
            for model in connection.model_ids
        ]
    options.append(ModelOption(value=OFFLINE_VALUE, connection="", model=OFFLINE.label))
    return options


def endpoint_for(value: str) -> Endpoint | None:
    """The endpoint an option value names, or None when it is not (or no longer) offered."""
    key, _, model = value.partition(":")
    if value == OFFLINE_VALUE:
        return OFFLINE
    for endpoint in _env_endpoints().get(key, []):
        if endpoint.model == model:
            return endpoint
    if key in (OFFLINE_KEY, ENV_ANTHROPIC, ENV_OPENAI):
        return None
    try:
        connection = ModelConnection.objects.get(id=uuid.UUID(key))
    except (ValueError, ModelConnection.DoesNotExist):
        return None
    if model not in connection.model_ids:
        return None
    return _stored_endpoint(connection, model)


@dataclass(frozen=True)
class SiteModels:
    """The default and cheap models in effect, and whether the environment set them."""

    answerer: Answerer
    from_environment: bool
    default_value: str
    cheap_value: str  # "" when the default model does the cheap work too


def site_models() -> SiteModels:
    configured = env_answerer()
    if configured is not None:
        key = ENV_ANTHROPIC if configured.main.kind == "anthropic" else ENV_OPENAI
        return SiteModels(
            answerer=configured,
            from_environment=True,
            default_value=option_value(key, configured.main.model),
            cheap_value=option_value(key, configured.cheap.model),
        )
    defaults = model_defaults()
    default_value = cheap_value = ""
    main = cheap = None
    if defaults.default_connection_id is not None:
        default_value = option_value(str(defaults.default_connection_id), defaults.default_model)
        main = endpoint_for(default_value)
    if defaults.cheap_connection_id is not None:
        cheap_value = option_value(str(defaults.cheap_connection_id), defaults.cheap_model)
        cheap = endpoint_for(cheap_value)
    main = main or OFFLINE
    return SiteModels(
        answerer=Answerer(main=main, cheap=cheap if cheap and main is not OFFLINE else main),
        from_environment=False,
        default_value=default_value if main is not OFFLINE else "",
        cheap_value=cheap_value if cheap else "",
    )


def conversation_answerer(*, conversation: Conversation) -> Answerer:
    """Who answers the conversation: the model its picker holds (read afresh), with the
    site's cheap model beside it (or the chosen one when the site has none); the site's
    default when it picked none or its choice is no longer offered."""
    choice = (
        Conversation.objects.filter(pk=conversation.pk)
        .values_list("chosen_model", flat=True)
        .first()
    )
    conversation.chosen_model = choice or ""
    return choice_answerer(choice=conversation.chosen_model)


def choice_answerer(*, choice: str) -> Answerer:
    site = site_models().answerer
    chosen = endpoint_for(choice) if choice else None
    if chosen is None:
        return site
    if chosen is OFFLINE:
        return Answerer(main=OFFLINE, cheap=OFFLINE)
    return Answerer(main=chosen, cheap=chosen if site.offline else site.cheap)


def answerer_in_words(answerer: Answerer) -> str:
    main = answerer.main
    if main.kind == "offline":
        return (
            "The offline provider: answers are composed from your memory without a language model."
        )
    if main.kind == "anthropic":
        return f"Claude ({main.model}) through the Anthropic API — {main.label}"
    return f"{main.model} on the OpenAI-compatible server at {main.base_url} — {main.label}"
