"""Lists the docs show are written from their declarations at the site's build (`docs/hooks/declared.py`):
every marker a page holds is one the hook knows and expands to the declaration, and no page writes a
declared list by hand (so a new sweep column or tour method edits no page)."""

import importlib.util
import re
from pathlib import Path

import pytest

from fastsnake.snake import record
from fastsnake.tour import methods

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]


def _hook():
    spec = importlib.util.spec_from_file_location("declared_hook", ROOT / "docs" / "hooks" / "declared.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_marker_is_known_and_the_hook_is_on():
    hook = _hook()
    used = {m[1] for page in PAGES for m in hook.MARKER.finditer(page.read_text(encoding="utf-8"))}
    assert used and used <= set(hook.EXPANSIONS), used - set(hook.EXPANSIONS)
    assert "docs/hooks/declared.py" in (ROOT / "mkdocs.yml").read_text()
    with pytest.raises(KeyError, match="unknown docs marker"):
        hook.expand("{{ record.colums }}")


def test_the_column_lists_are_the_declaration():
    hook = _hook()
    names = ", ".join(record.names())
    assert hook.expand("`{{ record.columns }}`") == f"`{names}`"
    assert hook.expand("{{ record.means }}").split(", ") == [f"{c.name}_mean" for c in record.mean_columns()]
    table = hook.expand("{{ record.table }}").splitlines()
    assert [row.split("|")[1].strip(" `") for row in table[2:]] == list(record.names())
    # A new column reaches every list (a name no real column has: the test keeps working when one is added).
    scratch = record.Column("scratch_docs", "int32", record.width(), "mean", optional=True, doc="a scratch column")
    with record.declared(record.columns() + (scratch,)):
        assert hook.expand("{{ record.columns }}").endswith(", scratch_docs")
        assert "scratch_docs_mean" in hook.expand("{{ record.means }}")
        assert "| `scratch_docs` | int32 | a scratch column |" in hook.expand("{{ record.table }}")
    # The pages that list a sweep file's columns use the markers, none by hand.
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"\bgame, seed, outcome, moves", text), page.name
    users = [p.name for p in PAGES if "{{ record.columns }}" in p.read_text(encoding="utf-8")]
    assert {"sweeps.md", "data-tools.md", "user-policies.md"} <= set(users)


def test_the_tour_method_lists_are_the_registry():
    hook = _hook()
    assert hook.expand("{{ tour.method_names }}").split("|") == ["auto", *methods.builtin_names()]
    rows = hook.expand("{{ tour.methods }}").splitlines()[2:]
    assert [row.split("|")[1].strip(" `") for row in rows] == methods.builtin_names()
    tour = (ROOT / "docs" / "tour.md").read_text(encoding="utf-8")
    assert "{{ tour.methods }}" in tour and "--method auto|" not in tour


def test_the_heuristic_list_is_the_registry():
    from fastsnake.puzzle import heuristic_names

    hook = _hook()
    assert hook.expand("{{ puzzle.heuristics }}").split("|") == [*heuristic_names(), "auto"]
    assert "{{ puzzle.heuristics }}" in (ROOT / "docs" / "puzzle.md").read_text(encoding="utf-8")
