from django.apps import AppConfig


class KnowledgeConfig(AppConfig):
    name = "apps.knowledge"
    label = "knowledge"
    verbose_name = "Knowledge editor"
