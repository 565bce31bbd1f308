"""`deploy/compose.yaml` is the README's scale-out recipe in containers: it must parse, run
the roles the README names, and set only settings Cairn reads (a misspelt variable would be
silently ignored, and the deployment would run on a default)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "deploy" / "compose.yaml"
CAIRN_SERVICES = ("migrate", "web-1", "web-2", "worker")
# Read by Django itself, not by a line of ours.
READ_BY_DJANGO = {"DJANGO_SETTINGS_MODULE"}


def _compose() -> dict[str, Any]:
    loaded = yaml.safe_load(COMPOSE.read_text())
    assert isinstance(loaded, dict)
    return loaded


def _variables_cairn_reads() -> set[str]:
    """Every NAME in env("NAME"), env.bool("NAME", …), os.environ.get("NAME") … of config/."""
    pattern = re.compile(
        r"""(?:\benv(?:\.\w+)?|environ\.get|environ\.setdefault|getenv|environ)\s*[\(\[]\s*["']([A-Z][A-Z0-9_]*)["']"""
    )
    names: set[str] = set()
    for path in (ROOT / "config").rglob("*.py"):
        names.update(pattern.findall(path.read_text()))
    return names


def test_the_services_are_the_readme_recipe() -> None:
    services = _compose()["services"]

    assert set(services) == {"db", "redis", "migrate", "web-1", "web-2", "worker", "proxy"}
    assert services["db"]["image"].startswith("pgvector/pgvector:")
    assert services["migrate"]["command"] == ["python", "manage.py", "migrate", "--noinput"]
    for web in ("web-1", "web-2"):
        assert services[web]["command"] == ["python", "-m", "config.serve", "web"]
        assert services[web]["depends_on"]["migrate"] == {
            "condition": "service_completed_successfully"
        }
        assert "ports" not in services[web]  # reached through the proxy only
    assert services["worker"]["command"] == ["python", "-m", "config.serve", "worker"]
    proxy = services["proxy"]["command"]
    assert [proxy[i + 1] for i, word in enumerate(proxy) if word == "--to"] == [
        "web-1:8000",
        "web-2:8000",
    ]


def test_every_process_shares_the_key_the_database_redis_and_the_media() -> None:
    services = _compose()["services"]
    environments = [services[name]["environment"] for name in CAIRN_SERVICES]

    assert all(environment == environments[0] for environment in environments)
    environment = environments[0]
    assert environment["DJANGO_SETTINGS_MODULE"] == "config.settings.production"
    assert environment["SECRET_KEY"].startswith("${SECRET_KEY:?")
    assert environment["DATABASE_URL"].endswith("@db:5432/cairn")
    assert environment["REDIS_URL"] == "redis://redis:6379/0"
    for name in CAIRN_SERVICES:
        assert "media:/srv/cairn/media" in services[name]["volumes"]
    assert environment["MEDIA_ROOT"] == "/srv/cairn/media"


def test_every_variable_it_sets_is_one_cairn_reads() -> None:
    services = _compose()["services"]
    read = _variables_cairn_reads() | READ_BY_DJANGO

    for name in CAIRN_SERVICES:
        unknown = set(services[name]["environment"]) - read
        assert not unknown, f"{name} sets variables nothing reads: {sorted(unknown)}"


def test_the_reader_of_variables_finds_the_settings() -> None:
    read = _variables_cairn_reads()

    assert {"SECRET_KEY", "DATABASE_URL", "REDIS_URL", "FORWARDED_ALLOW_IPS", "HOST"} <= read
    assert "NOT_A_SETTING" not in read
