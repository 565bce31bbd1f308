"""What every page may show of the chat's configuration, computed only when used."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from apps.chat.llm.factory import provider_description


def llm_provider(request: HttpRequest) -> dict[str, object]:
    return {
        "llm_provider": SimpleLazyObject(provider_description),
        # The chat page's banner says this once, instead of every offline answer.
        "llm_offline": SimpleLazyObject(lambda: provider_description().startswith("The offline")),
    }
