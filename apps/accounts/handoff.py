"""What the tokens page hands a person to connect an MCP client (issue 30): the server's
URL, the header, and a ready snippet for each client people use.

The snippets carry the key only on the page that created it (it is shown once); on any
later visit they carry a placeholder the person replaces with the key they kept.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from urllib.parse import urlsplit

MCP_PATH = "/mcp/"  # where config/asgi.py mounts the MCP server
KEY_PLACEHOLDER = "<your token>"
SERVER_NAME = "cairn"
# mcp-remote refuses plain http except to these hosts unless told --allow-http.
_LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


@dataclass(frozen=True)
class Snippet:
    slug: str  # the element id's stem on the page
    client: str
    where: str  # where the text goes, in words
    text: str


def mcp_snippets(*, url: str, key: str | None) -> list[Snippet]:
    """The snippets for ``url`` (the absolute MCP URL), with ``key`` or the placeholder."""
    shown_key = key or KEY_PLACEHOLDER
    header = f"Authorization: Bearer {shown_key}"
    parts = urlsplit(url)
    remote_args = ["-y", "mcp-remote", url]
    if parts.scheme == "http" and (parts.hostname or "") not in _LOCAL_HOSTS:
        remote_args.append("--allow-http")
    # The key goes in "env" and the header names it: Claude Desktop keeps the two apart,
    # and mcp-remote fills ${CAIRN_TOKEN} in from its environment.
    remote_args += ["--header", "Authorization: Bearer ${CAIRN_TOKEN}"]
    desktop = {
        "mcpServers": {
            SERVER_NAME: {"command": "npx", "args": remote_args, "env": {"CAIRN_TOKEN": shown_key}}
        }
    }
    cursor = {
        "mcpServers": {
            SERVER_NAME: {"url": url, "headers": {"Authorization": f"Bearer {shown_key}"}}
        }
    }
    # Double quotes read the same in a POSIX shell, PowerShell and cmd; a key and the URL
    # hold no character any of them would expand.
    return [
        Snippet(
            slug="claude-desktop",
            client="Claude Desktop",
            where="claude_desktop_config.json (Settings → Developer → Edit Config), then "
            "restart Claude Desktop. Needs Node.js for npx.",
            text=json.dumps(desktop, indent=2),
        ),
        Snippet(
            slug="claude-code",
            client="Claude Code",
            where="Run in a terminal.",
            text=f'claude mcp add --transport http {SERVER_NAME} {url} --header "{header}"',
        ),
        Snippet(
            slug="cursor",
            client="Cursor",
            where=".cursor/mcp.json in your project, or ~/.cursor/mcp.json for every project.",
            text=json.dumps(cursor, indent=2),
        ),
        Snippet(
            slug="inspector",
            client="MCP Inspector",
            where="Run in a terminal to list the tools; without --cli it opens the inspector "
            "in your browser (choose Streamable HTTP, this URL, and the header).",
            text=f"npx @modelcontextprotocol/inspector --cli {url} --transport http "
            f'--header "{header}" --method tools/list',
        ),
    ]
