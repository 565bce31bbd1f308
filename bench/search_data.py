"""Search data for bench_search.py (its docstring explains the choices)."""

from __future__ import annotations

import ast
import functools
import random
import sysconfig
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

# Not "bench…": bench_knowledge.py deletes every user whose e-mail starts so.
USERS = [f"search-{n}@search-bench.invalid" for n in range(10)]
BIG_CHUNKS, BIG_CLAIMS = 100_000, 10_000
OTHER_CHUNKS, OTHER_CLAIMS = 100_000, 10_000  # shared by the nine other users
CHUNKS_PER_DOCUMENT = 50
POOL_PASSAGES, POOL_CLAIMS = 2400, 800
NOISE = 0.02
MODEL = "bench-stdlib-docs"


@functools.cache
def corpus() -> tuple[str, ...]:
    """Prose paragraphs of the docstrings of the Python standard library on this machine:
    real, varied English, offline, the same on every run."""
    root = Path(sysconfig.get_paths()["stdlib"])
    found: set[str] = set()
    for path in sorted(root.rglob("*.py")):
        if {"test", "tests", "idlelib", "site-packages"} & set(path.parts):
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef):
                continue
            for paragraph in (ast.get_docstring(node) or "").split("\n\n"):
                text = " ".join(paragraph.split())
                if 120 <= len(text) <= 700 and text.count(" ") > 15 and ">>>" not in text:
                    found.add(text)
    ordered = sorted(found)
    random.Random(3).shuffle(ordered)
    return tuple(ordered)


def _first_sentence(text: str, words: int) -> str:
    return " ".join(text.split(". ")[0].split()[:words]).rstrip(".,;:")


def pools() -> tuple[list[str], list[str]]:
    """(passages, claim statements): disjoint slices of the corpus."""
    paragraphs = corpus()
    statements = [_first_sentence(p, 16) for p in paragraphs[POOL_PASSAGES:][:POOL_CLAIMS]]
    return list(paragraphs[:POOL_PASSAGES]), statements


def query_texts(rng: random.Random, count: int) -> list[str]:
    """Questions about held-out paragraphs: their first words, as someone would ask."""
    held_out = corpus()[POOL_PASSAGES + POOL_CLAIMS :]
    return [_first_sentence(p, rng.randint(4, 12)) for p in rng.sample(held_out, count)]


def data_ready() -> bool:
    from apps.indexing.models import Chunk

    return Chunk.objects.filter(embedding_model=MODEL).count() == BIG_CHUNKS + OTHER_CHUNKS


DATED_TURNS = 20_000
DATED_FROM_YEAR = 2024  # the turns are spread evenly over this year and the next


def ensure_dated_turns(email: str) -> None:
    """Make ``DATED_TURNS`` of the user's chunks chat turns said over two years (as if
    transcripts had been imported), once: questions that name a month or a year then
    search their period as they would in a real account (issue 19). The chunks keep their
    text and vectors, so the user still owns exactly ``BIG_CHUNKS``."""
    from datetime import UTC, datetime

    from django.db import connection

    from apps.accounts.models import User
    from apps.chat.models import Conversation, Message
    from apps.indexing.models import Chunk

    user = User.objects.get(email=email)
    # Only the bench's own rows count: bench_chat.py chats as this user, and its turns,
    # once a worker indexes them, are chunks of messages too (counting those made every
    # later run turn another 20,000 passages into chat turns).
    if Chunk.objects.filter(user=user, embedding_model=MODEL, message__isnull=False).count() == (
        DATED_TURNS
    ):
        _windows(user)
        return
    started = time.perf_counter()
    chunks = list(
        Chunk.objects.filter(user=user, document__isnull=False)
        .order_by("id")
        .values_list("id", "project_id", "text")[:DATED_TURNS]
    )
    start = datetime(DATED_FROM_YEAR, 1, 1, tzinfo=UTC)
    step = (datetime(DATED_FROM_YEAR + 2, 1, 1, tzinfo=UTC) - start) / DATED_TURNS
    conversation = Conversation.objects.create(
        user=user, project_id=chunks[0][1], title="Two years of chats"
    )
    messages = Message.objects.bulk_create(
        (
            Message(conversation=conversation, role="user", content=text, order=n + 1)
            for n, (_, _, text) in enumerate(chunks)
        ),
        batch_size=2000,
    )
    with connection.cursor() as cursor:
        cursor.execute(
            'UPDATE chat_message SET created_at = %s + ("order" - 1) * %s '
            "WHERE conversation_id = %s",
            [start, step, conversation.pk],
        )
        cursor.execute(
            "UPDATE indexing_chunk AS chunk SET document_id = NULL, chunk_index = 0, "
            "message_id = turn.message_id, said_at = turn.said_at, start = 0, "
            '"end" = length(chunk.text) FROM unnest(%s::bigint[], %s::uuid[], '
            "%s::timestamptz[]) AS turn(chunk_id, message_id, said_at) "
            "WHERE chunk.id = turn.chunk_id",
            [
                [pk for pk, _, _ in chunks],
                [m.pk for m in messages],
                [start + n * step for n in range(len(chunks))],
            ],
        )
    print(
        f"made {len(chunks):,} of the measured user's chunks chat turns said in "
        f"{DATED_FROM_YEAR}–{DATED_FROM_YEAR + 1} ({time.perf_counter() - started:.0f} s)",
        flush=True,
    )
    _windows(user)


def _windows(user: Any) -> None:
    """Each turn's window (speaker, day, the turns before and after it), as indexing
    writes it: the triggers then file the turns' postings as a chat's, windows included."""
    from django.db import connection

    from apps.indexing.chunking import message_window_context
    from apps.indexing.models import Chunk

    turns = list(
        Chunk.objects.filter(user=user, embedding_model=MODEL, message__isnull=False)
        .order_by("said_at")
        .values_list("id", "text", "said_at", "context")
    )
    if all(context for *_, context in turns):
        return
    started = time.perf_counter()
    contexts = [
        message_window_context(
            speaker="user",
            created_at=said_at,
            previous=turns[n - 1][1] if n else None,
            following=turns[n + 1][1] if n + 1 < len(turns) else None,
        )
        for n, (_, _, said_at, _) in enumerate(turns)
    ]
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE indexing_chunk AS chunk SET context = turn.context "
            "FROM unnest(%s::bigint[], %s::text[]) AS turn(chunk_id, context) "
            "WHERE chunk.id = turn.chunk_id",
            [[pk for pk, *_ in turns], contexts],
        )
        # The update moved the postings (their triggers): vacuumed, as _build_indexes
        # leaves them, for the index-only reads search makes of them.
        for table in ("indexing_chunk", "indexing_chunk_posting"):
            cursor.execute(f"VACUUM ANALYZE {table}")
    print(f"wrote the turns' windows ({time.perf_counter() - started:.0f} s)", flush=True)


def _rows(pool: np.ndarray, count: int, rng: np.random.Generator) -> tuple[Any, np.ndarray]:
    """Each row mixes three pool vectors with random (Dirichlet) weights, plus noise; its
    text is that of the heaviest one."""
    picks = rng.integers(0, len(pool), (count, 3))
    weights = rng.dirichlet((1.0, 1.0, 1.0), count).astype(np.float32)
    vectors = np.einsum("rk,rkd->rd", weights, pool[picks])
    vectors += rng.normal(0, NOISE, vectors.shape).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    heaviest = picks[np.arange(count), weights.argmax(axis=1)]
    return heaviest, vectors.astype(np.float32)


def build_data(provider: Any) -> None:
    from django.db import connection

    from apps.accounts.models import User

    started = time.perf_counter()
    nprng = np.random.default_rng(1)
    texts, statements = pools()
    pool = provider.embed_documents(texts)
    claim_pool = provider.embed_documents(statements)
    print(
        f"embedded the pools ({POOL_PASSAGES} passages, {POOL_CLAIMS} statements) in "
        f"{time.perf_counter() - started:.0f} s",
        flush=True,
    )
    User.objects.filter(email__in=USERS).delete()
    with connection.cursor() as cursor:
        cursor.execute("DROP INDEX IF EXISTS chunk_embedding_hnsw_idx")
        cursor.execute("DROP INDEX IF EXISTS claim_embedding_hnsw_idx")
        cursor.execute("DROP INDEX IF EXISTS chunk_search_vector_idx")
    for index, email in enumerate(USERS):
        chunks = BIG_CHUNKS if index == 0 else OTHER_CHUNKS // 9
        claims = BIG_CLAIMS if index == 0 else OTHER_CLAIMS // 9
        if index == 9:  # the remainders, so the totals are exact
            chunks += OTHER_CHUNKS % 9
            claims += OTHER_CLAIMS % 9
        _load_user(email, chunks, claims, texts, pool, statements, claim_pool, nprng)
        print(
            f"  loaded {email}: {chunks:,} chunks, {claims:,} claims "
            f"({time.perf_counter() - started:.0f} s)",
            flush=True,
        )
    _build_indexes()
    print(f"built the indexes ({time.perf_counter() - started:.0f} s in all)", flush=True)


def _load_user(
    email: str,
    chunks: int,
    claims: int,
    texts: list[str],
    pool: np.ndarray,
    statements: list[str],
    claim_pool: np.ndarray,
    rng: np.random.Generator,
) -> None:
    from django.utils import timezone

    from apps.accounts.models import User
    from apps.claims.models import Claim
    from apps.indexing.models import Document, Source
    from apps.projects.services import project_ensure_personal

    user = User.objects.create_user(email=email, password=None)
    project = project_ensure_personal(user=user)
    source = Source.objects.create(project=project, kind="upload", name="Bench", status="ready")
    documents = Document.objects.bulk_create(
        Document(
            source=source,
            path=f"doc{n}.txt",
            status="indexed",
            chunk_count=CHUNKS_PER_DOCUMENT,
            indexed_at=timezone.now(),
        )
        for n in range(-(-chunks // CHUNKS_PER_DOCUMENT))
    )
    which, vectors = _rows(pool, chunks, rng)
    now = timezone.now()
    rows = (
        (
            documents[n // CHUNKS_PER_DOCUMENT].pk,
            user.pk,
            project.pk,
            n % CHUNKS_PER_DOCUMENT,
            texts[which[n]],
            0,
            len(texts[which[n]]),
            vectors[n],
            MODEL,
            now,
        )
        for n in range(chunks)
    )
    _copy_chunks(rows)
    which, vectors = _rows(claim_pool, claims, rng)
    Claim.objects.bulk_create(
        (
            Claim(
                user=user,
                number=n + 1,
                friendly_id=f"claim_{n + 1}_{uuid.uuid4().hex[:4]}",
                statement=statements[which[n]],
                claim_types=["fact"],
                status="active" if n % 10 else "retracted",
                embedding=vectors[n],
                embedding_model=MODEL,
            )
            for n in range(claims)
        ),
        batch_size=2000,
    )


def _copy_chunks(rows: Any) -> None:
    from django.db import connection
    from pgvector.psycopg import register_vector

    connection.ensure_connection()
    raw = connection.connection
    register_vector(raw)
    columns = (
        'document_id, user_id, project_id, chunk_index, text, start, "end", embedding, '
        "embedding_model, created_at"
    )
    with (
        raw.cursor() as cursor,
        cursor.copy(f"COPY indexing_chunk ({columns}) FROM STDIN WITH (FORMAT BINARY)") as copy,
    ):
        copy.set_types(
            [
                "uuid",
                "int8",
                "uuid",
                "int4",
                "text",
                "int4",
                "int4",
                "vector",
                "varchar",
                "timestamptz",
            ]
        )
        for row in rows:
            copy.write_row(row)


def _build_indexes() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SET maintenance_work_mem = '512MB'")
        cursor.execute("SET max_parallel_maintenance_workers = 1")
        cursor.execute(
            "CREATE INDEX chunk_search_vector_idx ON indexing_chunk USING gin (search_vector)"
        )
        for name, table in (
            ("chunk_embedding_hnsw_idx", "indexing_chunk"),
            ("claim_embedding_hnsw_idx", "claims_claim"),
        ):
            cursor.execute(
                f"CREATE INDEX {name} ON {table} USING hnsw (embedding "
                "vector_cosine_ops) WITH (m = 16, ef_construction = 64)"
            )
        # Rows inserted while a GIN index exists wait in its pending list, which every
        # search scans linearly until (auto)vacuum merges it: merge it now.
        cursor.execute("SELECT gin_clean_pending_list('claim_search_vector_idx'::regclass)")
        # The postings too: search reads them index-only, which needs the visibility map
        # that (auto)vacuum sets.
        postings = ("indexing_chunk_posting", "indexing_claim_posting")
        for table in ("indexing_chunk", "claims_claim", *postings):
            cursor.execute(f"VACUUM ANALYZE {table}")


def ensure_mentions(emails: list[str]) -> None:
    """The names, speakers and relations of every chunk of these users (the mention
    index, ``indexing.mentions``), once: the rows were loaded with COPY, past the indexing
    services that write them, and a real account has them."""
    from apps.indexing.models import Chunk, Mention
    from apps.indexing.services.mentions import REFRESH_BATCH, mentions_refresh

    for email in emails:
        chunks = Chunk.objects.filter(user__email=email)
        if Mention.objects.filter(chunk__in=chunks[:1]).exists() or not chunks.exists():
            continue
        started = time.perf_counter()
        ids = list(chunks.order_by("id").values_list("id", flat=True))
        written = sum(
            mentions_refresh(chunk_ids=ids[n : n + REFRESH_BATCH])
            for n in range(0, len(ids), REFRESH_BATCH)
        )
        print(
            f"  read the names of {email}'s {len(ids):,} chunks: {written:,} mentions "
            f"({time.perf_counter() - started:.0f} s)",
            flush=True,
        )


def named_keys(email: str, count: int, rng: random.Random) -> list[str]:
    """``count`` names the user wrote of (capitalised as written), of every frequency from
    a few passages to thousands: what a question naming someone of the account names."""
    from django.db.models import Count

    from apps.indexing.mentions import NAMED
    from apps.indexing.models import Mention

    counted = sorted(
        Mention.objects.filter(chunk__user__email=email, role=NAMED)
        .exclude(key__contains=" ")
        .values("key")
        .annotate(chunks=Count("chunk_id"))
        .filter(chunks__gte=3)
        .values_list("key", "chunks"),
        key=lambda row: (row[1], row[0]),
    )
    # Evenly over the ranks by frequency: rare names and common ones alike.
    step = max(1, len(counted) // count)
    return [key.capitalize() for key, _ in counted[::step][:count]] if counted else []
