from django.apps import AppConfig


class FactsConfig(AppConfig):
    name = "apps.facts"
    label = "facts"
    verbose_name = "Facts"  # "Facts › Project facts", not the same words twice
