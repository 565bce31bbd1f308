from django.apps import AppConfig


class ContextsConfig(AppConfig):
    name = "apps.contexts"
    label = "contexts"
    verbose_name = "Context tree"  # not "Contexts › Contexts" in the admin

    def ready(self) -> None:
        from apps.claims.services.identity import friendly_id_space_register

        from .services import contexts_hold_friendly_id

        friendly_id_space_register(contexts_hold_friendly_id)
