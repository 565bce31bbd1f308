"""Choose the provider: ``get_llm_provider`` from plain configuration, ``build_provider``
from the settings or from an ``Answerer`` (the models a turn uses, which the connections
page and a conversation's model picker choose: apps/chat/connections), and
``provider_for_running_loop`` one per event loop and answerer (the SDK's connection pool
is bound to the loop it was created on)."""

from __future__ import annotations

import asyncio
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, TypeAlias

import httpx2
from django.conf import settings

from apps.chat.llm.bounds import Bounds
from apps.chat.llm.offline import OFFLINE_MODEL, OfflineProvider
from apps.chat.llm.types import (
    DEFAULT_MAX_TOKENS,
    ChatTurn,
    CompletionTask,
    LLMProvider,
    ModelRole,
    SourceItem,
    StreamEvent,
    ToolExecutor,
    ToolSpec,
)

EndpointKind: TypeAlias = Literal["anthropic", "openai", "offline"]


def get_llm_provider(
    *,
    api_key: str | None,
    main_model: str,
    cheap_model: str,
    http_client: httpx2.AsyncClient | None = None,
    base_url: str | None = None,
    bounds: Bounds | None = None,
    max_retries: int | None = None,
    max_tool_rounds: int | None = None,
    offline_word_delay: float = 0.0,
    compatible: CompatibleServer | None = None,
) -> LLMProvider:
    """Claude when an API key is given; else the OpenAI-compatible server when one is
    configured; the offline provider otherwise.

    The Anthropic client keeps a connection pool bound to the running event loop: build
    the provider once per process (or per loop) and reuse it rather than once per turn.
    """
    if not api_key or not api_key.strip():
        if compatible is not None:
            from apps.chat.llm.openai_compatible import OpenAICompatibleProvider

            return OpenAICompatibleProvider(
                base_url=compatible.base_url,
                main_model=compatible.model,
                cheap_model=compatible.cheap_model,
                api_key=compatible.api_key,
                tools=compatible.tools,
                http_client=http_client,
                bounds=bounds,
            )
        return OfflineProvider(word_delay=offline_word_delay)
    # Imported here so that an offline install never pays for importing the SDK.
    from apps.chat.llm import anthropic_provider as claude

    return claude.AnthropicProvider(
        api_key=api_key.strip(),
        main_model=main_model,
        cheap_model=cheap_model,
        http_client=http_client,
        base_url=base_url,
        bounds=bounds,
        max_retries=claude.DEFAULT_MAX_RETRIES if max_retries is None else max_retries,
        max_tool_rounds=(
            claude.DEFAULT_MAX_TOOL_ROUNDS if max_tool_rounds is None else max_tool_rounds
        ),
    )


@dataclass(frozen=True)
class CompatibleServer:
    """An OpenAI-compatible chat server: CAIRN_LLM_BASE_URL, CAIRN_LLM_MODEL …"""

    base_url: str
    model: str
    cheap_model: str | None = None
    api_key: str | None = None
    tools: bool = True


def compatible_server() -> CompatibleServer | None:
    if not settings.CAIRN_LLM_BASE_URL.strip():
        return None
    return CompatibleServer(
        base_url=settings.CAIRN_LLM_BASE_URL,
        model=settings.CAIRN_LLM_MODEL,
        cheap_model=settings.CAIRN_LLM_CHEAP_MODEL or None,
        api_key=settings.CAIRN_LLM_API_KEY or None,
        tools=settings.CAIRN_LLM_TOOLS,
    )


@dataclass(frozen=True)
class Endpoint:
    """One model on one server: what building a client for it needs. The key is the
    plain key, held in memory only (repr hides it, so a log line never shows it)."""

    kind: EndpointKind
    model: str
    base_url: str = ""
    api_key: str = field(default="", repr=False)
    tools: bool = True
    label: str = ""  # the connection's name, for the page

    def same_server(self, other: Endpoint) -> bool:
        return (self.kind, self.base_url, self.api_key, self.tools) == (
            other.kind,
            other.base_url,
            other.api_key,
            other.tools,
        )


OFFLINE = Endpoint(kind="offline", model=OFFLINE_MODEL, label="Offline (no language model)")


@dataclass(frozen=True)
class Answerer:
    """Who answers a turn: the main model, and the cheap one for distillation, the
    citation review and memory extraction (the roles ``ModelRole`` names)."""

    main: Endpoint
    cheap: Endpoint

    @property
    def offline(self) -> bool:
        return self.main.kind == "offline"


def env_answerer() -> Answerer | None:
    """What the environment configures, which wins over the connections page: Claude
    when ANTHROPIC_API_KEY is set, else the CAIRN_LLM_* server; None when neither is."""
    key = settings.ANTHROPIC_API_KEY.strip()
    if key:
        label = "Anthropic (from the environment)"
        return Answerer(
            main=Endpoint(
                kind="anthropic", model=settings.CAIRN_MAIN_MODEL, api_key=key, label=label
            ),
            cheap=Endpoint(
                kind="anthropic", model=settings.CAIRN_CHEAP_MODEL, api_key=key, label=label
            ),
        )
    server = compatible_server()
    if server is None or not server.model.strip():
        return None
    endpoint = Endpoint(
        kind="openai",
        model=server.model,
        base_url=server.base_url,
        api_key=server.api_key or "",
        tools=server.tools,
        label="OpenAI-compatible server (from the environment)",
    )
    cheap = server.cheap_model or server.model
    return Answerer(main=endpoint, cheap=replace(endpoint, model=cheap))


class SplitProvider:
    """The main model on one server and the cheap one on another: each role goes to the
    provider that serves it."""

    def __init__(self, *, main: LLMProvider, cheap: LLMProvider) -> None:
        self._by_role: dict[ModelRole, LLMProvider] = {"main": main, "cheap": cheap}

    @property
    def name(self) -> str:
        return self._by_role["main"].name

    def model_name(self, role: ModelRole) -> str:
        return self._by_role[role].model_name(role)

    def stream(
        self,
        *,
        system: str,
        messages: Sequence[ChatTurn],
        tools: Sequence[ToolSpec] = (),
        tool_executor: ToolExecutor | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        model_role: ModelRole = "main",
        sources: Sequence[SourceItem] = (),
    ) -> AsyncIterator[StreamEvent]:
        return self._by_role[model_role].stream(
            system=system,
            messages=messages,
            tools=tools,
            tool_executor=tool_executor,
            max_tokens=max_tokens,
            model_role=model_role,
            sources=sources,
        )

    async def complete(
        self,
        *,
        system: str,
        prompt: str,
        task: CompletionTask = "other",
        max_tokens: int = 1024,
        model_role: ModelRole = "cheap",
    ) -> str:
        return await self._by_role[model_role].complete(
            system=system, prompt=prompt, task=task, max_tokens=max_tokens, model_role=model_role
        )

    async def aclose(self) -> None:
        for provider in {id(p): p for p in self._by_role.values()}.values():
            await provider.aclose()


def _endpoint_provider(
    endpoint: Endpoint, *, cheap_model: str, http_client: httpx2.AsyncClient | None
) -> LLMProvider:
    bounds = Bounds.from_settings()
    if endpoint.kind == "anthropic":
        return get_llm_provider(
            api_key=endpoint.api_key,
            main_model=endpoint.model,
            cheap_model=cheap_model,
            base_url=endpoint.base_url or None,
            http_client=http_client,
            bounds=bounds,
        )
    if endpoint.kind == "openai":
        return get_llm_provider(
            api_key=None,
            main_model=endpoint.model,
            cheap_model=cheap_model,
            http_client=http_client,
            bounds=bounds,
            compatible=CompatibleServer(
                base_url=endpoint.base_url,
                model=endpoint.model,
                cheap_model=cheap_model,
                api_key=endpoint.api_key or None,
                tools=endpoint.tools,
            ),
        )
    return OfflineProvider(word_delay=settings.CAIRN_OFFLINE_WORD_DELAY)


def build_provider(
    answerer: Answerer | None = None, *, http_client: httpx2.AsyncClient | None = None
) -> LLMProvider:
    """The provider for ``answerer``; without one, what the environment configures (the
    offline provider when it configures nothing)."""
    if answerer is None:
        return get_llm_provider(
            api_key=settings.ANTHROPIC_API_KEY or None,
            main_model=settings.CAIRN_MAIN_MODEL,
            cheap_model=settings.CAIRN_CHEAP_MODEL,
            offline_word_delay=settings.CAIRN_OFFLINE_WORD_DELAY,
            compatible=compatible_server(),
            bounds=Bounds.from_settings(),
        )
    main, cheap = answerer.main, answerer.cheap
    if main.kind == "offline" or main.same_server(cheap):
        return _endpoint_provider(main, cheap_model=cheap.model, http_client=http_client)
    return SplitProvider(
        main=_endpoint_provider(main, cheap_model=main.model, http_client=http_client),
        cheap=_endpoint_provider(cheap, cheap_model=cheap.model, http_client=http_client),
    )


def provider_description() -> str:
    """Which model answers by the environment alone, in words (no network call)."""
    if settings.ANTHROPIC_API_KEY.strip():
        return f"Claude ({settings.CAIRN_MAIN_MODEL}) through the Anthropic API"
    server = compatible_server()
    if server is not None:
        return f"{server.model} on the OpenAI-compatible server at {server.base_url}"
    return (
        "The offline provider: answers are composed from your memory without a language "
        "model. Set ANTHROPIC_API_KEY, or CAIRN_LLM_BASE_URL and CAIRN_LLM_MODEL for a "
        "local server such as Ollama."
    )


# A few providers per event loop, one per answerer in use, the least recently asked for
# closed first: a key changed on the connections page makes a new answerer.
_PROVIDERS_PER_LOOP = 8
_providers: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, OrderedDict[Answerer | None, LLMProvider]
] = weakref.WeakKeyDictionary()
_closing: set[asyncio.Task[None]] = set()


def provider_for_running_loop(answerer: Answerer | None = None) -> LLMProvider:
    loop = asyncio.get_running_loop()
    cached = _providers.setdefault(loop, OrderedDict())
    provider = cached.get(answerer)
    if provider is None:
        provider = cached[answerer] = build_provider(answerer)
        while len(cached) > _PROVIDERS_PER_LOOP:
            _, evicted = cached.popitem(last=False)
            task = loop.create_task(evicted.aclose())
            _closing.add(task)
            task.add_done_callback(_closing.discard)
    cached.move_to_end(answerer)
    return provider
