"""Choose the provider: ``get_llm_provider`` from plain configuration, ``build_provider``
from the settings, and ``provider_for_running_loop`` one per event loop (the SDK's
connection pool is bound to the loop it was created on)."""

from __future__ import annotations

import asyncio
import weakref
from dataclasses import dataclass

import httpx2
from django.conf import settings

from apps.chat.llm.bounds import Bounds
from apps.chat.llm.offline import OfflineProvider
from apps.chat.llm.types import LLMProvider


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


_providers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LLMProvider] = (
    weakref.WeakKeyDictionary()
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


def build_provider() -> LLMProvider:
    return get_llm_provider(
        api_key=settings.ANTHROPIC_API_KEY or None,
        main_model=settings.CAIRN_MAIN_MODEL,
        cheap_model=settings.CAIRN_CHEAP_MODEL,
        offline_word_delay=settings.CAIRN_OFFLINE_WORD_DELAY,
        compatible=compatible_server(),
        bounds=Bounds.from_settings(),
    )


def provider_description() -> str:
    """Which model answers, in words, for the Settings page (no network call)."""
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


def provider_for_running_loop() -> LLMProvider:
    loop = asyncio.get_running_loop()
    provider = _providers.get(loop)
    if provider is None:
        provider = _providers[loop] = build_provider()
    return provider
