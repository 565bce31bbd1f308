from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "apps.core"
    label = "core"
    verbose_name = "Core"

    def ready(self) -> None:
        from django_q.signals import post_spawn

        from .work import on_worker_start

        post_spawn.connect(on_worker_start, dispatch_uid="cairn-work-sweep-at-start")
