from django.urls import path, re_path

from apps.accounts.consumers import NotFoundConsumer, UserEventsConsumer
from apps.chat.routing import websocket_urlpatterns as chat_websockets

websocket_urlpatterns = [
    path("ws/events/", UserEventsConsumer.as_asgi()),
    *chat_websockets,
    # Last: whatever no route above matches is closed with 4404, not failed with a 500.
    re_path(r"", NotFoundConsumer.as_asgi()),
]
