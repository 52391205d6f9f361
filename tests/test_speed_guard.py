"""The speed guard's verdicts (bench/speed/guard.py), on made-up measurements: nothing here is timed."""

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

GUARD_FILE = Path(__file__).resolve().parents[1] / "bench" / "speed" / "guard.py"


@pytest.fixture(scope="module")
def guard():
    spec = importlib.util.spec_from_file_location("speed_guard", GUARD_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_path_below_half_its_reference_fails_with_its_figures(guard):
    rows, failures = guard.verdicts({"env step grid": 0.049, "engine cycle 10x10": 0.9},
                                    {"env step grid": 0.1, "engine cycle 10x10": 1.0})
    assert [r["status"] for r in rows] == ["FAIL", "ok"]
    assert len(failures) == 1
    assert "env step grid" in failures[0] and "0.049" in failures[0] and "0.1" in failures[0]


def test_half_its_reference_passes_and_a_faster_path_too(guard):
    rows, failures = guard.verdicts({"a": 0.5, "b": 7.0}, {"a": 1.0, "b": 1.0})
    assert failures == [] and [r["status"] for r in rows] == ["ok", "ok"]


def test_a_skipped_path_is_no_failure_and_says_why(guard):
    rows, failures = guard.verdicts({"sb3 step grid": "no module named torch"}, {"sb3 step grid": 0.02})
    assert failures == [] and rows[0]["status"] == "skipped: no module named torch"


def test_a_path_without_a_reference_fails(guard):
    _, failures = guard.verdicts({"policy new 10x10": 3.0}, {})
    assert len(failures) == 1 and "policy new 10x10" in failures[0] and "no reference" in failures[0]


def test_the_reference_file_covers_every_path_the_guard_times(guard):
    record = json.loads(guard.REFERENCE.read_text())
    names = guard.path_names()
    assert len(names) == len(set(names))
    assert "env step grid" in names and "engine cycle 10x10" in names
    assert {f"policy {p} 10x10" for p in guard.builtin_policies()} <= set(names)
    missing = set(names) - set(record["ratios"])
    assert not missing, f"reference.json lacks {sorted(missing)}: re-record it (CONTRIBUTING.md, 'Speed guard')"
    assert all(ratio is None or ratio > 0 for ratio in record["ratios"].values())
    recorded = [name for name in names if record["ratios"][name] is not None]
    assert "env step grid" in recorded and "engine cycle 10x10" in recorded
    assert record["machine"] and record["date"] and record["command"]


def test_the_exit_status_and_lines_of_a_failing_run(guard, monkeypatch, capsys, tmp_path):
    reference = tmp_path / "reference.json"
    reference.write_text(json.dumps({"ratios": {"engine cycle 10x10": 2.0, "env step grid": 0.1}}))
    fake = {"engine cycle 10x10": {"ratio": 0.9, "rate": 9e8, "unit": "moves", "baseline": 1e9, "cpu": 0.1},
            "env step grid": {"ratio": 0.08, "rate": 8e7, "unit": "env steps", "baseline": 1e9, "cpu": 0.1}}
    monkeypatch.setattr(guard, "measure", lambda names, rounds, work_dir, log: {n: fake[n] for n in names})
    assert guard.main(["--only", "engine,env step", "--reference", str(reference)]) == 1
    out, err = capsys.readouterr()
    assert "machine:" in out and "engine cycle 10x10" in out and "env step grid" in out
    fails = [line for line in err.splitlines() if line.startswith("guard: FAIL")]
    assert len(fails) == 1 and "engine cycle 10x10" in fails[0] and "0.9" in fails[0] and "2" in fails[0]
    monkeypatch.setattr(guard, "measure", lambda names, rounds, work_dir, log: {
        n: dict(fake[n], ratio=fake[n]["ratio"] * 3) for n in names})
    assert guard.main(["--only", "engine,env step", "--reference", str(reference)]) == 0


def test_a_path_that_could_not_run_fails(guard):
    rows, failures = guard.verdicts({"tour knight": guard.ERROR + "RuntimeError: no tour"}, {"tour knight": 0.02})
    assert rows[0]["status"] == "FAIL" and len(failures) == 1 and "tour knight" in failures[0]


def test_a_path_listed_but_not_recorded_yet_is_shown_and_does_not_fail(guard):
    rows, failures = guard.verdicts({"report 1e6 games": 0.3}, {"report 1e6 games": None})
    assert failures == [] and rows[0]["status"] == "not recorded yet" and rows[0]["ratio"] == 0.3


def test_repeated_runs_keep_each_paths_median_run(guard):
    runs = [{"a": {"ratio": r, "rate": 10 * r}, "b": "skipped: no torch", "c": f} for r, f in
            [(3.0, {"ratio": 1.0}), (1.0, "error: boom"), (2.0, {"ratio": 5.0}), (9.0, {"ratio": 4.0})]]
    merged = guard.median_results(runs)
    assert merged["a"] == {"ratio": 2.0, "rate": 20.0}  # 1, 2, 3, 9: the lower middle
    assert merged["b"] == "skipped: no torch"  # never ran: its reason
    assert merged["c"] == {"ratio": 4.0}  # the runs that ran: 1, 4, 5


def test_only_matching_no_path_is_an_error_not_a_pass(guard, monkeypatch, capsys):
    # e.g. a typo, or a policy that is not registered: 0 paths timed.
    monkeypatch.setattr(guard, "measure", lambda *a, **k: pytest.fail("nothing should be timed"))
    assert guard.main(["--only", "policy no-such-policy 10x10"]) == 2
    err = capsys.readouterr().err
    assert "matches no path" in err and "engine cycle 10x10" in err


def test_update_only_one_path_changes_that_ratio_and_nothing_else(guard, monkeypatch, capsys, tmp_path):
    # A new policy's reference is written by a command: the file's provenance, its notes and every
    # other ratio stay as they were; the path gets provenance of its own; the run passes (exit 0).
    reference = tmp_path / "reference.json"
    before = json.loads(guard.REFERENCE.read_text())
    before["ratios"].pop("policy phc 10x10")
    reference.write_text(json.dumps(before, indent=2) + "\n")
    fake = {"ratio": 1.234567e-4, "rate": 5e4, "unit": "games", "baseline": 4e8, "cpu": 0.2}
    monkeypatch.setattr(guard, "measure", lambda names, rounds, work_dir, log: {n: dict(fake) for n in names})
    assert guard.main(["--update", "--only", "policy phc 10x10", "--reference", str(reference)]) == 0
    after = json.loads(reference.read_text())
    assert after["ratios"].pop("policy phc 10x10") == 1.235e-4
    assert after["ratios"] == before["ratios"]
    # Paths an earlier `--update --only` recorded (a policy added since the last full run) keep theirs.
    paths, earlier = after.pop("paths"), {k: v for k, v in before.pop("paths", {}).items() if k != "policy phc 10x10"}
    mine = paths.pop("policy phc 10x10")
    assert paths == earlier
    assert "--only policy phc 10x10" in mine["command"] and mine["machine"] and mine["date"]
    assert {k: v for k, v in after.items() if k != "ratios"} == {k: v for k, v in before.items() if k != "ratios"}
    assert "kept" in after and "FAIL" not in capsys.readouterr().err


def test_the_documented_update_for_a_new_policy_leaves_these_tests_green(guard, monkeypatch, capsys, tmp_path):
    """CONTRIBUTING's step for a new policy, `guard.py --update --only 'policy NAME 10x10'`, on a copy of
    the guard and its reference (a built-in's ratio removed stands for the new policy's; the timing is
    made up), twice (two policies added one after the other); then the tests of this file that read the
    reference run on that copy: the step leaves them green."""
    shutil.copytree(GUARD_FILE.parent, tmp_path / "speed", ignore=shutil.ignore_patterns("__pycache__"))
    spec = importlib.util.spec_from_file_location("speed_guard_copy", tmp_path / "speed" / GUARD_FILE.name)
    copy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(copy)
    assert copy.REFERENCE == tmp_path / "speed" / "reference.json"
    fake = {"ratio": 2.5e-4, "rate": 5e4, "unit": "games", "baseline": 4e8, "cpu": 0.2}
    monkeypatch.setattr(copy, "measure", lambda names, rounds, work_dir, log: {n: dict(fake) for n in names})
    for name in ("policy greedy 10x10", "policy cycle 10x10"):
        record = json.loads(copy.REFERENCE.read_text())
        record["ratios"].pop(name)
        copy.REFERENCE.write_text(json.dumps(record, indent=2) + "\n")
        assert copy.main(["--update", "--only", name, "--rounds", "1"]) == 0  # the documented command
    assert set(json.loads(copy.REFERENCE.read_text())["paths"]) >= {"policy greedy 10x10", "policy cycle 10x10"}
    test_the_reference_file_covers_every_path_the_guard_times(copy)
    (tmp_path / "again").mkdir()
    test_update_only_one_path_changes_that_ratio_and_nothing_else(copy, monkeypatch, capsys, tmp_path / "again")


def test_update_of_every_path_rewrites_the_provenance(guard, monkeypatch, tmp_path):
    reference = tmp_path / "reference.json"
    reference.write_text(json.dumps({"command": "old", "date": "old", "ratios": {}}))
    fake = {"ratio": 0.5, "rate": 5e4, "unit": "games", "baseline": 1e5, "cpu": 0.2}
    monkeypatch.setattr(guard, "measure", lambda names, rounds, work_dir, log: {n: dict(fake) for n in names})
    monkeypatch.setattr(guard, "path_names", lambda: ["engine cycle 10x10", "env step grid"])
    assert guard.main(["--update", "--reference", str(reference)]) == 0
    after = json.loads(reference.read_text())
    assert after["command"] == "python bench/speed/guard.py --update" and after["date"] != "old"
    assert after["ratios"] == {"engine cycle 10x10": 0.5, "env step grid": 0.5} and "paths" not in after


def test_the_guard_times_every_registered_builtin_policy(guard):
    # The guard's paths read the registry; that each has a reference ratio is
    # tests/snake/test_snake_policy_registry.py's to check.
    from fastsnake.snake.policies import builtin_names

    assert guard.builtin_policies() == builtin_names() and "phc" in builtin_names()
    assert guard.REFERENCE == Path(__file__).resolve().parents[1] / "bench" / "speed" / "reference.json"
