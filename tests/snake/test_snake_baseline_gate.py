"""The regression gate of `compare --baseline-from` (issue 55): it exits 2 unless every policy of
the run was compared with its baseline on the same conditions and games (`--allow-partial`
accepts less, saying how much), a baseline carries a checksum, a sample of its games is re-played
from their seeds when the same code saved it, and malformed metadata is one line, exit 2. The
baseline rule (issue 63): rows that contradict the file's summaries or the game's rules are refused;
a policy whose play changed (its code, or a knob its fingerprint cannot see) is judged, exit 4 when
worse, with a line saying so and never a word to re-save the baseline."""

import json

import numpy as np
import pyarrow.parquet as pq
import pytest
from faults import BASELINE_TAMPERS, _all_summaries, _edit_baseline, tamper_baseline

from fastsnake.cli import main
from fastsnake.snake import api, benchmark
from fastsnake.study.gate import coverage, gate_problem, pair_runs

ARGS = ("compare", "--size", "6", "--games", "120", "--policies", "cycle,greedy")


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fastsnake: error: ") and "Traceback" not in err, err
    return lines[0]


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A baseline of cycle and greedy, 120 games each on 6x6, and the run that saved it."""
    folder = tmp_path_factory.mktemp("baselines")
    results = api.compare_runs(["cycle", "greedy"], 6, 120)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(benchmark.BASELINES_ENV, str(folder))
        path = benchmark.save_baseline(results, "v1")
    return path, results


# -- the decision, problem-agnostic ---------------------------------------------------------------

def test_the_gate_names_every_key_not_compared_and_why():
    run = {("a", 6): {"seed": 0, "cap": 9}, ("b", 6): {"seed": 0, "cap": 9}, ("c", 6): {"seed": 0, "cap": 9},
           ("d", 6): {"seed": 0, "cap": 9}}
    base = {("a", 6): {"seed": 0, "cap": 9}, ("b", 6): {"seed": 1, "cap": 9}, ("d", 6): {"seed": 0, "cap": 9}}
    ids = {k: np.arange(10) for k in run}
    saved_ids = {("a", 6): np.arange(10), ("b", 6): np.arange(10), ("d", 6): np.arange(10) + 100}
    pairings = pair_runs(run, base, ("seed", "cap"), ids, saved_ids, label=lambda k: f"{k[0]} {k[1]}", noun="game")
    by = {p.key[0]: p for p in pairings}
    assert by["a"].compared and not by["a"].partial and by["a"].shared == 10
    assert by["b"].reasons == ("seed differs (run 0, baseline 1)",)
    assert by["c"].reasons[0].startswith("not in the baseline (it holds a 6, b 6, d 6)")
    assert by["d"].reasons == ("no game in common (run 10, baseline 10)",)
    problem = gate_problem(pairings, words=("policy", "game"))
    assert "b 6: seed differs" in problem and "c 6: not in the baseline" in problem and "d 6: no game" in problem
    assert "\n" not in problem
    # --allow-partial accepts it (a was compared); nothing compared is refused even so.
    assert gate_problem(pairings, allow_partial=True) is None
    assert coverage(pairings) == {"keys": 1, "keys_total": 4, "instances": 10, "instances_total": 40}
    none = [p for p in pairings if p.key[0] != "a"]
    assert gate_problem(none, allow_partial=True).startswith("no algorithm of the run could be compared")
    # A baseline holding only some of the run's games: partial.
    cut = pair_runs({("a", 6): {}}, {("a", 6): {}}, (), {("a", 6): np.arange(10)}, {("a", 6): np.arange(5)})
    assert cut[0].partial and "only 5 of the run's 10 instances" in gate_problem(cut)
    assert gate_problem(cut, allow_partial=True) is None


# -- 1. conditions and shared games ----------------------------------------------------------------

def test_a_run_not_wholly_in_the_baseline_exits_2_unless_allowed(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv(benchmark.BASELINES_ENV, str(tmp_path))
    code, _, _ = _run(capsys, "compare", "--size", "6", "--games", "120", "--policies", "cycle", "--save-baseline",
                      "c")
    assert code == 0
    for extra, said in ((("--size", "8"), "cycle 8x8: not in the baseline (it holds cycle 6x6)"),
                        (("--seed", "3"), "cycle 6x6: seed differs (run 3, baseline 0)"),
                        (("--tail", "blocked"), "tail_rule differs (run 'blocked', baseline 'follow')"),
                        (("--max-moves", "500"), "max_moves differs (run 500, baseline 1296)")):
        code, out, err = _run(capsys, "compare", "--games", "120", "--policies", "cycle", "--size", "6", *extra,
                              "--baseline-from", "c")
        line = _one_error_line(err)
        assert code == 2 and said in line and "no policy is significantly worse" not in out, (extra, line)
    # greedy is not in the baseline: refused, then accepted with --allow-partial, saying how much.
    code, out, err = _run(capsys, *ARGS, "--baseline-from", "c")
    line = _one_error_line(err)
    assert code == 2 and "greedy 6x6: not in the baseline" in line and "(--allow-partial)" in line
    code, out, err = _run(capsys, *ARGS, "--baseline-from", "c", "--allow-partial")
    assert code == 0 and "compared 1 of 2 policies, 120 of 240 games" in out
    assert "not compared: greedy 6x6 (not in the baseline" in out
    # More games than the baseline holds: partial.
    code, out, err = _run(capsys, "compare", "--size", "6", "--games", "200", "--policies", "cycle",
                          "--baseline-from", "c")
    assert code == 2 and "only 120 of the run's 200 games are in the baseline" in _one_error_line(err)
    code, out, _ = _run(capsys, "compare", "--size", "6", "--games", "200", "--policies", "cycle",
                        "--baseline-from", "c", "--allow-partial")
    assert code == 0 and "compared 1 of 1 policies, 120 of 200 games" in out
    code, _, err = _run(capsys, "compare", "--size", "6", "--games", "10", "--policies", "cycle", "--allow-partial")
    assert code == 2 and "name a baseline" in _one_error_line(err)
    # Fewer games than the baseline holds: compared, saying how many of its games were not played;
    # --require-all refuses that.
    fewer = ("compare", "--size", "6", "--games", "60", "--policies", "cycle", "--baseline-from", "c")
    code, out, _ = _run(capsys, *fewer)
    assert code == 0 and "60 of the baseline's 120 games not played" in out
    code, _, err = _run(capsys, *fewer, "--require-all")
    assert code == 2 and "60 of its 120 games not played" in _one_error_line(err) and "--require-all" in err


def test_the_library_takes_allow_partial(saved, tmp_path, monkeypatch):
    path, _ = saved
    with pytest.raises(benchmark.BaselineError, match="only 120 of the run's 150 games"):
        api.compare(["cycle"], 6, 150, baseline_from=path)
    row = api.compare(["cycle"], 6, 150, baseline_from=path, allow_partial=True).to_pylist()[0]
    assert json.loads(row["baseline_check"])["games"] == 120


# -- 2. checksum, old files ------------------------------------------------------------------------

def test_a_baseline_changed_after_it_was_saved_is_refused(saved, tmp_path, capsys):
    path, _ = saved
    changed = _edit_baseline(path, tmp_path / "changed.parquet",
                             change_table=lambda t: t.slice(0, len(t)), resign=False)
    assert benchmark.read_baseline(str(changed))[0]["checksum"].startswith("blake2b:")  # untouched: fine
    for kind in ("moves_plus_100", "outcomes_died", "other_seed"):
        out = tamper_baseline(path, tmp_path / f"{kind}.parquet", kind, resign=False)
        code, _, err = _run(capsys, *ARGS, "--baseline-from", str(out))
        assert code == 2 and "its checksum does not match its rows and metadata" in _one_error_line(err)
    # The format before checksums is refused with a word to re-save it.
    old = _edit_baseline(path, tmp_path / "old.parquet",
                         change_meta=lambda m: (m.update(format="fastsnake-baseline/1"), m.pop("checksum")),
                         resign=False)
    code, _, err = _run(capsys, *ARGS, "--baseline-from", str(old))
    line = _one_error_line(err)
    assert code == 2 and "saved by an older fastsnake" in line and "--save-baseline NAME" in line


# -- 3. the baseline rule: refused only for what no change of the policy explains -------------------

def test_a_forged_baseline_is_refused_by_its_own_summary_and_a_consistent_one_is_judged(saved, tmp_path, capsys):
    path, results = saved
    # Rows edited and re-signed, the summaries left: the rows contradict the file's own summary.
    forged = tamper_baseline(path, tmp_path / "forged.parquet", "moves_plus_100")
    with pytest.raises(benchmark.BaselineError, match=r"cycle 6x6: its rows hold [\d,]+ total moves where its "
                                                     r"summary counts [\d,]+"):
        benchmark.check_baseline(results, str(forged))
    late = _edit_baseline(path, tmp_path / "late.parquet", change_table=lambda t: _moves_from(t, 60, 100))
    with pytest.raises(benchmark.BaselineError, match=r"cycle 6x6: its rows hold .* total moves"):
        benchmark.check_baseline(api.compare_runs(["cycle", "greedy"], 6, 60), str(late))
    # Rows and summaries edited alike: a claim no file check can refute. Today's games contradict it, so
    # the play changed since (or the claim is false): judged, never a word to re-save it.
    consistent = _edit_baseline(path, tmp_path / "consistent.parquet", change_table=lambda t: _moves_from(t, 0, 100),
                                change_meta=_all_summaries(lambda s: s.update(total_moves=s["total_moves"]
                                                                              + 100 * s["games"])))
    code, out, err = _run(capsys, *ARGS, "--baseline-from", str(consistent))
    assert code == 0, err
    assert "changed: cycle 6x6: its play changed since the baseline was saved" in out and "fingerprint" in out
    assert "re-save" not in out + err
    first = api.compare_runs(["cycle", "greedy"], 6, 60)
    verdict = benchmark.check_baseline(first, path)
    assert verdict["replayed"]["cycle 6x6"] and len(verdict["replayed"]["greedy 6x6"]) == 3
    assert verdict["not_replayed"] == [] and verdict["changed"] == []


def _moves_from(table, first, add):
    from faults import _column_set

    moves = table.column("moves").to_numpy().copy()
    moves[table.column("game").to_numpy() >= first] += add
    return _column_set(table, "moves", moves)


def test_outcomes_the_rules_forbid_are_refused(saved, tmp_path, capsys):
    # greedy "won" every game without filling the board: no policy can play that, whatever its code.
    path, _ = saved
    greedy_won = _edit_baseline(
        path, tmp_path / "older.parquet",
        change_table=lambda t: _column_set_where(t, "outcome", 1, "greedy"),
        change_meta=lambda m: [s.update(code="blake2b:older") for s in m["summaries"]])
    code, _, err = _run(capsys, *ARGS, "--baseline-from", str(greedy_won))
    line = _one_error_line(err)
    assert code == 2 and "greedy 6x6: game 0 won without eating the 33 apples" in line and "rules forbid" in line


KNOB_POLICY = """
import os

import numpy as np


def _cycle(rows, cols):
    cells = []
    for r in range(rows):
        cs = range(1, cols) if r % 2 == 0 else range(cols - 1, 0, -1)
        cells += [r * cols + c for c in cs]
    return cells + [r * cols for r in range(rows - 1, -1, -1)]


def alloc(rows, cols):
    order = _cycle(rows, cols)
    nxt = np.zeros(rows * cols, np.int64)
    for k, c in enumerate(order):
        nxt[c] = order[(k + 1) % len(order)]
    return (np.array(order, np.int64), nxt)


def start_cycle(state, ws):
    return ws[0]


def decide(state, ws):
    if os.environ.get("GATE_KNOB") == "bad" or os.path.exists(os.path.join(os.path.dirname(__file__), "bad")):
        return 0  # up: into the wall or the body before long
    target = ws[1][state.head]
    for move in range(4):
        if state.neighbours[state.head, move] == target:
            return move
    return 0
"""


@pytest.fixture
def knob(tmp_path, monkeypatch):
    """A user's policy (a cycle follower, plain Python) whose quality is set outside its code: the
    environment variable GATE_KNOB or a file "bad" beside its module; baseline "k" saved while good."""
    import importlib
    import sys

    import fastsnake

    folder = tmp_path / "knob"
    folder.mkdir()
    (folder / "gate_knob_policy.py").write_text(KNOB_POLICY)
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.setenv(benchmark.BASELINES_ENV, str(tmp_path / "baselines"))
    monkeypatch.delenv("GATE_KNOB", raising=False)
    module = importlib.import_module("gate_knob_policy")
    fastsnake.register_policy("knob", fastsnake.Policy(module.decide, alloc=module.alloc,
                                                        start_cycle=module.start_cycle))
    yield folder
    sys.modules.pop("gate_knob_policy", None)


KNOB_ARGS = ("compare", "--size", "6", "--games", "24", "--policies", "knob")


def test_a_policy_made_worse_by_a_knob_outside_its_code_exits_4(knob, capsys, monkeypatch):
    code, _, err = _run(capsys, *KNOB_ARGS, "--save-baseline", "k")
    assert code == 0, err
    code, out, err = _run(capsys, *KNOB_ARGS, "--baseline-from", "k")  # unchanged: re-played, not worse
    assert code == 0 and "re-played from their seeds, as saved: knob 6x6" in out and "changed:" not in out
    for turn in ("env", "file"):
        if turn == "env":
            monkeypatch.setenv("GATE_KNOB", "bad")
        else:
            monkeypatch.delenv("GATE_KNOB")
            (knob / "bad").write_text("")
        code, out, err = _run(capsys, *KNOB_ARGS, "--baseline-from", "k")
        assert code == 4, (turn, err)
        assert "worse than baseline 'k': knob 6x6: win rate -100.00 points" in err
        assert "changed: knob 6x6: its play changed since the baseline was saved" in out
        assert "its code fingerprint is the baseline's" in out and "re-save" not in out + err


def test_a_policy_whose_code_changed_is_compared_not_replayed(knob, capsys):
    assert _run(capsys, *KNOB_ARGS, "--save-baseline", "k")[0] == 0
    source = knob / "gate_knob_policy.py"
    source.write_text(source.read_text().replace('== "bad"', '!= "good"'))  # bad unless told otherwise
    import importlib
    import sys

    import fastsnake

    module = importlib.reload(sys.modules["gate_knob_policy"])  # as the next process would import it
    fastsnake.register_policy("knob", fastsnake.Policy(module.decide, alloc=module.alloc,
                                                        start_cycle=module.start_cycle), replace_existing=True)
    code, out, err = _run(capsys, *KNOB_ARGS, "--baseline-from", "k")
    assert code == 4 and "knob 6x6: win rate -100.00 points" in err
    assert "not re-played (the code changed since the baseline was saved" in out
    assert "changed: knob 6x6: its play changed since the baseline was saved (24 of 24 games differ; its code " \
           "changed)" in out and "re-save" not in out + err


def _column_set_where(table, name, value, policy):
    from faults import _column_set

    values = table.column(name).to_numpy().copy()
    values[np.asarray(table.column("policy").to_pylist()) == policy] = value
    return _column_set(table, name, values)


# -- 4. malformed metadata -------------------------------------------------------------------------

@pytest.mark.parametrize("change, said", [
    (lambda m: m.update(summaries=5), "'summaries' is '5', not a list"),
    (lambda m: m["summaries"][0].pop("rows"), "summary 0 lacks 'rows'"),
    (lambda m: m["summaries"][1].update(seed="zero"), "summary 1: 'seed' is 'zero', not an int"),
    (lambda m: m["summaries"].__setitem__(0, [1, 2]), "summary 0 is a JSON list"),
    (lambda m: m.pop("checksum"), "it has no checksum"),
])
def test_malformed_metadata_is_one_line_exit_2(saved, tmp_path, capsys, change, said):
    path, _ = saved
    bad = _edit_baseline(path, tmp_path / "bad.parquet", change_meta=change, resign=False)
    code, _, err = _run(capsys, *ARGS, "--baseline-from", str(bad))
    assert code == 2 and said in _one_error_line(err)


def test_metadata_as_a_list_or_a_column_dropped_is_one_line_exit_2(saved, tmp_path, capsys):
    path, _ = saved
    table = pq.read_table(path)
    listed = table.replace_schema_metadata({benchmark.BASELINE_META_KEY: b'[{"format": "fastsnake-baseline/2"}]'})
    pq.write_table(listed, tmp_path / "list.parquet")
    code, _, err = _run(capsys, *ARGS, "--baseline-from", str(tmp_path / "list.parquet"))
    assert code == 2 and "is not a fastsnake baseline" in _one_error_line(err)
    pq.write_table(table.drop_columns(["moves"]), tmp_path / "nomoves.parquet")
    code, _, err = _run(capsys, *ARGS, "--baseline-from", str(tmp_path / "nomoves.parquet"))
    assert code == 2 and "it lacks the column 'moves'" in _one_error_line(err)
    with pytest.raises(benchmark.BaselineError, match="lacks the column 'moves'"):
        benchmark.read_baseline(str(tmp_path / "nomoves.parquet"))


# -- 6. the fault injector's tampered baselines ------------------------------------------------------

@pytest.mark.parametrize("kind", sorted(BASELINE_TAMPERS))
def test_every_tampered_baseline_is_refused(saved, tmp_path, kind):
    path, results = saved
    forged = tamper_baseline(path, tmp_path / f"{kind}.parquet", kind)
    with pytest.raises(benchmark.BaselineError) as err:
        benchmark.check_baseline(results, str(forged))
    assert "\n" not in str(err.value) and str(err.value).startswith(("baseline 'v1'", f"baseline {str(forged)!r}"))
    # Not re-signed: the checksum refuses it (a column of nulls is refused before it is read).
    said = r"has empty \(null\) values" if kind == "policy_null" else "checksum does not match"
    with pytest.raises(benchmark.BaselineError, match=said):
        benchmark.check_baseline(results, str(tamper_baseline(path, tmp_path / "plain.parquet", kind, resign=False)))


def test_the_code_fingerprint_follows_the_policys_sources(tmp_path, monkeypatch):
    import importlib
    import sys

    from fastsnake.snake.policies import register_policy, unregister_policy

    assert benchmark.code_fingerprint("cycle") != benchmark.code_fingerprint("greedy")
    assert benchmark.code_fingerprint("no-such-policy") is None
    mine = tmp_path / "gate_policy_mod.py"
    mine.write_text("def decide(state, ws):\n    return 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("gate_policy_mod")
    register_policy("gate-mine", module.decide)
    try:
        before = benchmark.code_fingerprint("gate-mine")
        mine.write_text("def decide(state, ws):\n    return 2\n")
        assert before is not None and benchmark.code_fingerprint("gate-mine") != before
        namespace = {}
        exec("def decide(state, ws):\n    return 1\n", namespace)  # typed into a REPL: no file
        register_policy("gate-mine", namespace["decide"], replace_existing=True)
        assert benchmark.code_fingerprint("gate-mine") is None
    finally:
        unregister_policy("gate-mine")
        sys.modules.pop("gate_policy_mod", None)
