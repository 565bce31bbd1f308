"""From the tokens page to a working MCP client (issue 30): a person creates a token, copies
the Claude Code snippet with its Copy button, and the Python `mcp` client connects with the
URL and header read back from the clipboard; a read-only token is refused a write. At 1280
and 390 px, against the site served as `make run` serves it (the MCP server needs the ASGI
lifespan)."""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from playwright.sync_api import Browser, Page, expect

from apps.accounts.models import ApiToken, MemoryMode, TokenAccess, User
from apps.accounts.services import READ_ONLY_REFUSAL
from apps.claims.models import Claim, ClaimOrigin
from tests.browser.conftest import ARTIFACTS
from tests.browser.helpers import DESKTOP, PHONE, assert_fits_width, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# What the Claude Code snippet says: the URL and the header to send.
SNIPPET = re.compile(
    r'^claude mcp add --transport http cairn (?P<url>\S+) --header "(?P<header>[^"]+)"$'
)


@pytest.fixture
def site(site_port: int) -> str:
    return f"http://127.0.0.1:{site_port}"


def call_tools(url: str, header: str, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """Each call's result, in one MCP session authenticated by ``header``. In a thread of
    its own: Playwright's sync API keeps an event loop running in the test's thread."""
    name, _, value = header.partition(": ")

    async def run() -> list[Any]:
        http = httpx2.AsyncClient(headers={name: value}, timeout=60)
        async with Client(streamable_http_client(url, http_client=http)) as client:
            return [await client.call_tool(tool, arguments) for tool, arguments in calls]

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, run()).result()


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content if hasattr(block, "text"))


def create_token_and_copy_snippet(page: Page, site: str, *, name: str, access: str) -> str:
    """On the tokens page: create a token, press the Claude Code snippet's Copy button and
    return what the clipboard holds."""
    page.goto(f"{site}/accounts/tokens/")
    assert_fits_width(page)
    page.get_by_label("Name").fill(name)
    page.get_by_label(access).check()
    page.get_by_role("button", name="Create token").click()
    expect(page.locator("#new-token")).to_be_visible()
    assert_fits_width(page)
    copy = page.get_by_role("button", name="Copy the Claude Code snippet")
    copy.click()
    expect(copy).to_have_text("Copied")
    return str(page.evaluate("() => navigator.clipboard.readText()"))


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_copied_snippet_connects_an_mcp_client_and_a_read_only_token_cannot_write(
    browser: Browser, site: str, viewport: dict[str, int], request: pytest.FixtureRequest
) -> None:
    context = browser.new_context(
        viewport=viewport, permissions=["clipboard-read", "clipboard-write"]
    )
    page = context.new_page()
    folder = ARTIFACTS / request.node.name
    folder.mkdir(parents=True, exist_ok=True)
    try:
        user = log_in(page, site, email="mcp-handoff@example.com")
        User.objects.filter(pk=user.pk).update(memory_mode=MemoryMode.AUTO)

        copied = create_token_and_copy_snippet(
            page, site, name="my laptop", access="Read and write"
        )
        page.screenshot(path=str(folder / "01-token-created.png"), full_page=True)

        snippet = SNIPPET.match(copied)
        assert snippet, copied
        key = page.locator("#new-token").inner_text()
        assert snippet["url"] == f"{site}/mcp/"
        assert snippet["header"] == f"Authorization: Bearer {key}"
        (saved,) = call_tools(
            snippet["url"], snippet["header"], [("add_claim", {"statement": "I swim on Fridays"})]
        )
        assert not saved.is_error, text_of(saved)
        claim = Claim.objects.get(user=user, statement="I swim on Fridays")
        assert (claim.origin, claim.origin_token_name) == (ClaimOrigin.MCP, "my laptop")

        page.goto(f"{site}/knowledge/claims/{claim.pk}/")
        expect(page.get_by_text("Added over MCP (my laptop)")).to_be_visible()
        assert_fits_width(page)

        copied = create_token_and_copy_snippet(page, site, name="reader", access="Read only")
        snippet = SNIPPET.match(copied)
        assert snippet, copied
        page.screenshot(path=str(folder / "02-read-only-token.png"), full_page=True)
        found, refused = call_tools(
            snippet["url"],
            snippet["header"],
            [
                ("list_claims", {}),
                ("add_claim", {"statement": "I hate swimming"}),
            ],
        )
        assert "I swim on Fridays" in text_of(found)
        assert refused.is_error
        assert text_of(refused) == READ_ONLY_REFUSAL
        assert not Claim.objects.filter(statement="I hate swimming").exists()
        assert ApiToken.objects.get(name="reader").access == TokenAccess.READ
        expect(page.locator("tbody tr").first).to_contain_text("Read only")
    finally:
        context.close()
