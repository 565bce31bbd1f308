"""`make run` is safe to open on a LAN: no debug pages, a secret key of its own (issue 15)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client, RequestFactory

from apps.accounts.models import User
from config.errors import server_error
from config.secret_key import local_secret_key

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db

# The settings module alone decides both values (no app changes them): reading them
# needs no django.setup(), which would load every app, spaCy included, in each probe.
SETTINGS_PROBE = (
    "import json; from django.conf import settings; "
    "print(json.dumps([settings.DEBUG, settings.SECRET_KEY]))"
)


def _local_settings(var_dir: Path, **extra: str) -> tuple[bool, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DEBUG")}
    env.update(
        {"DJANGO_SETTINGS_MODULE": "config.settings.local", "CAIRN_VAR_DIR": str(var_dir)},
        **extra,
    )
    result = subprocess.run(
        [sys.executable, "-c", SETTINGS_PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    debug, key = json.loads(result.stdout)
    return debug, key


def test_make_run_has_no_debug_and_a_generated_key_that_it_keeps(tmp_path: Path) -> None:
    debug, key = _local_settings(tmp_path)
    _, key_again = _local_settings(tmp_path)

    assert debug is False
    assert len(key) >= 50
    assert key == key_again  # sessions survive a restart
    assert "local" not in key
    kept = tmp_path / "secret_key"
    assert kept.read_text() == key
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert _local_settings(tmp_path, DEBUG="true")[0] is True  # `make dev`


def test_two_installs_get_different_keys(tmp_path: Path) -> None:
    assert local_secret_key(tmp_path / "a") != local_secret_key(tmp_path / "b")


def test_a_missing_page_is_the_sites_own_page(client: Client, user: User) -> None:
    client.force_login(user)

    response = client.get("/no/such/page/")

    body = response.content.decode()
    assert response.status_code == 404
    assert "Nothing here" in body
    assert "Back to Cairn" in body
    for debug_output in ("Traceback", "urlpatterns", "Using the URLconf", str(Path.cwd())):
        assert debug_output not in body


def test_the_apis_answer_json_errors_without_tracebacks(
    client: Client, user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    client.force_login(user)
    client.raise_request_exception = False
    from apps.accounts import ui_api

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("secret internals /srv/cairn/config.py")

    monkeypatch.setattr(ui_api, "current_user", broken)

    missing = client.get("/api/v1/no-such-endpoint/")
    assert missing.status_code == 404
    assert missing.json() == {"detail": "Not found."}

    failing = client.get("/api/ui/me")
    assert failing.status_code == 500
    assert failing.json() == {"detail": "Internal server error."}
    assert "secret internals" not in failing.content.decode()


def test_a_server_error_page_says_nothing_was_lost() -> None:
    page = server_error(RequestFactory().get("/chat/"))
    api = server_error(RequestFactory().get("/api/v1/claims/"))

    assert page.status_code == api.status_code == 500
    assert "Nothing you typed was lost" in page.content.decode()
    assert json.loads(api.content) == {"detail": "Internal server error."}
