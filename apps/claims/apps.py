from django.apps import AppConfig


class ClaimsConfig(AppConfig):
    name = "apps.claims"
    label = "claims"
    verbose_name = "Knowledge"
