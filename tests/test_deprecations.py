"""Contracts renamed with notice (CHANGELOG.md): the old name keeps working for one release.

* every `--json` output that holds a renamed key also holds its old name, right after it, with the
  same value (`losses` beside `deaths`, `moves_seed` beside `tile_moves`);
* `fastsnake.compare`'s table keeps the old column beside the new one;
* `report --lost N`, 0.1.0's spelling of `--died N`, works with a warning;
* each renamed key, and every other Deprecated line of this version's section of CHANGELOG.md,
  names the release that removes it, and the changelog agrees with the package's version: the
  latest dated section is it, or the Unreleased one on top says it will be it.
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


# A release heading: "## [0.2.0] - 2026-12-07"; an unreleased one: "## [Unreleased]" or
# "## [Unreleased] - will be 0.3.0".
HEADING = re.compile(r"^## \[(?P<name>[^\]]+)\](?: - (?P<tail>.*))?$", re.M)


def headings(text: str) -> list[tuple[str, str, int, int]]:
    """(name, tail, start, end of its section) of every release section, newest first."""
    found = list(HEADING.finditer(text))
    return [(m["name"], m["tail"] or "", m.end(), found[k + 1].start() if k + 1 < len(found) else len(text))
            for k, m in enumerate(found)]


def version_section(text: str, version: str) -> str:
    """The section of the changelog that describes `version`: the one titled with it, else the
    unreleased one that says it will be it."""
    for name, tail, start, end in headings(text):
        if name == version or (name == "Unreleased" and tail == f"will be {version}"):
            return text[start:end]
    raise AssertionError(f"CHANGELOG.md has no section for {version}")


def check_version_agrees(text: str, version: str) -> None:
    """The version and the changelog agree: the latest dated section is `version`, or an
    unreleased section on top says it will be `version` (and no dated one already is). An
    unreleased section may sit on top of a released `version` (new lines after a release)."""
    secs = headings(text)
    dated = [(n, t) for n, t, _, _ in secs if n != "Unreleased"]
    assert all(re.fullmatch(r"\d+\.\d+\.\d+", n) and re.fullmatch(r"\d{4}-\d\d-\d\d", t) for n, t in dated), dated
    unreleased = [(n, t) for n, t, _, _ in secs if n == "Unreleased"]
    assert len(unreleased) <= 1 and (not unreleased or secs[0][0] == "Unreleased"), "one Unreleased section, on top"
    latest = dated[0][0] if dated else None
    promised = unreleased[0][1] if unreleased else ""
    if latest == version:
        assert promised == "" or promised != f"will be {version}", "released already: the next is another version"
    else:
        assert promised == f"will be {version}" and version not in [n for n, _ in dated], \
            f"version {version}: neither the latest release ({latest}) nor the unreleased one ({promised!r})"


def test_changelog_names_every_renamed_json_key_and_when_it_goes():
    section = version_section(_changelog(), fastsnake.__version__)
    deprecated = "\n".join(m.group(1) for m in re.finditer(r"^### Deprecated[^\n]*\n(.*?)(?=^### |\Z)", section,
                                                          flags=re.M | re.S))
    for old, new in common.RENAMED_JSON_KEYS.items():
        item = next((i for i in deprecated.split("\n- ") if f"`{old}`" in i), None)
        assert item is not None, f"CHANGELOG.md's {fastsnake.__version__} 'Deprecated' does not name JSON key {old!r}"
        assert f"`{new}`" in item and re.search(r"removed in \d+\.\d+\.\d+", item), item


def test_every_deprecated_line_of_this_release_names_the_release_that_removes_it():
    section = version_section(_changelog(), fastsnake.__version__)
    blocks = [m.group(1) for m in re.finditer(r"^### Deprecated[^\n]*\n(.*?)(?=^### |\Z)", section, re.M | re.S)]
    items = [i for b in blocks for i in re.split(r"^- ", b, flags=re.M)[1:]]
    assert len(items) >= 4
    major, minor, _ = (int(x) for x in fastsnake.__version__.split("."))
    later = [m for i in items for m in re.findall(r"removed in (\d+)\.(\d+)\.\d+", i)]
    assert [i[:60] for i in items if not re.search(r"removed in \d+\.\d+\.\d+", i)] == []
    assert all((int(a), int(b)) > (major, minor) for a, b in later), later


def test_the_version_has_one_home_named_by_the_changelog():
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert not re.search(r"^version\s*=\s*\"", pyproject, flags=re.M)  # not a second home of the number
    assert re.search(r'^dynamic = \["version"\]', pyproject, flags=re.M)
    assert re.search(r'^version = \{attr = "fastsnake.__version__"\}', pyproject, flags=re.M)
    check_version_agrees(_changelog(), fastsnake.__version__)


@pytest.mark.parametrize(("text", "version", "ok"), [
    ("## [Unreleased] - will be 0.2.0\n\n## [0.1.0] - 2026-11-24\n", "0.2.0", True),   # before the release
    ("## [0.2.0] - 2026-12-07\n\n## [0.1.0] - 2026-11-24\n", "0.2.0", True),           # released
    ("## [Unreleased]\n\n## [0.2.0] - 2026-12-07\n\n## [0.1.0] - 2026-11-24\n", "0.2.0", True),  # lines after it
    ("## [Unreleased] - will be 0.3.0\n\n## [0.2.0] - 2026-12-07\n", "0.2.0", True),
    ("## [Unreleased] - will be 0.3.0\n\n## [0.2.0] - 2026-12-07\n", "0.3.0", True),    # bumped first
    ("## [0.1.0] - 2026-11-24\n", "0.2.0", False),                                      # not said anywhere
    ("## [Unreleased] - will be 0.2.0\n\n## [0.2.0] - 2026-12-07\n", "0.2.0", False),  # released twice
    ("## [0.2.0] - soon\n", "0.2.0", False),                                            # not dated
])
def test_the_version_check_allows_an_unreleased_section_on_top(text, version, ok):
    if ok:
        check_version_agrees(text, version)
    else:
        with pytest.raises(AssertionError):
            check_version_agrees(text, version)
