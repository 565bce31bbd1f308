from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "apps.accounts"
    label = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_out

        from .sessions import on_user_logged_out

        user_logged_out.connect(on_user_logged_out, dispatch_uid="cairn-sockets-end-on-logout")
