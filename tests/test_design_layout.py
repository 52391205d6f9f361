"""docs/design.md's layout tree matches the package: every sub-package is listed, every listed folder exists."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _tree() -> list[tuple[int, str]]:
    """(depth, folder) for every folder line of the first code block of docs/design.md."""
    text = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    block = re.search(r"```\n(fastsnake/.*?)```", text, re.S).group(1)
    rows = []
    for line in block.splitlines():
        m = re.match(r"( *)([\w.-]+/)\s", line + " ")
        if m:
            rows.append((len(m.group(1)) // 2, m.group(2)))
    return rows


def _listed_paths() -> set[Path]:
    paths, stack = set(), []
    for depth, name in _tree():
        stack = stack[:depth] + [name]
        paths.add(Path(*stack))
    return paths


def test_every_listed_folder_exists():
    missing = sorted(str(p) for p in _listed_paths() if not (ROOT / p).is_dir())
    assert not missing, f"docs/design.md lists folders that do not exist: {missing}"


def test_every_sub_package_is_listed():
    listed = _listed_paths()
    packages = {
        p.parent.relative_to(ROOT)
        for p in (ROOT / "fastsnake").rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    absent = sorted(str(p) for p in packages if p not in listed)
    assert not absent, f"docs/design.md's layout tree omits these packages: {absent}"
