"""Memory units (issue 31): the statements the user's chat turns make, told of whoever
said them (``indexing.units``: "Ingrid took Ingrid's two to the pottery class."), nearest
to the question first, each counted for the turn it came from by its best unit — a
ranking hybrid search fuses with the others (``Fusion.units``).

A question asks in the third person ("what does Ingrid do with the kids?") of turns said
in the first ("Ingrid: … the only thing that tires my two out"); the turn's own vector
holds neither the name (``mentions.unheaded``) nor the third person, a unit both, and
only what the turn states, without its greetings and questions. On the quality corpus's
test half the list took the hybrid from .702/.789 (recall@5/@10) to .712/.823, and on the
questions about the transcripts' speakers from .679/.746 to .737/.817
(bench/bench_units.py). Most of the overall gain is that only statements are ranked (the
turns' own vectors, of the turns that state something: .710/.821); the third person is
what the speakers' questions gain (that control: .679/.775).

The units are found by the user's own rows (HNSW, or every one compared for a small
account, as ``subset_plan`` says), then their turns are checked against the search's
scope, as BM25's best rows are: a forgotten, archived or other project's turn counts for
nothing, its units with it.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import connection

from ..embeddings import Vector
from ..models import MemoryUnit
from ._plans import subset_plan
from ._queries import Candidate, Scope, chunk_scope, in_scopes, nearest, search_session

if TYPE_CHECKING:
    from apps.accounts.models import User
    from apps.projects.models import Project

# Units read for each turn wanted: a turn may hold several, and some turns are out of the
# search's scope; a list that kept too few is read deeper.
READ_PER_TURN = 2
DEEPER = 4
MAX_READ = 2000

_UNITS_SQL = (
    f"SELECT u.chunk_id AS id, u.embedding FROM {MemoryUnit._meta.db_table} AS u "  # noqa: S608 - tables from code, values as parameters
    "WHERE u.user_id = %s"
)


def units_ranking(
    *,
    user: User,
    project: Project | None,
    exclude_message_ids: Sequence[uuid.UUID | str],
    query_vector: Future[Vector],
    depth: int,
) -> list[Candidate]:
    """The ``depth`` chat turns whose units are nearest to the query (its embedding:
    ``query_vector``, waited for once the user's units are counted), each by its best."""
    scope = chunk_scope(
        user_id=user.pk,
        project_id=project.pk if project else None,
        kinds=["message"],
        exclude_message_ids=exclude_message_ids,
    )
    units = Scope("chunk", _UNITS_SQL, (user.pk,))
    with search_session(["chunk"]):
        plan = subset_plan(units.kind, _count(user.pk))
        vector = query_vector.result()
        read = READ_PER_TURN * depth
        while True:
            found = nearest([units], vector, read, plan)
            best: dict[int, Candidate] = {}
            for candidate in found:
                best.setdefault(int(candidate.id), candidate)
            [kept] = in_scopes([(scope, list(best))]) if best else [set()]
            ranked = [candidate for pk, candidate in best.items() if pk in kept][:depth]
            if len(ranked) >= depth or len(found) < read or read >= MAX_READ:
                return ranked
            read = min(DEEPER * read, MAX_READ)


def _count(user_id: int) -> int:
    """The user's units, counted no further than ``subset_plan``'s threshold."""
    cap = int(settings.CAIRN_SEARCH_EXACT_ROWS_SMALL)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM {MemoryUnit._meta.db_table} "  # noqa: S608 - tables from code, values as parameters
            "WHERE user_id = %s LIMIT %s) AS rows",
            [user_id, cap + 1],
        )
        (rows,) = cursor.fetchone()
    return int(rows)
