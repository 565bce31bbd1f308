from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _load_production_settings(extra_env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DJANGO_SETTINGS_MODULE")}
    env.update({"DJANGO_SETTINGS_MODULE": "config.settings.production", **extra_env})
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup(); print('started')"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_production_refuses_to_start_without_secret_key() -> None:
    result = _load_production_settings({})

    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_production_starts_with_a_secret_key() -> None:
    result = _load_production_settings({"SECRET_KEY": "a-real-secret-" + "x" * 40})

    assert result.returncode == 0, result.stderr
    assert "started" in result.stdout


def test_the_deployment_checklist_is_clean_with_production_settings() -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DJANGO_SETTINGS_MODULE", "DJANGO_ALLOW_ASYNC_UNSAFE")
    }
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings.production",
            "SECRET_KEY": "a-real-secret-" + "k3y" * 20,
        }
    )

    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
