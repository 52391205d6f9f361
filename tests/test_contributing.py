"""CONTRIBUTING.md's recipes cite only what exists: every path is a file or folder of the repository,
every dotted ``fastsnake.`` name imports, and every other code name occurs in the sources."""

from __future__ import annotations

import importlib
import re
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "CONTRIBUTING.md"
# Folders whose sources a cited name may live in.
SOURCES = ("fastsnake", "tests", "bench", "examples", ".ci", "pyproject.toml", "mkdocs.yml", "viewer.py")
PATH_PREFIXES = ("fastsnake/", "tests/", "bench/", "docs/", "examples/", ".ci/")


def _spans() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # fenced blocks are commands, checked elsewhere
    return re.findall(r"`([^`\n]+)`", text)


@lru_cache(maxsize=1)
def _corpus() -> str:
    parts = []
    for name in SOURCES:
        path = ROOT / name
        files = [path] if path.is_file() else [p for p in path.rglob("*") if p.suffix in {".py", ".toml", ".yml", ""}]
        for f in files:
            if f.is_file() and "__pycache__" not in f.parts and ".cache" not in f.parts:
                try:
                    parts.append(f.read_text(encoding="utf-8"))
                except UnicodeDecodeError:
                    continue
    return "\n".join(parts)


def _cited_paths() -> list[str]:
    out = []
    for span in _spans():
        for token in span.split():
            token = token.strip("(),;:")
            if token.startswith(PATH_PREFIXES) and "<" not in token and "*" not in token:
                out.append(token.split("::")[0].rstrip("/"))
    return sorted(set(out))


def _cited_names() -> list[str]:
    out = []
    for span in _spans():
        m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)(\(.*\))?", span.strip())
        name = m.group(1) if m else ""
        if name and not re.search(r"\.(py|md|json|toml|yml)$", name) and (
            "_" in name or "." in name or name[:1].isupper()
        ):
            out.append(m.group(1))
    return sorted(set(out))


def test_every_cited_path_exists():
    missing = [p for p in _cited_paths() if not (ROOT / p).exists()]
    assert not missing, f"CONTRIBUTING.md cites paths that do not exist: {missing}"


def test_every_cited_fastsnake_name_imports():
    bad = []
    for name in _cited_names():
        if not name.startswith("fastsnake."):
            continue
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            try:
                for attr in parts[cut:]:
                    obj = getattr(obj, attr)
            except AttributeError:
                bad.append(name)
            break
        else:
            bad.append(name)
    assert not bad, f"CONTRIBUTING.md cites fastsnake names that do not exist: {bad}"


def test_every_other_cited_code_name_occurs_in_the_sources():
    corpus = _corpus()
    absent = [
        n for n in _cited_names()
        if not n.startswith("fastsnake.")
        and not re.search(r"(?<![A-Za-z0-9_])" + re.escape(n.split(".")[-1]) + r"(?![A-Za-z0-9_])", corpus)
    ]
    assert not absent, f"CONTRIBUTING.md cites code names found nowhere in the sources: {absent}"
