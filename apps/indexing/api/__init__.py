from .views import DocumentViewSet, SearchApi, SourceViewSet

__all__ = ["DocumentViewSet", "SearchApi", "SourceViewSet"]
