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

from config.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
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
