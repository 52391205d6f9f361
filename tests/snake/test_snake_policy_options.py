"""Policy options as declared data: checked by the registry, listed by the CLI and docs/snake.md.

docs/snake.md's options table is written from the declarations when the site is built
(`docs/hooks/declared.py`).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import fastsnake
from fastsnake.errors import InputError
from fastsnake.snake.board import GameConfig
from fastsnake.snake.policies import (
    OWN_DISTRIBUTION,
    BySize,
    EnginePolicy,
    Option,
    PolicyError,
    all_policies,
    get_policy,
    register_policy,
    unregister_policy,
)

ROOT = Path(__file__).resolve().parents[2]


def test_docs_list_the_declared_options():
    """docs/snake.md's options table is written from the declarations when the site is built
    (`docs/hooks/declared.py`, marker ``{{ snake.policy_options }}``): every option of every built-in
    policy is a row, with its rule, default and help."""
    import importlib.util

    assert "{{ snake.policy_options }}" in (ROOT / "docs" / "snake.md").read_text()
    spec = importlib.util.spec_from_file_location("declared_hook", ROOT / "docs" / "hooks" / "declared.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    rows = [[c.strip() for c in row.strip("|").split(" | ")] for row in hook.expand("{{ snake.policy_options }}")
            .replace("\\|", "/").splitlines()[2:]]
    listed, who = set(), None
    for row in rows:
        who = row[0] or who
        for name in re.findall(r"`([^`]+)`", who):
            listed.add((name, row[1].strip("`"), row[4]))
    declared = {(p.name, o.name, o.help.replace("|", "/").replace("*", "\\*")) for p in all_policies()
                if p.origin == OWN_DISTRIBUTION for o in p.options}
    assert listed == declared and declared


def test_json_listing_is_the_declaration():
    details = fastsnake.policies(details=True)
    for policy in all_policies():
        assert list(details[policy.name]["options"]) == policy.option_names
        for opt in policy.options:
            row = details[policy.name]["options"][opt.name]
            assert (row["type"], row["low"], row["high"], row["help"]) == \
                (opt.type.__name__, opt.low, opt.high, opt.help)
            assert row["default"] == (None if isinstance(opt.default, BySize) else opt.default)


@pytest.mark.parametrize("policy,options,value", [
    ("grove", {"budget": "lots"}, "budget='lots'"),
    ("grove", {"detours": 65}, "detours=65"),
    ("grove", {"ties": 1.0}, "ties=1.0"),
    ("grove", {"ties": True}, "ties=True"),
    ("cell", {"budget": 5}, "takes no option 'budget'"),
    ("cell", {"research_every": 0}, "research_every=0"),
    ("greedy-dynamic", {"budget": 0}, "budget=0"),
    ("cycle", {"cycle": "spiral"}, "cycle='spiral'"),
    ("thesis-shortcut-faithful", {"room": "lengthy"}, "room='lengthy'"),
    ("greedy", {"speed": 3}, "takes no option 'speed'"),
])
def test_bad_options_name_the_policy_and_the_value(policy, options, value):
    with pytest.raises(PolicyError) as caught:
        get_policy(policy).params(GameConfig(6, 6), options)
    message = str(caught.value)
    assert f"policy {policy!r}" in message and value in message and "\n" not in message and "--" not in message


def test_cli_refuses_a_bad_option_in_one_line():
    proc = subprocess.run([sys.executable, "-m", "fastsnake", "play", "--policy", "grove", "--size", "6",
                           "--opt", "ties=9"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr == "fastsnake: error: policy 'grove': ties='9' is not a count in 0..2\n"


def test_defaults_by_board_size():
    grove, dynamic = get_policy("grove"), get_policy("greedy-dynamic")
    small, big = GameConfig(14, 18), GameConfig(16, 16)  # 63 and 64 blocks of 2x2
    assert fastsnake.snake.policies.resolve_options(grove, {}, small)["detours"] == 8
    assert fastsnake.snake.policies.resolve_options(grove, {}, big)["detours"] == 32
    assert fastsnake.snake.policies.resolve_options(grove, {"detours": "5"}, big)["detours"] == 5
    assert dynamic.params(GameConfig(4, 4))[0] == 16 * 16 and dynamic.params(GameConfig(10, 10))[0] == 1600
    # A default may follow the options before it: snug chain legs are off when the branch and bound is.
    assert fastsnake.snake.policies.resolve_options(grove, {"budget": 0}, big)["snug_chain"] == 0


def test_resolved_options_give_the_same_params_again():
    """A sweep records the resolved options; replaying with them must pack the same vector."""
    for name in ("grove", "cell", "greedy-dynamic", "thesis-shortcut-faithful"):
        policy = get_policy(name)
        for config in (GameConfig(10, 10), GameConfig(20, 20)):
            for given in ({}, {"research_every": 2}, {"budget": 7 if name == "greedy-dynamic" else 0}):
                given = {k: v for k, v in given.items() if k in policy.option_names}
                values = fastsnake.snake.policies.resolve_options(policy, given, config)
                assert (policy.params(config, values) == policy.params(config, given)).all()


def test_a_user_engine_policy_declares_options_the_same_way():
    grove = get_policy("grove")
    mine = EnginePolicy(name="options-example", summary="grove with a knob", sweep_kernel=grove.sweep_kernel,
                        play_kernel=grove.play_kernel, make_params=lambda config, values: values["knob"],
                        options=(Option("knob", int, BySize(lambda config, values, given: config.rows, "the rows"),
                                        "a knob", low=1, high=9),))
    register_policy("options-example", mine)
    try:
        assert fastsnake.policies(details=True)["options-example"]["options"]["knob"]["default_by_size"] == "the rows"
        assert get_policy("options-example").params(GameConfig(6, 6)) == 6
        with pytest.raises(InputError, match=r"policy 'options-example': knob=10 is not a count in 1\.\.9"):
            fastsnake.sweep("options-example", 6, 1, knob=10)
    finally:
        unregister_policy("options-example")


def test_a_declaration_must_be_option_rows():
    grove = get_policy("grove")
    bad = EnginePolicy(name="bad-options", summary="", sweep_kernel=grove.sweep_kernel, play_kernel=grove.play_kernel,
                       make_params=grove.make_params, options=({"detours": 8},))
    with pytest.raises(PolicyError, match="is not a fastsnake.snake.policies.Option"):
        register_policy("bad-options", bad)


def test_policies_help_lists_every_option():
    proc = subprocess.run([sys.executable, "-m", "fastsnake", "policies", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0
    for policy in all_policies():
        for opt in policy.options:
            assert re.search(rf"^    {opt.name}: {re.escape(opt.rule_text())}, ", proc.stdout, re.M), opt.name


def _legacy_defaults(policy: str) -> dict:
    """What a file written before options were declared as data recorded for `policy`'s defaults
    that depend on the board: -1 (the old marker)."""
    return {opt.name: -1 for opt in get_policy(policy).options if isinstance(opt.default, BySize)}


def test_files_from_before_the_declarations_still_replay(tmp_path):
    """Old grove replay and sweep files recorded board-dependent defaults as -1; they read as the
    default (the same game), while -1 given today is still refused."""
    from fastsnake.snake.replay import load_replay, play_game, replay_from_sweep, replay_problem, save_replay
    from fastsnake.snake.sweep import run_sweep, write_parquet

    legacy = _legacy_defaults("grove")
    assert legacy, "grove declares defaults by board size"
    config = GameConfig(6, 6, 1, "blocked")
    with pytest.raises(PolicyError, match="grove"):
        play_game("grove", config, 3, 0, legacy)

    fresh, _ = play_game("grove", config, 3, 0)
    fresh.options = legacy
    path = tmp_path / "old.npz"
    save_replay(fresh, path)
    loaded = load_replay(path)
    assert replay_problem(loaded) is None
    assert loaded.options == {}

    result = run_sweep("grove", config, 4, seed=3)
    result.options = legacy
    sweep = tmp_path / "old.parquet"
    write_parquet(result, sweep)
    replay, _ = replay_from_sweep(sweep, "2")
    again, _ = play_game("grove", config, 3, 2)
    assert np.array_equal(replay.moves, again.moves) and np.array_equal(replay.apples, again.apples)
