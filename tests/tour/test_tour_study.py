"""`fastsnake tour compare` (fastsnake.tour.study): small boards, the tour kernels the suite compiles."""

import csv
import io
import json

import golden_study_rows
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from scipy import stats

from fastsnake import tour as T
from fastsnake.cli import main
from fastsnake.study.rows import read_rows, write_rows


def _run(capsys, *argv):
    code = main(["tour", "compare", *argv, "--quiet"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_success_rates_with_wilson_intervals_and_rows_that_recompute(capsys, tmp_path):
    out = tmp_path / "t.parquet"
    # The methods named: the default, every built-in method, grows with the registry.
    code, text, err = _run(capsys, "--size", "5,6", "--closed", "--methods", "search,construct", "--json",
                           "--out", str(out))
    assert code == 0, err
    doc = json.loads(text)
    by = {(m["method"], m["board"]): m for m in doc["methods"]}
    # Schwenk: no closed knight's tour of 5x5; construction covers 6x6 from every square.
    assert by[("search seed=0", "5x5")]["found"] == 0 and by[("search seed=0", "5x5")]["trials"] == 25
    assert by[("construct", "5x5")]["applicable"] == 0
    c6 = by[("construct", "6x6")]
    assert c6["found"] == c6["applicable"] == 36 and c6["success_rate"] == 1.0
    rows = pq.read_table(out).to_pylist()
    assert len(rows) == (25 + 36) * 2 and set(T.study.ROW_COLUMNS) == set(rows[0])
    s6 = [r for r in rows if r["rows"] == 6 and r["method"] == "search"]
    found = sum(r["found"] for r in s6)
    lo, hi = stats.binomtest(found, len(s6)).proportion_ci(0.95, method="wilson")
    assert by[("search seed=0", "6x6")]["success_rate_ci95"] == pytest.approx([lo, hi], abs=1e-12)
    for r in rows:
        if r["found"]:
            t = T.find_tour(r["piece"], r["rows"], r["cols"], r["start"], closed=True, method=r["method"],
                            seed=r["seed"])
            assert t.found and t.nodes == r["nodes"]
            break


def test_baseline_and_csv(capsys, tmp_path):
    base = tmp_path / "b.parquet"
    args = ("--size", "6", "--methods", "search", "--seeds", "0,1", "--starts", "all")
    assert _run(capsys, *args, "--save-baseline", str(base))[0] == 0
    # CPU-seconds are not judged here (--slower 1e9): a test never depends on the machine's load.
    code, out, err = _run(capsys, *args, "--baseline-from", str(base), "--slower", "1e9")
    assert code == 0 and "no method is worse" in out, err
    meta, table = read_rows(str(base))
    cheap = table.set_column(table.column_names.index("nodes"), "nodes",
                             pa.array([max(1, n // 3) for n in table.column("nodes").to_pylist()], pa.int64()))
    write_rows(cheap, str(tmp_path / "c.parquet"), meta)
    code, _, err = _run(capsys, *args, "--baseline-from", str(tmp_path / "c.parquet"))
    assert code == 4 and "nodes" in err
    pq.write_table(cheap.replace_schema_metadata(table.schema.metadata), tmp_path / "edited.parquet")
    code, _, err = _run(capsys, *args, "--baseline-from", str(tmp_path / "edited.parquet"))
    assert code == 2 and "checksum does not match" in err
    # A method the baseline lacks (seed 2): the old gate compared seeds 0 and 1 alone and passed.
    more = ("--size", "6", "--methods", "search", "--seeds", "0,1,2", "--starts", "all", "--baseline-from", str(base))
    code, out, err = _run(capsys, *more)
    assert code == 2 and out == "" and "search seed=2: not in the baseline" in err and "--allow-partial" in err
    code, out, err = _run(capsys, *more, "--allow-partial", "--slower", "1e9")
    assert code == 0 and "compared 2 of 3 methods on 72 of 108 trial runs" in out, err
    code, out, err = _run(capsys, "--size", "5", "--methods", "search", "--baseline-from", str(base))
    assert code == 2 and out == "" and err.count("\n") == 1 and "not in the baseline" in err
    code, out, _ = _run(capsys, *args, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and {r["method"] for r in rows} == {"search seed=0", "search seed=1"}
    assert all(0 <= float(r["ci_low"]) <= float(r["mean"]) <= float(r["ci_high"]) <= 1 for r in rows)


@pytest.mark.parametrize("argv,fragment", [
    (["--size", "6", "--methods", "magic"], "magic"),
    (["--size", "6", "--piece", "1;2"], "piece '1'"),
    (["--size", "100"], "too big"),
])
def test_bad_input_one_line_exit_2(capsys, argv, fragment):
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and fragment in err


def test_the_plain_tour_verb_still_works(capsys):
    assert main(["tour", "--piece", "knight", "--size", "5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["found"] is True
    assert main(["tour", "--piece", "knight"]) == 2
    assert "--size" in capsys.readouterr().err


def _measured_apart(path):
    return [{k: v for k, v in r.items() if k not in ("cpu_seconds", "run_id")} for r in pq.read_table(path).to_pylist()]


def test_a_run_folder_resumes_to_the_rows_of_a_plain_run(capsys, tmp_path):
    args = ("--size", "5,6", "--closed", "--json")
    assert _run(capsys, *args, "--out", str(tmp_path / "plain.parquet"))[0] == 0
    folder = tmp_path / "tours"
    code, text, err = _run(capsys, *args, "--out", str(folder))
    assert code == 0, err
    doc = json.loads(text)
    assert doc["run"]["chunks_computed"] == 61 and doc["files"]["folder"] == str(folder)
    for name in ("chunk-00000000.json", "chunk-00000060.json"):
        (folder / name).unlink()
    code, text, err = _run(capsys, *args, "--out", str(folder))
    again = json.loads(text)
    assert (again["run"]["chunks_computed"], again["run"]["chunks_resumed"]) == (2, 59)
    assert _measured_apart(again["files"]["rows"]) == _measured_apart(tmp_path / "plain.parquet")
    code, _, err = _run(capsys, "--size", "5,6", "--out", str(folder))  # open tours: another study
    assert code == 2 and "holds another run" in err


@pytest.mark.slow
def test_two_workers_give_the_rows_of_one(capsys, tmp_path):
    args = ("--size", "5,6,7,8", "--methods", "search,construct", "--seeds", "0,1")
    for n in ("1", "2"):
        assert _run(capsys, *args, "--workers", n, "--out", str(tmp_path / f"w{n}.parquet"))[0] == 0
    assert _measured_apart(tmp_path / "w1.parquet") == _measured_apart(tmp_path / "w2.parquet")


# -- issue 63/64: success among existing tours, the noise floor, the baseline rule, verify -----------

def test_success_counts_only_starts_where_a_tour_exists_and_cpu_noise_is_no_finding(capsys, tmp_path):
    out = tmp_path / "open5.parquet"
    code, text, err = _run(capsys, "--size", "5", "--methods", "search", "--seeds", "0,1", "--json", "--out", str(out))
    assert code == 0, err
    doc = json.loads(text)
    rows = pq.read_table(out).to_pylist()
    proved = {r["trial_id"] for r in rows if r["exists"] is False}
    assert doc["impossible"] == len(proved) > 0  # the minority colour of 5x5: no open knight's tour
    for m in doc["methods"]:
        assert m["impossible"] == len(proved) and m["found"] == 25 - len(proved) and m["success_rate"] == 1.0
    floor = doc["noise_floor"]
    assert floor["abs_seconds"] >= floor["timer_resolution"] > 0 and floor["text"]
    pair = doc["pairs"][0]
    assert pair["nodes"]["n"] == 25 - len(proved) and "significant" in pair["nodes"]
    assert set(pair["cpu_seconds"]) >= {"below_floor", "floor", "significant", "median_abs_difference"}
    # A forged baseline: one start said impossible where today's search finds a tour.
    meta, table = read_rows(str(out))
    found_row = next(k for k, r in enumerate(rows) if r["found"])
    forged = [dict(r, found=False, exists=False, status="none") if k == found_row else r for k, r in enumerate(rows)]
    for r in forged:  # the other seed's row of that start too, or the file contradicts itself
        if r["trial_id"] == rows[found_row]["trial_id"]:
            r.update(found=False, exists=False, status="none")
    base = write_rows(T.study.rows_table(forged), str(tmp_path / "forged.parquet"), meta)
    # consistent in itself (no search again: the forged row, drawn by the checksum, would be found)
    assert main(["verify", base, "--replay", "0"]) == 0
    capsys.readouterr()
    code, out_text, err = _run(capsys, "--size", "5", "--methods", "search", "--seeds", "0,1", "--baseline-from", base)
    assert code == 2 and out_text == "" and "says no tour exists (exists=false)" in err and "found one" in err


def test_verify_and_report_refuse_a_forged_tour_study(capsys, tmp_path):
    path = tmp_path / "t.parquet"
    assert _run(capsys, "--size", "5", "--methods", "search", "--out", str(path))[0] == 0
    meta, table = read_rows(str(path))
    rows = table.to_pylist()
    k = next(k for k, r in enumerate(rows) if r["status"] == "none")
    rows[k]["found"] = True  # "found" a tour the same row says does not exist
    bad = write_rows(T.study.rows_table(rows), str(tmp_path / "bad.parquet"), meta)
    code = main(["verify", bad])
    out = capsys.readouterr().out
    assert code == 2 and "DAMAGED" in out and "status 'none' with found=True" in out
    code = main(["report", bad, "--out", str(tmp_path / "r.html")])
    assert code == 2 and not (tmp_path / "r.html").exists() and "is damaged" in capsys.readouterr().err


def test_a_cpu_difference_within_the_noise_floor_is_never_significant():
    from fastsnake.study.noise import judge_cpu, significant
    from fastsnake.study.stats import paired_ratio

    base = [0.001 + 1e-5 * k for k in range(40)]
    this = [b + 1e-4 for b in base]  # 0.1 ms more on every trial: Wilcoxon's p is tiny
    paired = paired_ratio(this, base)
    assert paired["p_value"] < 1e-6
    floor = {"abs_seconds": 2e-4, "relative": 0.05, "text": "0.2 ms or 5%"}
    judged = dict(judge_cpu(paired, this, base, floor), p_holm=paired["p_value"])
    assert judged["below_floor"] and not significant(judged) and judged["floor"] == "0.2 ms or 5%"
    wide = [b * 2 for b in base]  # twice the time: above both floors
    judged = judge_cpu(paired_ratio(wide, base), wide, base, floor)
    judged["p_holm"] = judged["p_value"]
    assert not judged["below_floor"] and significant(judged)


def test_the_gate_never_calls_a_cpu_difference_within_the_floor_worse():
    from fastsnake.study.baseline import check

    base = [0.001 + 1e-5 * k for k in range(30)]
    slower = [b + 1e-4 for b in base]  # 0.1 ms more each: 5-10 % above, p tiny
    floor = {"abs_seconds": 2e-4, "relative": 0.02, "text": "0.2 ms"}
    within = check({("m", "cpu_seconds"): slower}, {("m", "cpu_seconds"): base}, {"cpu": 0.01}, floor)
    assert within["worse"] == [] and within["checks"][0]["below_floor"]
    twice = check({("m", "cpu_seconds"): [2 * b for b in base]}, {("m", "cpu_seconds"): base}, {"cpu": 0.01}, floor)
    assert twice["worse"] and not twice["checks"][0]["below_floor"]


# -- issue 61: a trial's move encoding, vectorised ---------------------------------------------------

def _tour_moves_by_loop(path, piece, cols):
    """`tour_moves` as 0.2.0 wrote it: one dict look-up per square (slow, plain)."""
    if path is None or len(piece.jump_list) > len(T.study.JUMP_DIGITS):
        return None
    index = {jump: T.study.JUMP_DIGITS[k] for k, jump in enumerate(piece.jump_list)}
    cells = [int(c) for c in path]
    return "".join(index[(b // cols - a // cols, b % cols - a % cols)] for a, b in zip(cells, cells[1:], strict=False))


def _walk(rng, piece, rows, cols, steps):
    """A random walk of `piece` on the board (squares may repeat): the squares, from a random start."""
    r, c = divmod(int(rng.integers(rows * cols)), cols)
    out = [r * cols + c]
    for _ in range(steps):
        legal = [(dr, dc) for dr, dc in piece.jump_list if 0 <= r + dr < rows and 0 <= c + dc < cols]
        if not legal:
            break
        r, c = (a + b for a, b in zip((r, c), legal[int(rng.integers(len(legal)))], strict=True))
        out.append(r * cols + c)
    return out


@pytest.mark.parametrize("piece", [T.parse_piece("knight"), T.parse_piece("1,3"), T.parse_piece("0,1"),
                                   T.parse_piece(["1,2", "0,1"]), T.parse_piece("2,3"),
                                   T.parse_piece(None, "0,1;1,0;-1,-1", True),
                                   T.parse_piece(None, "0,1;1,0;0,1", True)])  # a jump listed twice
def test_tour_moves_are_the_plain_loops_and_give_the_squares_back(piece):
    import numpy as np

    rng = np.random.default_rng(61)
    for rows, cols in ((1, 1), (3, 4), (6, 6), (5, 9), (12, 7)):
        for steps in (0, 1, 2, 40, 300):
            path = _walk(rng, piece, rows, cols, steps)
            for given in (path, np.array(path, np.int32), np.array(path, np.int64)):
                moves = T.study.tour_moves(given, piece, cols)
                assert moves == _tour_moves_by_loop(path, piece, cols)
            if len(set(piece.jump_list)) == len(piece.jump_list):
                assert T.study.tour_path(moves, path[0], piece, rows, cols) == path
    assert T.study.tour_moves(None, piece, 6) is None


def test_tour_moves_refuse_a_step_that_is_no_jump():
    knight = T.parse_piece("knight")
    with pytest.raises(ValueError, match=r"step 1 \(0,1\) is no jump of knight"):
        T.study.tour_moves([0, 13, 14], knight, 6)  # 0 -> 13 a knight's jump on 6 columns, 13 -> 14 not
    with pytest.raises(ValueError, match=r"step 0 \(4,0\) is no jump"):
        T.study.tour_moves([0, 24], knight, 6)
    many = T.parse_piece(None, ";".join(f"0,{k}" for k in range(1, 38)), True)  # 37 jumps: no digit for each
    assert T.study.tour_moves([0, 1], many, 40) is None


@pytest.mark.parametrize("workers", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_study_rows_are_those_of_the_code_before_issue_61(workers):
    """Every trial's work moved into the workers (move encoding, rows): the rows files' rows and the
    summary's counts and nodes are still those `golden/study_rows.json` keeps (made by
    `golden_study_rows.py` on the code before), on one process and on two workers."""
    golden = json.loads(golden_study_rows.GOLDEN.read_text())
    assert [entry["study"] for entry in golden["studies"]] == json.loads(json.dumps(golden_study_rows.STUDIES))
    assert any(r["status"] == "limit" for e in golden["studies"] for r in e["rows"])  # every status is held
    for entry, now in zip(golden["studies"], golden_study_rows.answers(workers), strict=True):
        assert now == entry, entry["study"]


def test_chunks_start_with_the_most_squares_and_each_runs_once():
    corners = T.study.trials([(5, 5), (8, 8), (6, 7), (8, 8), (3, 4)], ["knight"], starts="corner")
    assert T.study.chunk_size_for(len(corners)) == 1
    assert T.study.chunk_order(corners, 1) == [1, 3, 2, 0, 4]  # 64, 64 (ties in order), 42, 25, 12 squares
    every = T.study.trials([(5, 5), (8, 8), (6, 6)], ["knight"])  # 125 trials
    for size in (1, 7, 60, 200):
        order = T.study.chunk_order(every, size)
        assert sorted(order) == list(range(-(-125 // size)))
        cost = [sum(t.rows * t.cols for t in every[i * size:(i + 1) * size]) for i in order]
        assert cost == sorted(cost, reverse=True)


def test_two_workers_give_the_golden_rows_of_a_small_study():
    """One study of the reference on a pool of two worker processes (the others: the slow test above):
    the rows each worker makes are the rows the code before made in one process, in trial order."""
    golden = json.loads(golden_study_rows.GOLDEN.read_text())["studies"][1]  # closed tours, both methods
    now = golden_study_rows.study_rows(golden_study_rows.STUDIES[1], workers=2)
    assert now == {k: v for k, v in golden.items() if k != "study"}
    assert len(now["rows"]) == 66 * 3 and {r["method"] for r in now["rows"]} == {"search", "construct"}


def _plain_rows_table(rows):
    """`rows_table` as first written: the rows copied with the moves of the unpickable ones None
    (`keep_pickable_moves`), then each column gathered with ``dict.get``."""
    from fastsnake.study.picks import keep_pickable_moves

    rows = keep_pickable_moves(rows, **T.study.PICKABLE)
    fast = T.study.rows_table([dict(r, moves=None) for r in rows])  # its types, moves aside
    arrays = {}
    for c in T.study.ROW_COLUMNS:
        typ = fast.schema.field(c).type
        values = [r.get(c) for r in rows]
        arrays[c] = (pa.array(values, pa.string()).dictionary_encode() if pa.types.is_dictionary(typ)
                     else pa.array(values, typ))
    return pa.table(arrays)


def test_rows_table_is_the_plain_one_ties_missing_moves_and_all():
    """The rows table gathers its columns fast and keeps the pickable moves without copying the
    rows: the same table as the plain way, on rows with ties of nodes, failures, an arm of no tour
    and rows of an older file without ``moves``."""
    rows = []
    for k, (method, nodes, found) in enumerate([("search", 30, True), ("search", 30, True), ("search", 12, True),
                                               ("search", 99, False), ("construct", 0, True),
                                               ("construct", 0, True), ("bfs", 5, False), ("search", 12, True)]):
        row = {"trial_id": f"5x6/knight/open/t{k}", "rows": 5, "cols": 6, "piece": "knight", "closed": False,
               "start": k, "method": method, "seed": 0, "options": "{}", "status": "found" if found else "limit",
               "found": found, "exists": True if found else None, "nodes": nodes, "cpu_seconds": 0.001 * k,
               "method_used": method if found else None, "moves": f"m{k}" if found else None,
               "fastsnake_version": "0.2.0", "run_id": "r"}
        if k == 7:
            del row["moves"]  # written before the column
        rows.append(row)
    table = T.study.rows_table(rows)
    assert table.equals(_plain_rows_table(rows))
    assert table.column("moves").to_pylist() == ["m0", None, "m2", None, "m4", None, None, None]
    assert rows[1]["moves"] == "m1"  # the caller's rows untouched


@pytest.mark.parametrize("workers", [1, 2])
def test_a_study_keeps_the_moves_a_page_can_pick_and_they_give_the_tours_back(workers):
    """Workers encode the moves of a chunk's pickable rows only (`chunk_rows`); the study's rows keep
    exactly the study's pickable ones (as its rows file), each the moves of a tour of the board."""
    from fastsnake.study.picks import pickable

    trials = T.study.trials([(5, 6), (6, 6), (6, 7)], ["knight"], closed=False)
    study = T.study.run_study(trials, [("search", 0), ("construct", 0)], workers=workers)
    with_moves = {k for k, r in enumerate(study.rows) if r["moves"] is not None}
    assert with_moves == pickable(study.rows, **T.study.PICKABLE) and with_moves
    assert all(T.study._TOUR not in r for r in study.rows)
    knight = T.parse_piece("knight")
    for k in with_moves:
        r = study.rows[k]
        path = T.study.tour_path(r["moves"], r["start"], knight, r["rows"], r["cols"])
        assert sorted(path) == list(range(r["rows"] * r["cols"]))  # every square once
        jumps = {(abs(a // r["cols"] - b // r["cols"]), abs(a % r["cols"] - b % r["cols"]))
                 for a, b in zip(path[:-1], path[1:], strict=True)}
        assert jumps <= {(1, 2), (2, 1)}


def test_a_chunk_keeps_the_moves_of_its_own_picks_which_hold_the_studys():
    """The rows a page picks over the whole study are among each chunk's own picks (`study.picks`), so
    a chunk that drops the rest drops nothing the study keeps: checked over every chunk size."""
    from fastsnake.study.picks import pickable

    trials = T.study.trials([(5, 5), (6, 6)], ["knight"], closed=False)
    spec = T.study.trial_setup({"arms": [("search", 0), ("construct", 0)], "time_limit": 10.0, "max_nodes": None,
                                "options_text": "{}", "run_id": "r", "version": "v", "warm": trials[0],
                                "methods": []})
    whole = [T.study.trial_rows(spec, t) for t in trials]
    flat = [dict(r, **{T.study._TOUR: None}) for rows in whole for r in rows]
    study_picks = pickable(flat, **T.study.PICKABLE)
    for size in (1, 3, 7, len(trials)):
        kept = set()
        for first in range(0, len(trials), size):
            rows = [[dict(r) for r in trial] for trial in whole[first:first + size]]
            offset = sum(len(trial) for trial in whole[:first])
            done = T.study.chunk_rows(spec, rows)
            kept |= {offset + k for k, r in enumerate(r for trial in done for r in trial) if r["moves"] is not None}
        assert study_picks <= kept, size
