from django.urls import path

from apps.accounts.consumers import UserEventsConsumer
from apps.chat.routing import websocket_urlpatterns as chat_websockets

websocket_urlpatterns = [
    path("ws/events/", UserEventsConsumer.as_asgi()),
    *chat_websockets,
]
