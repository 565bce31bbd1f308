"""Browser tests: Playwright driving Debian's Chromium against Cairn served by uvicorn
(ASGI, so websockets work) on a free local port, on the test database."""

from __future__ import annotations

import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"

if not Path(CHROMIUM).exists():
    pytest.skip(
        "Chromium is not installed (make test installs Debian's chromium when it can)",
        allow_module_level=True,
    )


@pytest.fixture(scope="session", autouse=True)
def _orm_beside_playwright() -> Iterator[None]:
    """Playwright's sync API keeps an event loop running in the test's thread; the ORM
    calls a browser test makes there (and the test database set-up) are still ordinary
    synchronous code. Only sessions that run browser tests set this."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        yield


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ],
    }


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def server(transactional_db: None, settings: Any) -> Iterator[str]:
    """Cairn over HTTP and websockets; data the test writes is committed, so it sees it."""
    import uvicorn
    from channels.layers import channel_layers

    from config.asgi import application

    port = _free_port()
    settings.ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
    # A fresh channel layer for this server's event loop: the Redis layer serves one loop
    # at a time, and a previous test's server may still be closing its last socket.
    channel_layers.backends.clear()
    settings.CAIRN_OFFLINE_WORD_DELAY = 0.01
    config = uvicorn.Config(
        application,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        lifespan="off",
        ws="websockets",
    )
    instance = uvicorn.Server(config)
    thread = threading.Thread(target=instance.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not instance.started:
        if time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    instance.should_exit = True
    thread.join(timeout=10)
    channel_layers.backends.clear()


@pytest.fixture
def shot(page: Any, request: pytest.FixtureRequest) -> Any:
    """shot("step") saves a screenshot under artifacts/screenshots/<test>/ (git-ignored)."""
    folder = ARTIFACTS / request.node.name
    folder.mkdir(parents=True, exist_ok=True)
    counter = iter(range(1, 100))

    def take(step: str) -> Path:
        path = folder / f"{next(counter):02d}-{step}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take
