"""The bench and example scripts cannot go stale on a rename: every name they import from
fastsnake (``from fastsnake.x import name``, at any depth of the script) exists. Two bench
scripts once imported a workspace allocator renamed long before, and failed only when run."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SCRIPTS = sorted((REPO / "bench").rglob("*.py")) + sorted((REPO / "examples").rglob("*.py"))


def fastsnake_imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "fastsnake":
            for alias in node.names:
                yield node.module, alias.name


def exists(module: str, name: str) -> bool:
    if hasattr(importlib.import_module(module), name):
        return True
    try:
        importlib.import_module(f"{module}.{name}")  # a submodule
    except ModuleNotFoundError:
        return False
    return True


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_fastsnake_name_a_script_imports_exists(path):
    missing = [f"{module}.{name}" for module, name in fastsnake_imports(path) if not exists(module, name)]
    assert not missing, f"{path.relative_to(REPO)} imports names fastsnake no longer has: {missing}"


def test_the_scripts_are_found():
    assert len(SCRIPTS) > 10 and any(list(fastsnake_imports(p)) for p in SCRIPTS)
