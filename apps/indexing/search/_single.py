"""Either ranking of hybrid search alone (``_engine``): nearest by cosine similarity
(``vector_search``), best by BM25 (``text_search``), over the same scopes. The quality
benchmark compares them with the fused search; the API serves only the fused one."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..embeddings import Vector, get_embedding_provider
from ._engine import KINDS, _clamp, _collection, _plan, _scopes
from ._hits import SearchHit, _hits
from ._queries import Lexical, bm25_ranking, nearest, search_session

if TYPE_CHECKING:
    from apps.accounts.models import User
    from apps.projects.models import Project


def vector_search(
    *,
    user: User,
    query: str = "",
    vector: Vector | None = None,
    project: Project | None = None,
    kinds: Sequence[str] = KINDS,
    k: int = 10,
    exclude_message_ids: Sequence[uuid.UUID | str] = (),
) -> list[SearchHit]:
    """Nearest by cosine similarity alone (``vector`` spares embedding ``query`` again)."""
    if vector is None:
        if not query.strip():
            return []
        vector = get_embedding_provider().embed_query(query)
    scopes = _scopes(user, project, kinds, exclude_message_ids)
    with search_session([scope.kind for scope in scopes]):
        ranked = nearest(scopes, vector, _clamp(k), _plan(user, project, kinds))
    ranked = ranked[: _clamp(k)]
    return _hits([(c, c.value) for c in ranked], ranked, [])


def text_search(
    *,
    user: User,
    query: str,
    project: Project | None = None,
    kinds: Sequence[str] = KINDS,
    k: int = 10,
    exclude_message_ids: Sequence[uuid.UUID | str] = (),
) -> list[SearchHit]:
    """Best by BM25 alone."""
    if not query.strip():
        return []
    scopes = _scopes(user, project, kinds, exclude_message_ids)
    turns = Lexical(scopes, _collection(user, project, kinds))
    with search_session([scope.kind for scope in scopes]):
        ranked = bm25_ranking(turns, query, _clamp(k))
    return _hits([(c, c.value) for c in ranked], [], ranked)
