"""The configured LLM provider, one per event loop (the SDK's connection pool is bound to
the loop it was created on)."""

from __future__ import annotations

import asyncio
import weakref

from django.conf import settings

from apps.chat.llm import LLMProvider, get_llm_provider

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
