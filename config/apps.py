from django.contrib.admin.apps import AdminConfig


class CairnAdminConfig(AdminConfig):
    default_site = "config.admin_site.CairnAdminSite"

    def ready(self) -> None:
        super().ready()
        # config is not an app of its own; the project's admin config is the one place
        # it gets a ready(), so the project-wide system checks register here.
        from config import checks  # noqa: F401
