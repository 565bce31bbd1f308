from django.contrib.admin.apps import AdminConfig


class CairnAdminConfig(AdminConfig):
    default_site = "config.admin_site.CairnAdminSite"
