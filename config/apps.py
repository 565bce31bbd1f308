from django.contrib.admin.apps import AdminConfig


class CairnAdminConfig(AdminConfig):
    default_site = "config.admin_site.CairnAdminSite"

    def ready(self) -> None:
        super().ready()
        # config is not an app of its own; the project's admin config is the one place
        # it gets a ready(), so the project-wide system checks register here, and the
        # health checks too, before any app's (/healthz lists the database first).
        from config import checks, health  # noqa: F401
