from django.apps import AppConfig


class ChatConfig(AppConfig):
    name = "apps.chat"
    label = "chat"
    verbose_name = "Chat"

    def ready(self) -> None:
        from apps.claims.signals import claim_superseded
        from apps.facts.messages import message_source_register
        from apps.indexing.turns import turn_source_register

        from .message_source import ChatMessageSource
        from .services.conversations import claim_superseded_receiver
        from .turn_source import ChatTurnSource

        turn_source_register(ChatTurnSource())
        message_source_register(ChatMessageSource())
        claim_superseded.connect(claim_superseded_receiver, dispatch_uid="chat.pins")
