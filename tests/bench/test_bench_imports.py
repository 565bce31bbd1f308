"""The benches import the project's modules inside their functions (Django is set up
first), so a name the project renames or removes breaks ``make bench`` only when that
bench runs: every name they import from ``apps`` is checked here."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _imports() -> list[tuple[str, str, str]]:
    found = []
    for path in sorted(BENCH.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("apps."):
                found += [(path.name, node.module or "", alias.name) for alias in node.names]
    return found


def _exists(module: str, name: str) -> bool:
    if hasattr(importlib.import_module(module), name):
        return True
    try:
        importlib.import_module(f"{module}.{name}")  # a submodule, imported by name
    except ImportError:
        return False
    return True


def test_what_the_benches_import_from_the_project_exists() -> None:
    imports = _imports()
    assert len(imports) > 100  # the benches were read
    missing = [
        f"{bench}: from {module} import {name}"
        for bench, module, name in imports
        if not _exists(module, name)
    ]
    assert missing == []
