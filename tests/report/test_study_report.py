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
    """The tiles after the blank moves `moves` (plain Python; None when a move leaves the board;
    `goal` unused)."""
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


def _pickable_naive(rows, length, nodes, ok, arm):
    """The rows a pick word can choose, per arm: plain Python, every word's maximum by its own rule."""
    keys = {"longest": lambda r: (r[length], r[nodes]), "shortest": lambda r: (-r[length], -r[nodes]),
            "most-nodes": lambda r: (r[nodes], r[length]), "fewest-nodes": lambda r: (-r[nodes], -r[length])}
    out = set()
    for a in {arm(r) for r in rows if ok(r)}:
        mine = [k for k, r in enumerate(rows) if ok(r) and arm(r) == a]
        for key in keys.values():
            best = max(key(rows[k]) for k in mine)
            out.add(next(k for k in mine if key(rows[k]) == best))
    return out


def test_the_rows_file_keeps_the_moves_of_exactly_the_pickable_solutions(puzzle_study):
    _, table = read_rows(str(puzzle_study))
    rows = table.to_pylist()
    kept = {k for k, r in enumerate(rows) if r["moves"] is not None}
    assert kept == _pickable_naive(rows, "length", "nodes_generated", lambda r: r["status"] == "solved",
                                   lambda r: r["heuristic"])
    assert 2 <= len(kept) < len(rows)
    for k in kept:  # each one a real solution of its row: the row's length, the goal reached
        r = rows[k]
        moves = parse_moves(r["moves"])
        assert len(moves) == r["length"]
        assert _play([int(t) for t in r["start"].split()], None, moves, 3) == [int(t) for t in r["goal"].split()]


def test_the_page_holds_the_plots_tables_and_the_kept_solutions_never_searching(puzzle_study, tmp_path, capsys,
                                                                                monkeypatch):
    import fastsnake.puzzle

    def no_search(*a, **k):
        raise AssertionError("the report searched")

    monkeypatch.setattr(fastsnake.puzzle, "solve", no_search)
    monkeypatch.setattr(fastsnake.puzzle.solver, "solve", no_search)
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
    by = {(r["heuristic"], r["instance_id"]): r for r in rows}
    assert doc["embedded"] == sum(by[(a.split("/")[0], t)]["moves"] is not None for a, t in want)
    html = out.read_text(encoding="utf-8")
    data = json.loads(html.split('id="fastsnake-data">', 1)[1].split("</script>", 1)[0])
    assert data["kind"] == "study" and len(data["games"]) == len(want)
    assert [c[0] for c in data["game_columns"]] == ["#", "instance", "heuristic", "length", "optimal", "nodes",
                                                    "picked as"]
    for g in data["games"]:
        row = by[(g["heuristic"], g["game"])]
        assert (g["instance"], g["moves"], g["nodes"], g["optimal_text"]) == (
            row["instance_id"], row["length"], row["nodes_generated"], "yes")
        if row["moves"] is None:  # not kept: listed, with how to find it, and no replay
            assert "data" not in g and f"--heuristic {row['heuristic']}" in g["note"]
            continue
        moves = parse_moves(g["data"]["moves"])
        assert len(moves) == g["moves"] == row["length"]
        assert _play(g["data"]["start"], g["data"]["goal"], moves, 3) == g["data"]["goal"]
        assert g["data"]["start"] == [int(t) for t in row["start"].split()]
    # The section precedes the player; the plots' numbers: a ratio per pair and measure, a value per instance.
    assert html.index(f'id="{study_report.STUDY_SECTION_ID}"') < html.index('id="games-section"')
    plots = {p["id"]: p for p in data["study"]["plots"]}
    assert len(plots["ratios"]["entries"]) == 3
    nodes = plots["nodes-per-instance"]
    assert nodes["names"] == ["manhattan", "linear-conflict"] and all(len(v) == 5 for v in nodes["values"])
    assert nodes["values"][0] == sorted(nodes["values"][0])  # in order of the first heuristic's nodes


def test_a_non_optimal_pick_says_so(puzzle_study, tmp_path, capsys):
    meta, table = read_rows(str(puzzle_study))
    rows = table.to_pylist()
    longest = max(range(len(rows)), key=lambda k: (rows[k]["length"], rows[k]["nodes_generated"]))
    name = rows[longest]["heuristic"]
    optimal = [r["optimal"] and r["heuristic"] != name for r in rows]  # as a study marks an inadmissible one
    edited = table.set_column(table.column_names.index("optimal"), "optimal", pa.array(optimal, pa.bool_()))
    meta = dict(meta, admissibility={name: {"admissible": False, "samples": 10, "sample_violations": 0,
                                            "violations": [], "longer_path_count": 0, "longer_paths": []}})
    path = write_rows(edited, str(tmp_path / "n.parquet"), meta)
    code, text, err = _cli(capsys, "report", path, "--out", str(tmp_path / "n.html"), "--json")
    assert code == 0, err
    doc = json.loads(text)
    picked = next(s for s in doc["solutions"] if "longest" in s["why"])
    assert picked["optimal"] is False
    html = (tmp_path / "n.html").read_text(encoding="utf-8")
    data = json.loads(html.split('id="fastsnake-data">', 1)[1].split("</script>", 1)[0])
    game = next(g for g in data["games"] if "longest" in g["why"][0])
    assert game["optimal_text"] == f"no: {name} is not admissible"
    assert any(m.startswith(f"{name} is not admissible") for m in doc["marks"])


def test_kept_moves_that_do_not_reach_the_goal_are_a_problem_line_exit_2(puzzle_study, tmp_path, capsys):
    meta, table = read_rows(str(puzzle_study))
    rows = table.to_pylist()
    k = max(range(len(rows)), key=lambda i: rows[i]["nodes_generated"])  # the default pick
    moves = [r["moves"] for r in rows]
    moves[k] = moves[k][:-2] + moves[k][-1] + moves[k][-2]  # the last two moves swapped
    edited = table.set_column(table.column_names.index("moves"), "moves", pa.array(moves, pa.string()))
    path = write_rows(edited, str(tmp_path / "e.parquet"), meta)
    code, out, err = _cli(capsys, "report", path, "--out", str(tmp_path / "e.html"))
    assert code == 2 and err.strip().splitlines()[-1].startswith("fastsnake: error:")
    assert f"{rows[k]['instance_id']} with {rows[k]['heuristic']}" in err and "kept moves" in err
    assert (tmp_path / "e.html").exists()


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


@pytest.fixture(scope="module")
def tour_study(tmp_path_factory):
    path = tmp_path_factory.mktemp("tour") / "t.parquet"
    assert main(["tour", "compare", "--size", "5", "--methods", "search", "--seeds", "0,1", "--out", str(path),
                 "--quiet", "--json"]) == 0
    return path


def test_a_tour_study_page(tour_study, tmp_path, capsys):
    path = tour_study
    capsys.readouterr()
    code, text, err = _cli(capsys, "report", str(path), "--out", str(tmp_path / "t.html"), "--json")
    assert code == 0, err
    doc = json.loads(text)
    _, table = read_rows(str(path))
    rows = [r for r in table.to_pylist() if r["found"]]
    most = max(rows, key=lambda r: r["nodes"])
    assert doc["study"] == "tour" and doc["trials"] == 25 and doc["problems"] == []
    assert [(s["trial"], s["nodes"], s["moves"]) for s in doc["solutions"]] == [(most["trial_id"], most["nodes"], 24)]
    assert doc["embedded"] == 1
    html = (tmp_path / "t.html").read_text(encoding="utf-8")
    data = json.loads(html.split('id="fastsnake-data">', 1)[1].split("</script>", 1)[0])
    assert [c[0] for c in data["game_columns"]] == ["#", "board", "piece", "start", "method", "found", "nodes",
                                                    "picked as"]
    (g,) = data["games"]
    assert (g["board"], g["piece"], g["start_name"], g["found_text"]) == ("5x5", most["piece"], g["start_name"], "yes")
    # The kept jumps, decoded here in plain Python: a knight's tour of the 25 squares from the row's start.
    import base64

    import numpy as np

    from fastsnake.webpage import cell_bytes
    path = np.frombuffer(base64.b64decode(g["data"]["path"]), dtype="<u2" if cell_bytes(25) == 2 else "<u4").tolist()
    assert path[0] == most["start"] and sorted(path) == list(range(25))
    steps = zip(path, path[1:], strict=False)
    assert all(sorted((abs(a // 5 - b // 5), abs(a % 5 - b % 5))) == [1, 2] for a, b in steps)


# -- the layout at 1366 and 400 px, in Chromium (the Snake compare page's: test_report_phone_layout.py) ------------
# At bada6c1 a study page's plots were SVGs laid out in Python at a fixed size: with Korf-sized node counts
# the y tick labels ran off the plot's left edge ("00,000,000") under the axis title, and at 400 px the
# axis titles, the ratio labels and the ratio plot's title were cut off and the legend's entries overlapped.
# The study plots are now drawn by the page's shared plotting code, which measures its text.

WIDTHS = (1366, 400)
# Korf's 100 take 10^5 to 10^10 nodes with Manhattan: the 3x3 counts times this reach them.
KORF_SCALE = 10**6


@pytest.fixture(scope="module")
def pages(puzzle_study, tour_study, tmp_path_factory):
    """A puzzle study's page with its node counts scaled to Korf-100 sizes in its rows file (the page
    reads them, it never searches), and a tour study's page."""
    folder = tmp_path_factory.mktemp("widths")
    meta, table = read_rows(str(puzzle_study))
    for name in ("nodes_generated", "nodes_expanded"):
        scaled = pa.array([v * KORF_SCALE for v in table.column(name).to_pylist()], pa.int64())
        table = table.set_column(table.column_names.index(name), name, scaled)
    korf = write_rows(table, str(folder / "korf.parquet"), meta)
    assert main(["report", korf, "--out", str(folder / "puzzle.html")]) == 0
    assert main(["report", str(tour_study), "--out", str(folder / "tour.html")]) == 0
    return {name: folder / f"{name}.html" for name in ("puzzle", "tour")}


@pytest.mark.parametrize("which", ["puzzle", "tour"])
def test_no_plot_label_is_cut_off_or_over_another_at_1366_and_400_px(pages, open_page, which):
    from layout_checks import faults

    for width in WIDTHS:
        page = open_page(pages[which], width=width, height=900)
        texts, cut, overlaps, small = faults(page)
        assert len({t["plot"] for t in texts}) >= 3, (which, width)
        assert cut == [], f"{which} at {width} px: cut off at the plot's edge: {cut}"
        assert overlaps == [], f"{which} at {width} px: texts over one another: {overlaps}"
        assert small == [], f"{which} at {width} px: text under 10.5 px: {small}"
        assert page.js("document.scrollingElement.scrollWidth") <= width
        if which == "puzzle":  # Korf-sized tick labels read whole, never "00,000,000"
            ticks = page.js("Array.from(document.querySelectorAll('#nodes-per-instance text.tick'))"
                            ".map(t => t.textContent)")
            assert any(t in ("1e7", "1e8", "1e9", "1e10") for t in ticks), ticks
        assert page.errors == []
