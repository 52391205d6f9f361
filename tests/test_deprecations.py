"""Contracts renamed with notice (CHANGELOG.md): the old name keeps working for one release.

* every `--json` output that holds a renamed key also holds its old name, right after it, with the
  same value (`losses` beside `deaths`, `moves_seed` beside `tile_moves`);
* `fastsnake.compare`'s table keeps the old column beside the new one;
* `report --lost N`, 0.1.0's spelling of `--died N`, works with a warning;
* each renamed key is listed under "Deprecated" in CHANGELOG.md with the release that removes it,
  and the changelog's Unreleased heading names the package's version.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import fastsnake
from fastsnake.cli import common, main

REPO = Path(__file__).resolve().parents[1]


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_old_keys_sit_beside_the_new_ones_at_any_depth():
    value = {"games": 3, "deaths": 2, "nested": [{"tile_moves": ["up"], "x": 1}], "stuck": 0}
    cleaned = common._clean(value)
    assert list(cleaned) == ["games", "deaths", "losses", "nested", "stuck"]
    assert cleaned["losses"] == 2
    assert list(cleaned["nested"][0]) == ["tile_moves", "moves_seed", "x"]
    assert common._clean({"losses": 9, "deaths": 2}) == {"losses": 9, "deaths": 2}  # never overwritten


def test_sweep_and_compare_json_still_say_losses(capsys):
    code, out, _ = run_cli(capsys, "sweep", "--policy", "greedy", "--size", "6", "--games", "60", "--json")
    assert code == 0
    summary = json.loads(out)
    assert summary["deaths"] > 0 and summary["losses"] == summary["deaths"]
    code, out, _ = run_cli(capsys, "compare", "--size", "6", "--games", "40", "--policies", "cycle,greedy", "--json")
    assert code == 0
    for s in json.loads(out):
        assert s["losses"] == s["deaths"]


def test_compare_table_keeps_the_old_column():
    table = fastsnake.compare(["greedy"], 6, 60)
    names = table.column_names
    assert names.index("losses") == names.index("deaths") + 1
    assert table["losses"].to_pylist() == table["deaths"].to_pylist() != [0]


def test_puzzle_json_keeps_moves_seed(capsys):
    code, out, _ = run_cli(capsys, "puzzle", "solve", "--size", "2x3", "--start", "1 2 0 3 4 5", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["tile_moves"] and doc["moves_seed"] == doc["tile_moves"]


def test_report_lost_is_died_with_a_warning(capsys, monkeypatch, tmp_path):
    seen = {}

    def fake_report(inputs, out, **kwargs):
        seen.update(kwargs)
        return {"notes": [], "problems": [], "policies": [], "games": 0, "picked": 0, "embedded": 0,
                "bytes": 0, "seconds": 0.0}

    monkeypatch.setattr(fastsnake, "report", fake_report, raising=False)
    out = str(tmp_path / "r.html")
    code, _, err = run_cli(capsys, "report", "x.parquet", "--out", out, "--lost", "7")
    assert code == 0 and seen["died"] == 7
    assert "'report --lost' is deprecated; use --died" in err
    code, _, err = run_cli(capsys, "report", "x.parquet", "--out", out, "--lost", "7", "--died", "3")
    assert code == 2 and "--lost is its deprecated spelling" in err
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    assert "--lost" not in capsys.readouterr().out  # hidden: the help teaches the new spelling


def _changelog() -> str:
    return (REPO / "CHANGELOG.md").read_text(encoding="utf-8")


def test_changelog_names_every_renamed_json_key_and_when_it_goes():
    text = _changelog()
    unreleased = re.search(r"^## \[Unreleased\](.*?)(?=^## \[)", text, flags=re.M | re.S).group(1)
    deprecated = re.search(r"^### Deprecated\n(.*?)(?=^### |\Z)", unreleased, flags=re.M | re.S).group(1)
    for old, new in common.RENAMED_JSON_KEYS.items():
        item = next((i for i in deprecated.split("\n- ") if f"`{old}`" in i), None)
        assert item is not None, f"CHANGELOG.md's Unreleased 'Deprecated' does not name JSON key {old!r}"
        assert f"`{new}`" in item and re.search(r"removed in \d+\.\d+\.\d+", item), item


def test_the_version_has_one_home_named_by_the_changelog():
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert not re.search(r"^version\s*=\s*\"", pyproject, flags=re.M)  # not a second home of the number
    assert re.search(r'^dynamic = \["version"\]', pyproject, flags=re.M)
    assert re.search(r'^version = \{attr = "fastsnake.__version__"\}', pyproject, flags=re.M)
    heading = re.search(r"^## \[Unreleased\] - will be (\d+\.\d+\.\d+)$", _changelog(), flags=re.M)
    released = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d\d-\d\d$", _changelog(), flags=re.M)
    assert heading and heading.group(1) == fastsnake.__version__ not in released
