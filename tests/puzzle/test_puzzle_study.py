"""`fastsnake puzzle compare` as a study (fastsnake.puzzle.study): 3x3 instances and the
assignment's cases with the kernels the suite already compiles (A*/IDA* with manhattan and
linear-conflict); Korf-sized runs are slow."""

import csv
import io
import json
import math

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from scipy import stats

from fastsnake import puzzle as P
from fastsnake.cli import main
from fastsnake.study.rows import META_KEY, read_rows, write_rows

H2 = "manhattan,linear-conflict"


def _run(capsys, *argv):
    code = main(["puzzle", "compare", *argv, "--quiet"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _json(capsys, *argv):
    code, out, err = _run(capsys, *argv, "--json")
    assert code == 0, err
    assert out.count("\n") == 1
    return json.loads(out)


def test_the_old_flags_still_work_and_every_figure_has_its_interval(capsys):
    doc = _json(capsys, "--size", "3", "--count", "8", "--seed", "3", "--heuristics", H2)
    assert doc["instances"] == "random" and doc["count"] == 8 and doc["lengths_agree"] is True
    m = doc["heuristics"]["manhattan"]
    assert m["solved"] == 8 and m["algorithm"] == "astar"
    assert m["solved_share_ci95"][1] == 1.0 and 0.6 < m["solved_share_ci95"][0] < 0.7  # Wilson, 8 of 8
    for key in ("nodes_generated", "nodes_expanded", "cpu_seconds", "length"):
        assert m[key]["n"] == 8 and len(m[key]["mean_ci95"]) == 2 and len(m[key]["median_ci95"]) == 2
    # the old flat keys, kept a release
    assert m["mean_nodes_generated"] == m["nodes_generated"]["mean"]
    assert doc["heuristics"]["linear-conflict"]["mean_nodes_generated"] <= m["mean_nodes_generated"]
    pair = doc["pairs"][0]
    assert (pair["heuristic"], pair["baseline"]) == ("linear-conflict", "manhattan")
    assert pair["nodes_generated"]["n"] == 8 and pair["nodes_generated"]["ratio"] <= 1


def test_node_counts_equal_puzzle_solves_and_lengths_the_published_optima(capsys, tmp_path):
    out = tmp_path / "rows.parquet"
    doc = _json(capsys, "--instances", "assignment", "--heuristics", "linear-conflict", "--out", str(out))
    assert doc["count"] == 3 and doc["lengths"] == [31, 36, 55]  # the assignment's published lengths
    table = pq.read_table(out)
    for row in table.to_pylist():
        r = P.solve(row["start"], row["goal"], rows=row["rows"], cols=row["cols"], algorithm=row["algorithm"],
                    heuristic=row["heuristic"])
        assert (row["nodes_generated"], row["nodes_expanded"], row["length"]) == \
            (r.nodes_generated, r.nodes_expanded, r.length)
        assert row["optimal"] is True and row["published_length"] == row["length"]


def test_rows_file_reads_back_and_its_statistics_recompute(capsys, tmp_path):
    folder = tmp_path / "runs"
    folder.mkdir()
    doc = _json(capsys, "--size", "3", "--count", "10", "--seed", "5", "--heuristics", H2, "--out", str(folder))
    path = folder / f"{doc['run_id']}.parquet"
    assert doc["files"]["rows"] == str(path)
    table = pq.read_table(path)
    assert table.num_rows == 20
    assert set(P.study.ROW_COLUMNS) == set(table.column_names)
    meta = json.loads(table.schema.metadata[META_KEY])
    assert meta["kind"] == "puzzle" and meta["run_id"] == doc["run_id"]
    rows = table.to_pylist()
    assert {r["run_id"] for r in rows} == {doc["run_id"]} and {r["fastsnake_version"] for r in rows} == \
        {doc["fastsnake_version"]}
    assert json.loads(rows[0]["options"])["max_nodes"] > 0
    by = {h: sorted((r for r in rows if r["heuristic"] == h), key=lambda r: int(r["instance_id"]))
          for h in ("manhattan", "linear-conflict")}
    gen = np.array([r["nodes_generated"] for r in by["manhattan"]], float)
    lo, hi = stats.ttest_1samp(gen, 0).confidence_interval(0.95)
    assert doc["heuristics"]["manhattan"]["nodes_generated"]["mean_ci95"] == pytest.approx([lo, hi])
    logs = np.log(np.array([r["nodes_generated"] for r in by["linear-conflict"]], float) / gen)
    pair = doc["pairs"][0]["nodes_generated"]
    assert pair["ratio"] == pytest.approx(math.exp(logs.mean()))
    if np.any(logs != 0):
        assert pair["p_value"] == pytest.approx(stats.wilcoxon(logs).pvalue)
    cpu = np.array([r["cpu_seconds"] for r in by["manhattan"]])
    assert np.all(cpu >= 0) and doc["heuristics"]["manhattan"]["cpu_seconds"]["mean"] == pytest.approx(cpu.mean())
    duckdb = pytest.importorskip("duckdb")
    got = duckdb.sql(f"SELECT heuristic, avg(nodes_generated) AS m FROM '{folder}/*.parquet' GROUP BY heuristic"
                     ).fetchall()
    assert dict(got)["manhattan"] == pytest.approx(gen.mean())
    polars = pytest.importorskip("polars")
    assert polars.read_parquet(path).height == 20


def test_baseline_same_instances_passes_worse_exits_4_other_instances_exit_2(capsys, tmp_path):
    base = tmp_path / "base.parquet"
    args = ("--size", "3", "--count", "8", "--seed", "1", "--heuristics", H2)
    code, _, err = _run(capsys, *args, "--save-baseline", str(base))
    assert code == 0, err
    code, out, err = _run(capsys, *args, "--baseline-from", str(base))
    assert code == 0, err
    assert "no heuristic is worse" in out
    # A baseline that needed half the nodes: today needs significantly more.
    meta, table = read_rows(str(base))
    half = pa.array([max(1, v // 2) for v in table.column("nodes_generated").to_pylist()], pa.int64())
    cheaper = table.set_column(table.column_names.index("nodes_generated"), "nodes_generated", half)
    write_rows(cheaper, str(tmp_path / "cheap.parquet"), meta)
    code, _, err = _run(capsys, *args, "--baseline-from", str(tmp_path / "cheap.parquet"))
    assert code == 4 and "nodes_generated" in err
    # The same rows edited without saving them again: the checksum refuses them.
    pq.write_table(cheaper.replace_schema_metadata(table.schema.metadata), tmp_path / "edited.parquet")
    code, out, err = _run(capsys, *args, "--baseline-from", str(tmp_path / "edited.parquet"))
    assert code == 2 and out == "" and err.count("\n") == 1 and "checksum does not match" in err
    code, out, err = _run(capsys, "--size", "3", "--count", "8", "--seed", "2", "--heuristics", H2,
                          "--baseline-from", str(base))
    assert code == 2 and out == "" and "differs from the baseline" in err


def test_a_baseline_that_compared_only_some_heuristics_or_instances_exits_2_unless_allowed(capsys, tmp_path):
    base = tmp_path / "base.parquet"
    assert _run(capsys, "--size", "3", "--count", "4", "--seed", "1", "--heuristics", "manhattan",
                "--save-baseline", str(base))[0] == 0
    # linear-conflict is not in the baseline: the old gate compared manhattan alone and passed.
    args = ("--size", "3", "--count", "4", "--seed", "1", "--heuristics", H2, "--baseline-from", str(base))
    code, out, err = _run(capsys, *args)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "linear-conflict: not in the baseline" in err and "--allow-partial" in err
    code, out, err = _run(capsys, *args, "--allow-partial", "--slower", "1e9")  # CPU not judged: no timing
    assert code == 0, err
    assert "compared 1 of 2 heuristics on 4 of 8 instance runs" in out and "not compared: linear-conflict" in out
    # More instances than the baseline holds: partial too.
    more = ("--size", "3", "--count", "6", "--seed", "1", "--heuristics", "manhattan", "--baseline-from", str(base))
    code, _, err = _run(capsys, *more)
    assert code == 2 and "only 4 of the run's 6 instances" in err
    code, out, err = _run(capsys, *more, "--allow-partial", "--json", "--slower", "1e9")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["baseline"]["coverage"] == {"keys": 1, "keys_total": 1, "instances": 4, "instances_total": 6}
    assert doc["baseline"]["checks"][0]["n"] == 4


def _no_search(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("a search or table build started before the input was checked")

    monkeypatch.setattr(P.study, "heuristic_context", refuse)
    monkeypatch.setattr(P.study, "solve", refuse)


@pytest.mark.parametrize("case,fragment", [
    ("set", "nosuch"), ("heuristic", "magic"), ("tiles", "line 2"), ("unsolvable", "unsolvable"),
    ("baseline", "not wholly in the baseline"), ("easiest", "korf100 and korf-felner-50"),
])
def test_bad_input_is_one_line_exit_2_before_any_search_and_nothing_written(capsys, tmp_path, monkeypatch,
                                                                            case, fragment):
    inst = tmp_path / "inst.txt"
    inst.write_text("1 2 3 4 5 6 7 8 0\n1 2 3 4 5 6 7 0\n" if case == "tiles" else
                    "0 2 1 3 4 5 6 7 8\n" if case == "unsolvable" else "1 0 2 3 4 5 6 7 8\n")
    base = tmp_path / "base.parquet"
    if case == "baseline":
        # the baseline, written by a real run before the refusals are installed
        assert _run(capsys, "--instances", str(inst), "--heuristics", H2, "--save-baseline", str(base))[0] == 0
        inst.write_text("1 0 2 3 4 5 6 7 8\n3 1 2 0 4 5 6 7 8\n")
    _no_search(monkeypatch)
    out_file = tmp_path / "out.parquet"
    argv = {"set": ["--instances", "nosuch"], "heuristic": ["--instances", str(inst), "--heuristics", "magic"],
            "tiles": ["--instances", str(inst)], "unsolvable": ["--instances", str(inst)],
            "baseline": ["--instances", str(inst), "--heuristics", H2, "--baseline-from", str(base)],
            "easiest": ["--instances", "assignment", "--easiest", "3"]}[case]
    code, out, err = _run(capsys, *argv, "--out", str(out_file))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("fastsnake: error:") and fragment in err
    assert not out_file.exists() and not list(tmp_path.glob(".out.parquet*"))


def test_a_length_that_disagrees_is_an_error_naming_instance_and_heuristic():
    inst = P.load_instances("assignment")[0]
    rows = [{"heuristic": "manhattan", "optimal": True, "length": 31},
            {"heuristic": "mine", "optimal": True, "length": 33}]
    with pytest.raises(P.StudyLengthError, match="assignment 3x3: mine found an 'optimal' length of 33"):
        P.study.check_lengths(inst, rows)
    with pytest.raises(P.StudyLengthError, match="mine found an optimal length of 33, the published optimum is 31"):
        P.study.check_lengths(inst, rows[1:])
    P.study.check_lengths(inst, rows[:1])


def test_shipped_sets():
    korf = P.load_instances("korf100")
    assert len(korf) == 100 and korf[0].optimum == 57 and (korf[0].rows, korf[0].cols) == (4, 4)
    assert all(P.is_solvable(np.array(i.start), np.array(i.goal), 4, 4) for i in korf)
    easiest = P.load_instances("korf-felner-50", easiest=5)
    nodes = [i.published_nodes for i in easiest]
    assert len(easiest) == 5 and nodes == sorted(nodes)
    assert nodes[-1] <= min(i.published_nodes for i in P.load_instances("korf-felner-50") if i not in easiest)
    a = P.load_instances("random", rows=3, cols=3, count=5, seed=9)
    b = P.load_instances("random", rows=3, cols=3, count=3, seed=9)
    assert a[:3] == b  # a prefix, whatever the count: precision rounds rely on it


def test_csv_is_one_table_of_numbers_and_markdown_latex_for_people(capsys, tmp_path):
    code, out, err = _run(capsys, "--size", "3", "--count", "6", "--heuristics", H2, "--format", "csv")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert {r["measure"] for r in rows} == {"nodes_generated", "nodes_expanded", "cpu_seconds", "length"}
    assert all(float(r["ci_low"]) <= float(r["mean"]) <= float(r["ci_high"]) for r in rows)
    assert "," not in "".join(r["mean"] for r in rows) and "−" not in out
    code, out, _ = _run(capsys, "--size", "3", "--count", "6", "--heuristics", H2, "--format", "csv",
                        "--table", "pairs", "--out", str(tmp_path / "s.parquet"))
    pair = list(csv.DictReader(io.StringIO(out)))[0]
    assert code == 0 and pair["baseline"] == "manhattan"
    # A p-value is Snake's two columns: the value (or a bound) and "=" (or "<").
    assert float(pair["p"]) > 0 and pair["p_bound"] in ("=", "<") and pair["p_holm_bound"] in ("=", "<")
    assert (tmp_path / "s.heuristics.csv").exists() and (tmp_path / "s.pairs.csv").exists()
    code, out, _ = _run(capsys, "--size", "3", "--count", "6", "--heuristics", H2, "--format", "markdown")
    assert code == 0 and "| heuristic |" in out
    code, out, _ = _run(capsys, "--size", "3", "--count", "6", "--heuristics", H2, "--format", "latex")
    assert code == 0 and r"\begin{tabular}" in out


def test_precision_plays_rounds_until_the_node_ratios_are_narrow(capsys):
    args = ("--size", "3", "--count", "300", "--seed", "4", "--heuristics", H2, "--precision", "0.04")
    doc = _json(capsys, *args)
    info = doc["precision"]
    assert info["reached"] is True and 20 < info["instances"] < 300 and info["rounds"] >= 2
    for pair in doc["pairs"]:
        for m in ("nodes_generated", "nodes_expanded"):
            lo, hi = pair[m]["ratio_ci95"]
            assert (hi - lo) / 2 <= 0.04 * pair[m]["ratio"] + 1e-12
    # rounds decided by node counts alone: the same call plays the same instances
    assert _json(capsys, *args)["instance_ids"] == doc["instance_ids"]


@pytest.mark.slow
def test_korf100_first_ten_with_idastar_match_the_published_optima(capsys, tmp_path):
    inst = tmp_path / "korf10.csv"
    lines = ["id,length,tiles"] + [f"{i.id},{i.optimum},{' '.join(map(str, i.start))}"
                                   for i in P.load_instances("korf100") if i.published_nodes < 5_000_000][:10]
    inst.write_text("\n".join(lines) + "\n")
    doc = _json(capsys, "--instances", str(inst), "--heuristics", H2, "--algorithm", "idastar")
    assert doc["count"] == 10 and doc["heuristics"]["linear-conflict"]["solved"] == 10


def test_an_interrupted_study_keeps_whole_instances():
    instances = P.load_instances("random", rows=3, cols=3, count=6, seed=7)
    seen = []

    def stop_after_two(inst, rows):
        seen.append(inst.id)
        if len(seen) == 2:
            raise KeyboardInterrupt

    study = P.run_study(instances, ["manhattan", "linear-conflict"], "astar", on_instance=stop_after_two)
    assert study.interrupted and [i.id for i in study.instances] == ["0", "1"]
    assert len(study.rows) == 4  # both heuristics on each finished instance: still paired
    assert P.summarize(study)["pairs"][0]["nodes_generated"]["n"] == 2


def test_a_users_longer_path_marks_its_rows_non_optimal_without_failing_the_study():
    """The marking logic alone (no search): a user's heuristic's longer path is a warning and a mark,
    a built-in's stays an error, a user's shorter path than the trusted optimum is an error."""
    from fastsnake.viewer.study_report import inadmissible_marks

    inst = P.load_instances("assignment")[0]  # published optimum 31
    row = {"instance_set": inst.set, "instance_id": inst.id, "status": "solved", "algorithm": "astar",
           "nodes_generated": 10, "nodes_expanded": 5, "cpu_seconds": 0.01}
    rows = [{**row, "heuristic": "manhattan", "optimal": True, "length": 31},
            {**row, "heuristic": "mine", "optimal": True, "length": 33}]
    longer = P.study.check_lengths(inst, rows, users={"mine"})
    assert longer == [{"heuristic": "mine", "instance_set": "assignment", "instance_id": "3x3", "length": 33,
                       "optimal_length": 31, "against": "the published optimum is"}]
    with pytest.raises(P.StudyLengthError, match="mine found a path of 29 moves, shorter than the optimum"):
        P.study.check_lengths(inst, [rows[0], {**rows[1], "length": 29}], users={"mine"})
    with pytest.raises(P.StudyLengthError, match="manhattan found an optimal length of 33"):
        P.study.check_lengths(inst, [{**rows[0], "length": 33}, rows[1]], users={"mine"})
    # Without a published optimum the shortest trusted search is the reference, named.
    free = P.study.Instance("file", "a", 3, 3, inst.start, inst.goal)
    assert P.study.check_lengths(free, rows, users={"mine"})[0]["against"] == "manhattan found"
    study = P.study.Study(["manhattan", "mine"], [inst], rows=[dict(r) for r in rows])
    said = []
    P.study.record_longer(study, longer, said.append)
    P.study.record_longer(study, longer, said.append)  # the second longer path is counted, not said again
    P.study.mark_inadmissible(study, study.rows)
    assert len(said) == 1 and said[0].startswith("fastsnake: warning: heuristic 'mine' is not admissible")
    assert "assignment 3x3" in said[0] and "33 moves" in said[0] and "31" in said[0]
    assert [r["optimal"] for r in study.rows] == [True, False]
    entry = study.admissibility["mine"]
    assert not entry["admissible"] and entry["longer_path_count"] == 2 and entry["samples"] == 0
    summary = P.summarize(study)
    assert summary["heuristics"]["manhattan"]["optimal"] and not summary["heuristics"]["mine"]["optimal"]
    assert summary["admissibility"]["mine"] is entry
    marks = inadmissible_marks({"admissibility": study.admissibility}, study.rows)
    assert marks == ["mine is not admissible: 2 paths longer than the optimum (e.g. instance 3x3: 33 moves, "
                     "optimum 31); its 1 solutions are marked non-optimal (optimal=false)"]
    assert inadmissible_marks({}, rows) == []


def test_the_admissibility_samples_default_is_the_one_the_help_names(capsys):
    from fastsnake.puzzle.study import DEFAULT_ADMISSIBILITY_SAMPLES

    with pytest.raises(SystemExit):
        main(["puzzle", "compare", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--admissibility-samples N states of each board" in text.split("options:")[1]
    assert f"(default {DEFAULT_ADMISSIBILITY_SAMPLES}; 0: none)" in text
