"""Counts on the command line as people type them (1e6, 1_000_000), every size form an error offers
as an example, and registry warnings printed once per process."""

import argparse
import json

import pytest

import fastsnake
from fastsnake.cli import common, main
from fastsnake.sizes import SizeError, parse_size


@pytest.mark.parametrize("text, value", [("1e6", 10**6), ("1_000_000", 10**6), ("2E3", 2000), ("1.0e2", 100),
                                         ("17", 17), (" 3 ", 3), ("-4", -4)])
def test_a_whole_number_is_typed_many_ways(text, value):
    assert common.whole_number(text) == value


@pytest.mark.parametrize("text", ["1.5e0", "1e6.5", "1.5", "nan", "inf", "1e999999999", "ten", ""])
def test_what_is_not_a_whole_number_is_refused(text):
    with pytest.raises(argparse.ArgumentTypeError):
        common.whole_number(text)


def test_a_sweep_takes_games_as_1e2_and_the_size_as_the_pair_its_errors_offer(capsys):
    assert main(["sweep", "--policy", "cycle", "--size", "(4, 6)", "--games", "1e2", "--max-moves", "1_000",
                 "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["games"], summary["rows"], summary["cols"], summary["max_moves"]) == (100, 4, 6, 1000)
    with pytest.raises(SystemExit) as stopped:
        main(["sweep", "--policy", "cycle", "--size", "4", "--games", "1.5e0"])
    assert stopped.value.code == 2
    assert "not a whole number" in capsys.readouterr().err


def test_every_example_a_size_error_offers_is_a_size():
    with pytest.raises(SizeError) as info:
        parse_size("ten")
    examples = ["10x12", "10", "(10, 12)"]
    assert str(info.value).endswith("(e.g. 10x12, 10 or (10, 12))")
    for text in examples:
        assert common.size_arg(1, 100)(text) == parse_size(common.size_text(text))


def test_a_policy_name_clash_is_reported_once_per_process(tmp_path, monkeypatch, capsys):
    from fastsnake.snake.policies import available, rediscover

    for package in ("clash_one", "clash_two"):
        info = tmp_path / f"{package}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 1.0\n")
        (info / "entry_points.txt").write_text(f"[fastsnake.policies]\nclashing = {package}:decide\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        for _ in range(3):
            rediscover()
            assert "clashing" in available()
        fastsnake.policies()
    finally:
        monkeypatch.undo()
        rediscover()
    assert capsys.readouterr().err.count("provides that name") == 1
