from django.apps import AppConfig


class IndexingConfig(AppConfig):
    name = "apps.indexing"
    label = "indexing"
    verbose_name = "Files and search"

    def ready(self) -> None:
        from apps.claims.signals import claims_content_changed

        from .services.claims import claims_content_changed_receiver

        # claims → indexing would be a backward dependency; the signal keeps it one-way.
        claims_content_changed.connect(
            claims_content_changed_receiver, dispatch_uid="indexing.embed_claims"
        )
