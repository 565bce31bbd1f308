"""MCP event streams (``GET /mcp/``) against the real server (issue 29): an idle stream is
ended after CAIRN_MCP_STREAM_IDLE_SECONDS, and one token holds at most
CAIRN_MCP_STREAMS_PER_TOKEN at once. Before, a stream stayed open as long as the client
liked, and 40 at once from one token were accepted."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

import httpx2
import pytest

from apps.accounts.services import api_token_create
from tests.factories import UserFactory
from tests.processes import running_site

pytestmark = pytest.mark.django_db(transaction=True)


def stream_headers(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}", "Accept": "text/event-stream"}


@pytest.fixture(scope="module")
def idle_site(django_db_setup: None) -> Iterator[str]:
    with running_site(CAIRN_MCP_STREAM_IDLE_SECONDS="1") as port:
        yield f"http://127.0.0.1:{port}/mcp/"


@pytest.fixture(scope="module")
def capped_site(django_db_setup: None) -> Iterator[str]:
    with running_site(CAIRN_MCP_STREAMS_PER_TOKEN="2") as port:
        yield f"http://127.0.0.1:{port}/mcp/"


@pytest.fixture
def key() -> str:
    return api_token_create(user=UserFactory(), name="client")[1]


def test_an_idle_stream_is_ended(idle_site: str, key: str) -> None:
    # Far beyond the bound: a stream left open (its keep-alive comments come every 15 s)
    # fails the test instead of hanging it.
    deadline = time.monotonic() + 60
    body = b""
    with (
        httpx2.Client(timeout=httpx2.Timeout(10, read=60)) as client,
        client.stream("GET", idle_site, headers=stream_headers(key)) as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        for chunk in response.iter_bytes():  # ends only when the server ends the stream
            body += chunk
            assert time.monotonic() < deadline, "the idle stream was never ended"

    assert b"data:" not in body  # nothing was ever sent on it: it was idle


def test_one_token_holds_a_bounded_number_of_streams(capped_site: str, key: str) -> None:
    other_key = api_token_create(user=UserFactory(), name="another client")[1]
    client = httpx2.Client(timeout=httpx2.Timeout(10, read=60))
    with contextlib.ExitStack() as streams:
        held = [
            streams.enter_context(client.stream("GET", capped_site, headers=stream_headers(key)))
            for _ in range(2)
        ]
        refused = streams.enter_context(
            client.stream("GET", capped_site, headers=stream_headers(key))
        )
        another = streams.enter_context(
            client.stream("GET", capped_site, headers=stream_headers(other_key))
        )

        assert [stream.status_code for stream in held] == [200, 200]
        assert refused.status_code == 429
        refused.read()
        assert refused.json()["error_description"].startswith("At most 2 event streams")
        assert another.status_code == 200  # the bound is per token

        held.pop().close()  # the server notices the client left, then counts one fewer
        assert _reopened(client, capped_site, key)
    client.close()


def _reopened(client: httpx2.Client, url: str, key: str) -> bool:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with client.stream("GET", url, headers=stream_headers(key)) as response:
            if response.status_code == 200:
                return True
        time.sleep(0.1)
    return False
