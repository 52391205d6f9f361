"""The cell-tree agents (`cell`, `grove`) play the same games as the build they were refactored from.

Each case is a sweep (or one game through the play kernel with the fallback kernels of big
boards forced on a small one); its digest is a SHA-256 of every game's (outcome, moves, apples).
The expected digests are known answers: they were produced by the code before the cell-tree wing
became the `celltree` package (commit 804f1c4), and a restructuring must not change one game.
Settings: the agents table's (docs/agents.md): defaults, and grove's fast re-search setting.

Each agent's two kernels play the same games (`sweep_kernel`, `play_kernel`; sweep game i is the
game of seed ``game_seed(SEED, i)``), so every sweep digest is also checked through the play kernel,
game by game (the play kernels are compiled for the agents' other tests anyway: a few seconds).
cell's sweep digests are slow tests: nothing else in the quick suite compiles cell's sweep kernels
(about 30 CPU-s each, cold), and the quick suite checks the same digests through its play kernels.
"""

import hashlib

import numpy as np
import pytest

from fastsnake.snake.board import GameConfig
from fastsnake.snake.policies import get_policy
from fastsnake.snake.rng import game_seed_py
from fastsnake.snake.sweep import run_sweep

# grove's faster re-search setting for big sweeps (docs/agents.md).
FAST = {"research_every": 8, "research_detours": 32, "backoff": 4, "walk_rounds": 16}
SETTINGS = {"cell": ("cell", None), "grove": ("grove", None), "grove-fast": ("grove", FAST)}
SEED = 11


def _digest(outcome, moves, apples):
    rows_ = np.stack([np.asarray(outcome, np.int64), np.asarray(moves, np.int64), np.asarray(apples, np.int64)])
    return hashlib.sha256(np.ascontiguousarray(rows_.T).tobytes()).hexdigest()[:16]


def sweep_digest(setting, rows, cols, start_length, tail, games):
    name, options = SETTINGS[setting]
    result = run_sweep(name, GameConfig(rows, cols, start_length, tail), games, seed=SEED, threads=1, options=options)
    return _digest(result.outcome, result.moves, result.apples)


def apples_eaten(body0, moves, apples, cols):
    """How many of the game's apples the head reached, in order (re-walked in plain Python)."""
    drow, dcol = (-1, 0, 1, 0), (0, 1, 0, -1)
    head, eaten = int(body0[-1]), 0
    for move in moves.tolist():
        r, c = divmod(head, cols)
        head = (r + drow[move]) * cols + c + dcol[move]
        if eaten < len(apples) and head == apples[eaten]:
            eaten += 1
    return eaten


def played_sweep_digest(setting, rows, cols, start_length, tail, games):
    """`sweep_digest` of the same games played one by one through the play kernel."""
    name, options = SETTINGS[setting]
    config = GameConfig(rows, cols, start_length, tail)
    policy = get_policy(name)
    params = policy.params(config, options)
    cfg, nbr = config.arrays()
    records = []
    for game in range(games):
        outcome, body0, moves, apples, _cycle = policy.play_kernel(cfg, nbr, params,
                                                                   np.uint64(game_seed_py(SEED, game)))
        records.append((int(outcome), len(moves), apples_eaten(body0, moves, apples, cols)))
    return _digest(*zip(*records, strict=True))


# Parameter slots both agents share (cell's first four): the distance table, single-word bit masks;
# grove's fifth picks the row-mask outline test (0: the queue BFS, 1: walked rows, 2: suffix tables).
P_TABLE, P_BITS, P_ROWS = 2, 3, 4
FALLBACKS = {
    "queue": {P_TABLE: 0, P_BITS: 0},  # no table, no masks: Manhattan, the queue BFS
    "rows": {P_BITS: 0, P_ROWS: 1},
    "suffix": {P_BITS: 0, P_ROWS: 2},
    "suffix-no-table": {P_TABLE: 0, P_BITS: 0, P_ROWS: 2},
}


def play_digest(setting, fallback, rows, cols, start_length, tail, seeds):
    name, options = SETTINGS[setting]
    config = GameConfig(rows, cols, start_length, tail)
    policy = get_policy(name)
    params = policy.params(config, options)
    for slot, value in FALLBACKS[fallback].items():
        params[slot] = value
    cfg, nbr = config.arrays()
    h = hashlib.sha256()
    for seed in range(seeds):
        outcome, body0, moves, apples, _cycle = policy.play_kernel(cfg, nbr, params, np.uint64(game_seed_py(seed, 0)))
        for part in (np.int64(outcome), body0.astype(np.int64), moves.astype(np.int64), apples.astype(np.int64)):
            h.update(np.asarray(part).tobytes())
    return h.hexdigest()[:16]


SWEEPS = {
    # (setting, rows, cols, start length, tail, games): digest; boards from 20x20 on are slow tests
    ("cell", 10, 10, 1, "follow", 6): "e4bfc7ca85366021",
    ("cell", 10, 10, 1, "blocked", 6): "79b2588d58ede9c2",
    ("cell", 10, 10, 3, "follow", 6): "b8739025a3182363",
    ("cell", 10, 10, 3, "blocked", 6): "915c9c3048bbf8bd",
    ("cell", 12, 12, 1, "blocked", 3): "9c78efdad0f36017",
    ("cell", 12, 12, 3, "follow", 3): "9adf0a3faab0ce5d",
    ("cell", 16, 18, 1, "blocked", 1): "68b25c96b0c7f717",
    ("grove", 10, 10, 1, "follow", 6): "09fd24e87aabcc02",
    ("grove", 10, 10, 1, "blocked", 6): "fe61050a87f0f1e3",
    ("grove", 10, 10, 3, "follow", 6): "4f13945f37f3fda2",
    ("grove", 10, 10, 3, "blocked", 6): "92bb4f8f68a0be6b",
    ("grove", 12, 12, 1, "blocked", 3): "eb6a000b4e7ce187",
    ("grove", 12, 12, 3, "follow", 3): "4b043759aeeefdb2",
    ("grove", 16, 18, 1, "blocked", 1): "d7e0996ca2a58522",
    ("grove", 16, 18, 3, "follow", 1): "349135d1bc43bc47",
    ("grove-fast", 10, 10, 1, "follow", 6): "cbe3befd9b0b20d8",
    ("grove-fast", 10, 10, 1, "blocked", 6): "202e4b9f799fb420",
    ("grove-fast", 10, 10, 3, "follow", 6): "3cd75657bd4bcd00",
    ("grove-fast", 10, 10, 3, "blocked", 6): "8e0f43fec6f910c8",
    ("grove-fast", 12, 12, 1, "blocked", 3): "967bb17f0bb367b1",
    ("grove-fast", 16, 18, 1, "blocked", 1): "fa4d2d2ae523da7b",
    ("cell", 20, 20, 1, "blocked", 24): "1e25c340afc66f02",
    ("cell", 20, 20, 3, "follow", 24): "9b670871a27513ef",
    ("cell", 30, 30, 1, "blocked", 6): "ab5ddaca3e76ae8f",
    ("cell", 30, 30, 3, "follow", 6): "5ddacda7c115d50c",
    ("grove", 20, 20, 1, "blocked", 24): "191df39daffe30eb",
    ("grove", 20, 20, 3, "follow", 24): "bcbe8bad723d2768",
    ("grove", 30, 30, 1, "blocked", 6): "e59267c6c14a8631",
    ("grove", 30, 30, 3, "follow", 6): "f5adee185a145e17",
    ("grove-fast", 20, 20, 1, "blocked", 24): "a23dac6cdaec94ea",
    ("grove-fast", 20, 20, 3, "follow", 24): "d9f33200064d11a2",
    ("grove-fast", 30, 30, 1, "blocked", 6): "eff8ab04e332e26c",
    ("grove-fast", 30, 30, 3, "follow", 6): "a46529febe56c362",
}

PLAYED = {
    # (setting, fallback kernels, rows, cols, start length, tail, seeds): digest
    ("cell", "queue", 8, 10, 1, "follow", 3): "21e14c40f32bc5f1",
    ("cell", "queue", 10, 8, 3, "blocked", 3): "3dca52eb3c79bcc9",
    ("grove", "queue", 8, 10, 1, "blocked", 3): "0ae0971296db9f50",
    ("grove", "rows", 10, 8, 3, "follow", 3): "0864e8d7183a7693",
    ("grove", "suffix", 8, 10, 1, "blocked", 3): "76b7b0b53d8f2b79",
    ("grove", "suffix-no-table", 10, 8, 3, "follow", 3): "003f9147e0de9486",
    ("grove-fast", "suffix", 10, 10, 1, "follow", 3): "ad4797f455a40cb3",
}


def _sweep_cases(slow_settings=()):
    for case in SWEEPS:
        marks = [pytest.mark.slow] if case[1] >= 20 or case[0] in slow_settings else []
        yield pytest.param(case, marks=marks, id="-".join(map(str, case)))


# cell's sweep kernel (tens of CPU-s to compile cold) is compiled by no
# other quick test: its sweep digests are slow tests, and the quick suite checks the same digests
# through its play kernels (`test_same_games_through_the_play_kernel`, compiled for cell's other tests).
@pytest.mark.parametrize("case", list(_sweep_cases(slow_settings=("cell",))))
def test_same_games(case):
    assert sweep_digest(*case) == SWEEPS[case]


@pytest.mark.parametrize("case", list(_sweep_cases()))
def test_same_games_through_the_play_kernel(case):
    assert played_sweep_digest(*case) == SWEEPS[case]


@pytest.mark.parametrize("case", list(PLAYED), ids=lambda c: "-".join(map(str, c)))
def test_same_games_with_the_big_board_kernels(case):
    assert play_digest(*case) == PLAYED[case]
