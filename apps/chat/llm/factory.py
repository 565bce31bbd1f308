"""Choose the provider: ``get_llm_provider`` from plain configuration, ``build_provider``
from the settings, and ``provider_for_running_loop`` one per event loop (the SDK's
connection pool is bound to the loop it was created on)."""

from __future__ import annotations

import asyncio
import weakref

import httpx2
from django.conf import settings

from apps.chat.llm.offline import OfflineProvider
from apps.chat.llm.types import LLMProvider


def get_llm_provider(
    *,
    api_key: str | None,
    main_model: str,
    cheap_model: str,
    http_client: httpx2.AsyncClient | None = None,
    base_url: str | None = None,
    timeout: float | None = None,
    max_retries: int | None = None,
    max_tool_rounds: int | None = None,
    offline_word_delay: float = 0.0,
) -> LLMProvider:
    """Claude when an API key is given, the offline provider otherwise.

    The Anthropic client keeps a connection pool bound to the running event loop: build
    the provider once per process (or per loop) and reuse it rather than once per turn.
    """
    if not api_key or not api_key.strip():
        return OfflineProvider(word_delay=offline_word_delay)
    # Imported here so that an offline install never pays for importing the SDK.
    from apps.chat.llm import anthropic_provider as claude

    return claude.AnthropicProvider(
        api_key=api_key.strip(),
        main_model=main_model,
        cheap_model=cheap_model,
        http_client=http_client,
        base_url=base_url,
        timeout=claude.DEFAULT_TIMEOUT_SECONDS if timeout is None else timeout,
        max_retries=claude.DEFAULT_MAX_RETRIES if max_retries is None else max_retries,
        max_tool_rounds=(
            claude.DEFAULT_MAX_TOOL_ROUNDS if max_tool_rounds is None else max_tool_rounds
        ),
    )


_providers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LLMProvider] = (
    weakref.WeakKeyDictionary()
)


def build_provider() -> LLMProvider:
    return get_llm_provider(
        api_key=settings.ANTHROPIC_API_KEY or None,
        main_model=settings.CAIRN_MAIN_MODEL,
        cheap_model=settings.CAIRN_CHEAP_MODEL,
        offline_word_delay=settings.CAIRN_OFFLINE_WORD_DELAY,
    )


def provider_for_running_loop() -> LLMProvider:
    loop = asyncio.get_running_loop()
    provider = _providers.get(loop)
    if provider is None:
        provider = _providers[loop] = build_provider()
    return provider
