"""Cairn's memory as an MCP server at ``/mcp/`` (Streamable HTTP, the official ``mcp`` SDK).

``auth`` turns the user's API token into the request's user, ``memory`` does each tool's
work through the same scoped services and selectors as the REST API, and ``server``
declares the tools and resources and builds the ASGI app that ``config/asgi.py`` mounts.
"""
