"""The report's scaling fit (`fastsnake.snake.growth`, issue 55): it pools only sections of one
policy with the same options and rules, counts a run given twice once, gives no interval from two
boards, and says each of these in the notes `fastsnake report --json` carries."""

import json
from types import SimpleNamespace

import pytest

from fastsnake.cli import main
from fastsnake.snake import report as rp
from fastsnake.snake.growth import report_scaling


def _section(policy, n, moves, games=100, speed=None, **params):
    summary = {"policy": policy, "rows": n, "cols": n, "games": games, "wins": games, "moves_mean": moves,
               "moves_mean_ci95": [moves - 1, moves + 1], "games_per_cpu_second": speed}
    return {"policy": policy, "summary": summary}, SimpleNamespace(source=SimpleNamespace(params=dict(
        {"policy": policy, "rows": n, "cols": n, "tail_rule": "follow", "start_length": 3, "seed": 0}, **params)))


def _scaling(*pairs):
    sections, items = zip(*pairs, strict=True)
    return rp._scaling(list(sections), list(items))


def test_the_issues_case_two_option_sets_and_a_duplicated_run_give_no_interval_and_say_why():
    # strongest, detours 8 on 10x10 twice (the same run), detours 4 on 12x12: the old fit drew one
    # curve through all three, "cells^1.76 [1.76, 1.76]", a zero-width interval.
    view = _scaling(_section("strongest", 10, 400.0, options={"detours": 8}),
                    _section("strongest", 10, 400.0, options={"detours": 8}),
                    _section("strongest", 12, 550.0, options={"detours": 4}))
    curves = {c["label"]: c for c in view["policies"]}
    assert sorted(curves) == ["strongest (detours=4)", "strongest (detours=8)"]
    assert all(c["moves_fit"] is None and len(c["cells"]) == 1 for c in curves.values())  # one board each: no fit
    assert curves["strongest (detours=8)"]["games"] == [100]  # counted once
    notes = " | ".join(view["notes"])
    assert "strongest was played under 2 different options" in notes
    assert "strongest (detours=8) on 10x10: the same games (one seed) appear 2 times: counted once" in notes


def test_two_boards_give_an_exponent_but_no_interval_even_with_a_run_counted_twice():
    view = _scaling(_section("cycle", 6, 100.0), _section("cycle", 6, 100.0), _section("cycle", 8, 180.0))
    (curve,) = view["policies"]
    assert curve["cells"] == [36, 64] and curve["games"] == [100, 100]
    fit = curve["moves_fit"]
    assert fit["exponent"] == pytest.approx(1.0216, abs=1e-3) and fit["exponent_ci95"] is None and fit["sizes"] == 2
    assert any("over 2 boards: no 95 % interval" in n for n in view["notes"])


def test_three_boards_of_one_condition_give_an_interval_and_no_note():
    view = _scaling(_section("cycle", 6, 100.0), _section("cycle", 8, 170.0), _section("cycle", 10, 290.0),
                    _section("greedy", 6, 40.0, options={"x": 1}), _section("greedy", 8, 60.0, options={"x": 1}),
                    _section("greedy", 10, 75.0, options={"x": 1}))
    assert [c["label"] for c in view["policies"]] == ["cycle", "greedy"]  # one condition each: the plain name
    ci = view["policies"][0]["moves_fit"]["exponent_ci95"]
    assert ci is not None and ci[0] < view["policies"][0]["moves_fit"]["exponent"] < ci[1]
    assert view["notes"] == []


def test_distinct_runs_on_one_board_are_one_point_their_game_weighted_mean():
    view = _scaling(_section("cycle", 6, 100.0, games=100, speed=1000.0, seed=1),
                    _section("cycle", 6, 130.0, games=300, speed=500.0, seed=2), _section("cycle", 8, 180.0))
    (curve,) = view["policies"]
    assert curve["moves_mean"][0] == pytest.approx(122.5) and curve["games"][0] == 400
    assert curve["games_per_cpu_second"][0] == pytest.approx(400 / (100 / 1000 + 300 / 500))
    assert curve["moves_mean_ci95"][0] is None  # a pooled point claims no interval it does not have
    assert any("2 runs pooled into one point" in n for n in view["notes"])


def test_other_rules_are_other_curves():
    view = report_scaling([
        {"policy": "cycle", "tail_rule": t, "start_length": 3, "summary": {
            "rows": n, "cols": n, "games": 10, "moves_mean": float(n * n)}} for t in ("follow", "blocked")
        for n in (6, 8)])
    assert sorted(c["label"] for c in view["policies"]) == ["cycle (tail_rule blocked)", "cycle (tail_rule follow)"]


def test_report_json_carries_the_scaling_notes(tmp_path, capsys):
    files = []
    for name, size, more in (("a6", "6", []), ("b8", "8", ["--cycle", "random"])):
        files.append(str(tmp_path / f"{name}.parquet"))
        assert main(["sweep", "--policy", "cycle", "--size", size, "--games", "12", "--out", files[-1], *more]) == 0
    copy = tmp_path / "a6-copy.parquet"
    copy.write_bytes((tmp_path / "a6.parquet").read_bytes())
    capsys.readouterr()
    assert main(["report", files[0], str(copy), files[1], "--out", str(tmp_path / "r.html"), "--json",
                 "--worst", "0", "--best", "0", "--random", "0"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert any("cycle was played under 2 different options" in n for n in notes)
    assert any("the same games (one seed) appear 2 times: counted once" in n for n in notes)


def test_a_move_cap_of_its_own_is_another_curve_the_default_cap_is_not():
    # The default cap is cells squared: it grows with the board and keeps one curve; a cap of 40 does not.
    view = report_scaling([
        {"policy": "cycle", "tail_rule": "follow", "start_length": 3, "max_moves": cap, "summary": {
            "rows": n, "cols": n, "games": 10, "moves_mean": float(n * n)}}
        for n, cap in ((6, 1296), (8, 4096), (10, None), (6, 40), (8, 40))])
    curves = {c["label"]: c["cells"] for c in view["policies"]}
    assert curves == {"cycle (max_moves default)": [36, 64, 100], "cycle (max_moves 40)": [36, 64]}
