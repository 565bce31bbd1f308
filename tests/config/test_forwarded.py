"""Whose X-Forwarded-For the site believes (issue 29, item 9).

Uvicorn's default trusts it from 127.0.0.1, so any process on the host could claim to be
another address at every try and never meet the per-address login lockout. The served
command (``config.serve.web_command``) trusts only ``FORWARDED_ALLOW_IPS``, by default no
one. Seen through what the lockout records: the address of a failed login.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from axes.models import AccessAttempt

from config.serve import web_command
from tests.processes import ROOT, free_port, process_env, wait_for_port


def _failed_login_from(port: int, forwarded_for: str) -> None:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/v1/auth/token/",
        data=json.dumps({"email": "nobody@example.com", "password": "wrong"}).encode(),
        headers={"Content-Type": "application/json", "X-Forwarded-For": forwarded_for},
        method="POST",
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)  # noqa: S310 (http, built above)
    assert refused.value.code in (400, 401, 403)


@contextlib.contextmanager
def _served(settings: Any, trusted: list[str]) -> Iterator[int]:
    settings.FORWARDED_ALLOW_IPS = trusted
    port = free_port()
    process = subprocess.Popen(
        web_command("127.0.0.1", str(port)),
        cwd=ROOT,
        env=process_env(CAIRN_WARM_UP="0"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=20)


def _recorded_addresses() -> set[str]:
    return {str(address) for address in AccessAttempt.objects.values_list("ip_address", flat=True)}


def test_by_default_a_local_client_cannot_claim_another_address(
    transactional_db: None, settings: Any
) -> None:
    with _served(settings, []) as port:
        _failed_login_from(port, "1.2.3.4")

    assert _recorded_addresses() == {"127.0.0.1"}


def test_a_proxy_named_in_the_setting_is_believed(transactional_db: None, settings: Any) -> None:
    with _served(settings, ["127.0.0.1"]) as port:
        _failed_login_from(port, "1.2.3.4")

    assert _recorded_addresses() == {"1.2.3.4"}


def test_the_default_trusts_no_one() -> None:
    from django.conf import settings

    assert settings.FORWARDED_ALLOW_IPS == []
    assert "--no-proxy-headers" in web_command("127.0.0.1", "8000")
