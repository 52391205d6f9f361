"""`fastsnake report` of a study rows file (fastsnake.viewer.study_report): 3x3 puzzle studies and
a 5x5 tour study, with the kernels the suite already compiles; the browser half is in
test_report_browser.py."""

import json

import pyarrow as pa
import pytest

from fastsnake.cli import main
from fastsnake.puzzle.board import parse_moves
from fastsnake.study.rows import read_rows, write_rows
from fastsnake.viewer import study_report

STEP = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}


def _cli(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def puzzle_study(tmp_path_factory):
    folder = tmp_path_factory.mktemp("study")
    path = folder / "st.parquet"
    assert main(["puzzle", "compare", "--size", "3", "--count", "5", "--seed", "3", "--heuristics",
                 "manhattan,linear-conflict", "--out", str(path), "--quiet", "--json"]) == 0
    return path


def _play(start, goal, moves, cols):
    """The tiles after the blank moves `moves` (plain Python; None when a move leaves the board)."""
    tiles = list(start)
    for ch in moves:
        b = tiles.index(0)
        r, c = divmod(b, cols)
        dr, dc = STEP[ch]
        if not (0 <= r + dr < len(tiles) // cols and 0 <= c + dc < cols):
            return None
        to = (r + dr) * cols + c + dc
        tiles[b], tiles[to] = tiles[to], 0
    return tiles


def test_the_page_holds_the_plots_tables_and_the_picked_solutions_re_solved(puzzle_study, tmp_path, capsys):
    capsys.readouterr()
    out = tmp_path / "p.html"
    code, text, err = _cli(capsys, "report", str(puzzle_study), "--out", str(out), "--json", "--pick", "0")
    assert code == 0, err
    doc = json.loads(text)
    _, table = read_rows(str(puzzle_study))
    rows = table.to_pylist()
    assert (doc["kind"], doc["study"], doc["trials"]) == ("study", "puzzle", 5)
    assert doc["algorithms"] == ["manhattan", "linear-conflict"] and doc["problems"] == []
    assert [p["id"] for p in doc["plots"]] == ["nodes-per-instance", "cpu-per-instance", "ratios"]
    assert {t["name"]: t["rows"] for t in doc["tables"]} == {"heuristics": 8, "pairs": 3}
    # The most nodes of the study; the longest (ties: most nodes); every heuristic's row of instance 0.
    most = max(rows, key=lambda r: r["nodes_generated"])
    longest = max(rows, key=lambda r: (r["length"], r["nodes_generated"]))
    want = {(f"{most['heuristic']}/astar", most["instance_id"]),
            (f"{longest['heuristic']}/astar", longest["instance_id"]),
            ("manhattan/astar", "0"), ("linear-conflict/astar", "0")}
    assert {(s["algorithm"], s["trial"]) for s in doc["solutions"]} == want
    assert doc["picked"] == len(want) == doc["embedded"]
    html = out.read_text(encoding="utf-8")
    data = json.loads(html.split('id="fastsnake-data">', 1)[1].split("</script>", 1)[0])
    assert data["kind"] == "study" and len(data["games"]) == len(want)
    by = {(r["heuristic"], r["instance_id"]): r for r in rows}
    for g in data["games"]:
        row = by[(g["policy"].split("/")[0], g["game"])]
        moves = parse_moves(g["data"]["moves"])
        assert len(moves) == g["moves"] == row["length"]
        assert _play(g["data"]["start"], g["data"]["goal"], moves, 3) == g["data"]["goal"]
        assert g["data"]["start"] == [int(t) for t in row["start"].split()]
    # The section precedes the player; a ratio whisker for every pair and measure, n beside it.
    assert html.index(f'id="{study_report.STUDY_SECTION_ID}"') < html.index('id="games-section"')
    assert html.count('class="ratio"') == 3 and html.count("<circle") > 20


def test_a_row_the_code_does_not_re_solve_is_a_problem_line_exit_2(puzzle_study, tmp_path, capsys):
    meta, table = read_rows(str(puzzle_study))
    nodes = table.column("nodes_generated").to_pylist()
    k = max(range(len(nodes)), key=nodes.__getitem__)
    nodes[k] += 1000  # the most nodes still: the default pick
    edited = table.set_column(table.column_names.index("nodes_generated"), "nodes_generated",
                              pa.array(nodes, pa.int64()))
    path = write_rows(edited, str(tmp_path / "e.parquet"), meta)
    code, out, err = _cli(capsys, "report", path, "--out", str(tmp_path / "e.html"))
    assert code == 2 and err.strip().splitlines()[-1].startswith("fastsnake: error:")
    assert f"{nodes[k]:,}" in err and "re-solved" in err and (tmp_path / "e.html").exists()


@pytest.mark.parametrize("case", ["cut", "flipped", "mixed", "pick"])
def test_bad_input_is_one_line_exit_2(puzzle_study, tmp_path, capsys, case):
    data = bytearray(puzzle_study.read_bytes())
    bad = tmp_path / "bad.parquet"
    if case == "cut":
        bad.write_bytes(bytes(data[:len(data) // 2]))
    elif case == "flipped":
        data[200] ^= 0xFF  # a page header: the footer still says "study"
        bad.write_bytes(bytes(data))
    argv = {"cut": [str(bad)], "flipped": [str(bad)], "mixed": [str(puzzle_study), str(tmp_path / "x.npz")],
            "pick": [str(puzzle_study), "--pick", "nosuch"]}[case]
    code, out, err = _cli(capsys, "report", *argv, "--out", str(tmp_path / "r.html"))
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("fastsnake: error:")
    assert {"cut": "bad.parquet", "flipped": "bad.parquet", "mixed": "study file", "pick": "nosuch"}[case] in err
    assert not (tmp_path / "r.html").exists()


def test_a_tour_study_page(tmp_path, capsys):
    path = tmp_path / "t.parquet"
    assert main(["tour", "compare", "--size", "5", "--methods", "search", "--seeds", "0,1", "--out", str(path),
                 "--quiet", "--json"]) == 0
    capsys.readouterr()
    code, text, err = _cli(capsys, "report", str(path), "--out", str(tmp_path / "t.html"), "--json")
    assert code == 0, err
    doc = json.loads(text)
    _, table = read_rows(str(path))
    rows = [r for r in table.to_pylist() if r["found"]]
    most = max(rows, key=lambda r: r["nodes"])
    assert doc["study"] == "tour" and doc["trials"] == 25 and doc["problems"] == []
    assert [(s["trial"], s["nodes"], s["moves"]) for s in doc["solutions"]] == [(most["trial_id"], most["nodes"], 24)]
