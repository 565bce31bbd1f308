"""What every page may show of the chat's configuration, computed only when used."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from apps.chat.connections.selectors import answerer_in_words, site_models


def llm_provider(request: HttpRequest) -> dict[str, object]:
    return {
        # Who answers by default: the environment's model, else the connections page's.
        "llm_provider": SimpleLazyObject(lambda: answerer_in_words(site_models().answerer)),
        # The chat page's banner says this once, instead of every offline answer (the page
        # itself says it of the conversation's own model).
        "llm_offline": SimpleLazyObject(lambda: site_models().answerer.offline),
    }
