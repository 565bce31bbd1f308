from django.apps import AppConfig


class ContextsConfig(AppConfig):
    name = "apps.contexts"
    label = "contexts"
    verbose_name = "Context tree"  # not "Contexts › Contexts" in the admin

    def ready(self) -> None:
        from apps.claims.services.identity import friendly_id_space_register
        from apps.claims.signals import claim_superseded

        from .services import claim_superseded_receiver, contexts_hold_friendly_id

        friendly_id_space_register(contexts_hold_friendly_id)
        claim_superseded.connect(claim_superseded_receiver, dispatch_uid="contexts.memberships")
