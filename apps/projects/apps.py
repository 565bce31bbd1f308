from typing import Any

from django.apps import AppConfig


class ProjectsConfig(AppConfig):
    name = "apps.projects"
    label = "projects"
    verbose_name = "Workspaces"  # "Workspaces › Projects", not the same words twice

    def ready(self) -> None:
        from apps.accounts.signals import user_created

        user_created.connect(_give_personal_project, dispatch_uid="projects.personal_project")


def _give_personal_project(sender: Any, *, user: Any, **kwargs: Any) -> None:
    from .services import project_ensure_personal

    project_ensure_personal(user=user)
