"""ASGI entry point: HTTP through Django, websockets through Channels (DESIGN §1)."""

import gc
import logging
import os
import threading

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

# Django must be set up before the consumers (and their models) are imported.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from apps.chat.mcp.server import mcp_asgi_apps  # noqa: E402
from config.routing import websocket_urlpatterns  # noqa: E402

mcp_http_app, mcp_lifespan_app = mcp_asgi_apps()


async def http_app(scope: dict, receive: object, send: object) -> None:  # type: ignore[type-arg]
    """``/mcp`` and ``/mcp/…`` go to the MCP server (its own authentication); the rest to
    Django."""
    path = scope["path"]
    if path == "/mcp" or path.startswith("/mcp/"):
        await mcp_http_app({**scope, "path": "/mcp/"} if path == "/mcp" else scope, receive, send)
    else:
        await django_asgi_app(scope, receive, send)  # type: ignore[arg-type]


application = ProtocolTypeRouter(
    {
        "http": http_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
        # The MCP SDK runs its task group for the server's lifetime (`make run` starts
        # uvicorn with the lifespan on); Django needs no lifespan of its own.
        "lifespan": mcp_lifespan_app,
    }
)


def _warm_up() -> None:
    """Load spaCy and the embedding model now, not in the first user's chat turn, then move
    everything loaded so far (it lives as long as the process) out of the collector's
    reach: otherwise each full collection re-scans it, tens of milliseconds in the middle
    of a request (issue 3's resolve p95)."""
    from apps.facts.extraction.nlp import get_nlp
    from apps.indexing.embeddings import get_embedding_provider

    try:
        get_nlp()
        get_embedding_provider().embed_query("warm-up")
    except Exception:  # a missing model is reported where it is used, with its fix
        logging.getLogger(__name__).exception("warm-up failed")
    gc.freeze()


gc.freeze()
if os.environ.get("CAIRN_WARM_UP", "1") == "1":
    threading.Thread(target=_warm_up, name="cairn-warm-up", daemon=True).start()
