"""The MCP server: tools and resources over Cairn's memory, one user per request.

Streamable HTTP in stateless mode: every POST carries its token and is answered on its
own, so any number of ASGI processes can serve ``/mcp/`` behind a proxy with no shared
session store. The SDK runs its task group from the ASGI lifespan (``config/asgi.py``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import ToolAnnotations
from pydantic import BeforeValidator, Field

from apps.accounts.models import User
from apps.core.validation import INT_MAX, not_a_boolean
from apps.memory.errors import MemoryRefusal
from apps.memory.schemas import CLAIM_TYPES, MAX_STATEMENT_CHARS

from .auth import TokenAuthMiddleware, caller_of
from .guard import GuardedMCPServer
from .memory import UserMemory
from .streams import StreamLimits

INSTRUCTIONS = (
    "Cairn is this user's long-term memory: atomic claims with numbers (#12) and friendly "
    "IDs (@prefer_morning_a3f2), contexts that group them, project facts, and their indexed "
    "files and past chats. Search it before answering questions about the user, cite what "
    "you use by its [N], and save what they ask you to remember with add_claim."
)

mcp = GuardedMCPServer(name="Cairn", instructions=INSTRUCTIONS, version="1.0")


def _memory(ctx: Context) -> UserMemory:
    request = ctx.request_context.request
    caller = caller_of(request.scope) if request is not None else None
    if caller is None:  # the middleware refuses such requests; never served unscoped
        raise ToolError("Not authenticated.")
    # What the tools save says it came over MCP, through which token (its provenance).
    return UserMemory(User.objects.get(pk=caller.user_id), token_name=caller.token_name)


async def _run(ctx: Context, work: Any) -> str:
    """Run ``work(memory)`` in a thread (the ORM is synchronous) and turn a refusal into a
    tool error the client's model can read."""

    def call() -> str:
        # Around each call, as Django does around a request: the pool thread's connection
        # is let go (CONN_MAX_AGE) and never kept past a database restart. Kept, it held a
        # connection per thread for ever, and after a restart every tool on that thread
        # failed with "the connection is closed" until the process was restarted.
        close_old_connections()
        try:
            return str(work(_memory(ctx)))
        except MemoryRefusal as refusal:  # the argument at fault, then why
            raise ToolError(refusal.sentence()) from refusal
        finally:
            close_old_connections()

    return await sync_to_async(call, thread_sensitive=False)()


# What each tool does to the user's memory, for the client (which asks for confirmation
# before a write, and may skip it for a read) and for the guard (which refuses a write to a
# read-only token). Every tool works on this user's memory alone: a closed world.
READS = ToolAnnotations(read_only_hint=True, open_world_hint=False)


def _writes(*, destructive: bool, idempotent: bool) -> ToolAnnotations:
    """``destructive``: it may replace or withdraw what is there, not only add to it;
    ``idempotent``: the same call again changes nothing more."""
    return ToolAnnotations(
        read_only_hint=False,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=False,
    )


# Typed like the REST API: true is not claim #1 (Python counts a bool as an int). Lax
# otherwise, as pydantic is: a model that writes the number 7 in quotes still means 7.
Whole = BeforeValidator(not_a_boolean)
Number = Annotated[
    int, Whole, Field(ge=1, le=INT_MAX, description="The claim's number, as in #12.")
]
ProjectId = Annotated[
    str | None, Field(max_length=100, description="A project's UUID; Personal when left out.")
]


@mcp.tool(title="Search memory", annotations=READS)
async def search_memory(
    ctx: Context,
    query: Annotated[str, Field(min_length=1, max_length=2000, description="What to look for.")],
    kinds: Annotated[
        list[Literal["claim", "document", "message"]],
        Field(
            max_length=10,
            description="Which memory to search: claims, file passages, past chat turns.",
        ),
    ] = ["claim", "document", "message"],  # noqa: B006 - pydantic copies defaults
    project: Annotated[
        str | None,
        Field(max_length=100, description="A project's UUID to search only its files and chats."),
    ] = None,
    limit: Annotated[int, Whole, Field(ge=1, le=50, description="At most this many passages.")] = 8,
    everything: Annotated[
        bool,
        Field(
            description="Also Cairn's own answers and the user's bare questions (left out by "
            "default: they are not evidence)."
        ),
    ] = False,
) -> str:
    """Search the user's memory (claims, indexed files and past chats) by meaning and words.

    Returns numbered passages, best first, each with its provenance: a claim's #number and
    @friendly_id, a file's name, document id and character range, or a chat turn titled by
    who wrote it and when ("You, 3 May", "ChatGPT, 6 May 2024") and its message id. Cite
    them by their [N]."""
    return await _run(
        ctx,
        lambda m: m.search(
            query=query, kinds=kinds, project=project, limit=limit, everything=everything
        ),
    )


@mcp.tool(title="List claims", annotations=READS)
async def list_claims(
    ctx: Context,
    claim_type: Annotated[
        str | None,
        Field(
            max_length=40,
            description="Only claims of this type, e.g. goal, task or shopping_item.",
            json_schema_extra={"enum": list(CLAIM_TYPES)},
        ),
    ] = None,
    status: Annotated[
        Literal["active", "pending", "contested", "retracted", "superseded", "done", "any"],
        Field(
            description="active (in use), pending (awaiting review), done (completed goals, "
            "ticked-off items), retracted, superseded, or any."
        ),
    ] = "active",
    limit: Annotated[int, Whole, Field(ge=1, le=500)] = 100,
) -> str:
    """List the user's claims by type and status, in number order: the shopping list is
    claim_type=shopping_item, open goals claim_type=goal with status=active."""
    return await _run(
        ctx, lambda m: m.list_claims(claim_type=claim_type, status=status, limit=limit)
    )


@mcp.tool(title="Add a claim", annotations=_writes(destructive=False, idempotent=False))
async def add_claim(
    ctx: Context,
    statement: Annotated[
        str,
        Field(
            min_length=1,
            max_length=MAX_STATEMENT_CHARS,
            description="One atomic, self-contained fact.",
        ),
    ],
    claim_types: Annotated[
        list[Annotated[str, Field(max_length=40)]],
        Field(
            max_length=10,
            description=f"{', '.join(CLAIM_TYPES)}; the first is primary.",
        ),
    ] = ["fact"],  # noqa: B006
    possible_questions: Annotated[
        list[Annotated[str, Field(max_length=500)]],
        Field(max_length=20, description="Questions this claim answers, to find it by later."),
    ] = [],  # noqa: B006
) -> str:
    """Save one claim to the user's memory. Under the user's memory setting it is active
    at once (auto), waits for their review in Cairn (suggest), or is not saved (off). A
    statement Cairn already holds is reinforced instead of duplicated."""
    return await _run(
        ctx,
        lambda m: m.add_claim(
            statement=statement, claim_types=claim_types, possible_questions=possible_questions
        ),
    )


@mcp.tool(title="Correct a claim", annotations=_writes(destructive=True, idempotent=True))
async def update_claim(
    ctx: Context,
    number: Number,
    statement: Annotated[
        str, Field(min_length=1, max_length=MAX_STATEMENT_CHARS, description="The new text.")
    ],
) -> str:
    """Correct claim #number: a new version with this text replaces it (in its contexts
    too) and the old text is kept as its history."""
    return await _run(
        ctx, lambda m: m.change_claim(number=number, action="update", statement=statement)
    )


@mcp.tool(title="Mark done or tick off", annotations=_writes(destructive=False, idempotent=True))
async def complete_claim(
    ctx: Context,
    number: Number,
    note: Annotated[str, Field(max_length=500, description="Optional: how it went.")] = "",
) -> str:
    """Mark goal or task #number done, or tick shopping item #number off. It leaves the
    answers but stays on record as done."""
    return await _run(ctx, lambda m: m.change_claim(number=number, action="complete", note=note))


@mcp.tool(title="Retract a claim", annotations=_writes(destructive=True, idempotent=True))
async def retract_claim(ctx: Context, number: Number) -> str:
    """Retract claim #number because it is wrong: it is no longer used in answers, nor is
    the chat turn it was taken from or the facts derived from that turn. restore_claim
    undoes it."""
    return await _run(ctx, lambda m: m.change_claim(number=number, action="retract"))


@mcp.tool(title="Restore a claim", annotations=_writes(destructive=False, idempotent=True))
async def restore_claim(ctx: Context, number: Number) -> str:
    """Undo retract_claim (claim #number is used in answers again, with its chat turn and
    facts), or put a done item back on its list."""
    return await _run(ctx, lambda m: m.change_claim(number=number, action="restore"))


@mcp.tool(title="Resolve references", annotations=READS)
async def resolve_references(
    ctx: Context,
    text: Annotated[
        str,
        Field(
            min_length=1,
            max_length=32_000,
            description="A message with @references or "
            "#numbers, or one identifier such as prefer_morning_a3f2.",
        ),
    ],
) -> str:
    """Resolve @references (claims, contexts with their whole tree, entities, tags,
    domains) and #numbers to the claims they stand for."""
    return await _run(ctx, lambda m: m.resolve(text=text))


@mcp.tool(title="Read a document", annotations=READS)
async def read_document(
    ctx: Context,
    document_id: Annotated[
        str, Field(max_length=200, description="A document id from search_memory.")
    ],
    offset: Annotated[
        int, Whole, Field(ge=0, le=INT_MAX, description="Start at this character.")
    ] = 0,
) -> str:
    """Read an indexed file of the user's, 12,000 characters at a time from offset."""
    return await _run(ctx, lambda m: m.read_document(document_id=document_id, offset=offset))


@mcp.tool(title="Get project facts", annotations=READS)
async def get_facts(
    ctx: Context,
    project: ProjectId = None,
) -> str:
    """The current facts of a project (key = value), e.g. user.favorites.crypto.1 = BTC."""
    return await _run(ctx, lambda m: m.get_facts(project=project))


@mcp.tool(title="Set a project fact", annotations=_writes(destructive=False, idempotent=True))
async def set_fact(
    ctx: Context,
    key: Annotated[
        str,
        Field(
            min_length=1,
            max_length=200,
            description="A dotted key, e.g. user.favorites.crypto.1 for the #1 crypto.",
        ),
    ],
    value: Annotated[str, Field(min_length=1, max_length=2000)],
    project: ProjectId = None,
) -> str:
    """Set a project fact. A different value supersedes the current one (history is kept);
    the same value changes nothing."""
    return await _run(ctx, lambda m: m.set_fact(key=key, value=value, project=project))


@mcp.resource("cairn://claims/{number}", mime_type="text/plain")
async def claim_resource(number: str, ctx: Context) -> str:
    """One claim by its number: its statement, types and status."""
    if not number.isdecimal() or len(number) > 10:
        raise ResourceError(f"There is no claim #{number[:20]}.")
    return await _run(ctx, lambda m: m.resolve(text=f"@claim_{int(number)}"))


@mcp.resource("cairn://contexts/{friendly_id}", mime_type="text/plain")
async def context_resource(friendly_id: str, ctx: Context) -> str:
    """A context with every active claim of its tree."""
    return await _run(ctx, lambda m: m.resolve(text=friendly_id))


def _transport_security() -> TransportSecuritySettings:
    hosts = [host for host in settings.ALLOWED_HOSTS if host != "*"]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection="*" not in settings.ALLOWED_HOSTS,
        allowed_hosts=[*hosts, *(f"{host}:*" for host in hosts)],
        allowed_origins=[f"{scheme}://{host}" for host in hosts for scheme in ("http", "https")]
        + [f"{scheme}://{host}:*" for host in hosts for scheme in ("http", "https")]
        + list(settings.CSRF_TRUSTED_ORIGINS),
    )


def mcp_asgi_apps() -> tuple[Any, Any]:
    """(the app for HTTP requests, behind API-token authentication and the bounds on
    event streams; the SDK's own app, whose lifespan runs the SDK's task group)."""
    app = mcp.streamable_http_app(
        streamable_http_path="/mcp/",
        stateless_http=True,
        json_response=True,
        transport_security=_transport_security(),
    )
    return TokenAuthMiddleware(StreamLimits(app)), app
