from django.apps import AppConfig


class ContextsConfig(AppConfig):
    name = "apps.contexts"
    label = "contexts"
    verbose_name = "Context tree"  # not "Contexts › Contexts" in the admin
