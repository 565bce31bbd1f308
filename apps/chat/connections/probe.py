"""One click's test of a connection: a real request for the server's model list
(``GET …/v1/models``), whatever goes wrong said in words an administrator can act on."""

from __future__ import annotations

from dataclasses import dataclass, field

import httpx2
from django.conf import settings

ANTHROPIC_ADDRESS = "api.anthropic.com"


@dataclass(frozen=True)
class ProbeResult:
    ok: bool
    message: str
    models: list[str] = field(default_factory=list)


def _timeout() -> httpx2.Timeout:
    connect = settings.CAIRN_LLM_CONNECT_TIMEOUT
    return httpx2.Timeout(max(connect, settings.CAIRN_LLM_FIRST_BYTE_TIMEOUT), connect=connect)


def _why_unreachable(error: BaseException) -> str:
    """The lowest cause's words: "Connection refused", "Name or service not known" …"""
    while error.__cause__ is not None or error.__context__ is not None:
        error = error.__cause__ or error.__context__  # type: ignore[assignment]
    text = str(getattr(error, "strerror", None) or error).strip()
    return text.rstrip(".") or type(error).__name__


def _in_words(error: Exception, *, where: str) -> str:
    name = type(error).__name__
    status = getattr(error, "status_code", None)
    if name == "APITimeoutError":
        return f"No answer from {where} within {_timeout().read:g} seconds."
    if name == "APIConnectionError":
        return (
            f"Cannot reach {where}: {_why_unreachable(error)}. "
            "Check the address and that the server is running."
        )
    if status == 401:
        return f"{where} refused the key (401 Unauthorized): check it."
    if status == 403:
        return f"{where} does not let this key list its models (403 Forbidden)."
    if status == 404:
        return (
            f"Nothing answers at {where}/models (404 Not Found): check the base URL; "
            "for most servers it ends in /v1."
        )
    if status is not None:
        return f"{where} answered {status}: {getattr(error, 'message', error)}"
    # A server that answers something else than a model list (a web page, other JSON).
    return f"{where} did not answer with a model list ({error})."


def _listed(ids: list[str], *, where: str) -> ProbeResult:
    ids = sorted({model_id for model_id in ids if model_id})
    if not ids:
        return ProbeResult(
            ok=False,
            message=f"{where} answered but offers no models: load or pull one first.",
        )
    count = f"{len(ids)} model{'s' if len(ids) != 1 else ''}"
    return ProbeResult(ok=True, message=f"Connected: {count} offered.", models=ids)


def probe_openai(
    *, base_url: str, api_key: str, http_client: httpx2.Client | None = None
) -> ProbeResult:
    import openai

    where = base_url.rstrip("/")
    client = openai.OpenAI(
        api_key=api_key or "not-needed",  # local servers ignore it; the SDK insists
        base_url=where,
        timeout=_timeout(),
        max_retries=0,
        http_client=http_client,
    )
    try:
        page = client.models.list()
        return _listed([model.id for model in page.data], where=where)
    except (openai.OpenAIError, ValueError, TypeError) as error:
        return ProbeResult(ok=False, message=_in_words(error, where=where))
    finally:
        if http_client is None:
            client.close()


def probe_anthropic(
    *, api_key: str, base_url: str = "", http_client: httpx2.Client | None = None
) -> ProbeResult:
    import anthropic

    where = base_url.rstrip("/") or ANTHROPIC_ADDRESS
    client = anthropic.Anthropic(
        api_key=api_key,
        base_url=base_url or None,
        timeout=_timeout(),
        max_retries=0,
        http_client=http_client,
    )
    try:
        page = client.models.list(limit=100)
        return _listed([model.id for model in page.data], where=where)
    except (anthropic.AnthropicError, ValueError, TypeError) as error:
        return ProbeResult(ok=False, message=_in_words(error, where=where))
    finally:
        if http_client is None:
            client.close()
