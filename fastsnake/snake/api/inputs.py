"""What a caller of the Snake library names: the game's settings, a policy, a path.

`GameSettings` is the one value for the settings `sweep`, `compare_runs` and `compare` share
(board, start length, tail rule, move cap, seed); their keywords keep working. `policy_name`
names a policy given as an object; `policies` lists the registry.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import sys
import threading
from dataclasses import dataclass

import numpy as np

from fastsnake.errors import InputError
from fastsnake.files import file_in_the_way, not_utf8
from fastsnake.sizes import parse_size
from fastsnake.snake.board import MAX_SIDE, MIN_SIDE, BoardError, GameConfig
from fastsnake.snake.policies import (
    EnginePolicy,
    PolicyError,
    all_policies,
    available,
    register_policy,
    warn_once,
)
from fastsnake.snake.policies.user import Policy
from fastsnake.snake.sweep import SweepError

# The summary keys that measure time (what two runs of one sweep do not share).
_TIMING_KEYS = frozenset({"seconds", "games_per_second", "moves_per_second", "cpu_seconds", "games_per_cpu_second",
                          "moves_per_cpu_second", "compile_seconds", "threads", "games_per_second_ci95",
                          "games_per_cpu_second_ci95", "moves_per_cpu_second_ci95", "timed_chunks",
                          "scaling"})


# -- the game's settings ---------------------------------------------------------------------

def board(size, start_length: int = 3, tail: str = "follow", max_moves: int | None = None) -> GameConfig:
    """The validated rules of a game on `size` (an int, ``(rows, cols)`` or ``"RxC"``)."""
    try:
        rows, cols = parse_size(size, lo=MIN_SIDE, hi=MAX_SIDE)
    except InputError as exc:
        raise BoardError(str(exc)) from None
    for name, value in (("start_length", start_length), ("max_moves", max_moves)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer))):
            raise BoardError(f"{name}={value!r} is not a whole number")
    return GameConfig(rows, cols, int(start_length), tail, None if max_moves is None else int(max_moves))



@dataclass(frozen=True)
class GameSettings:
    """The settings of the games a sweep or a compare plays, as one value.

    ``fastsnake.sweep("cycle", GameSettings(10, tail="blocked", seed=3), 1000)`` is
    ``fastsnake.sweep("cycle", 10, 1000, 3, tail="blocked")``; `compare_runs` and `compare` take it
    the same way (in place of `size`; its `size` may then list several boards). A keyword given
    beside it (``start_length=``, ``tail=``, ``max_moves=``, or the `seed` argument) overrides its
    field.

    Attributes
    ----------
    size : int, (int, int) or str
        The board: ``10``, ``(10, 12)`` or ``"10x12"`` (compare: a list or ``"10,20"`` too).
    seed : int
        Base seed (0 .. 2**64-1); game k uses ``game_seed(seed, k)``.
    start_length : int
        Start length of the snake.
    tail : {"follow", "blocked"}
        Whether the head may enter the cell the tail leaves in the same move.
    max_moves : int, optional
        Move cap; a game reaching it ends "stuck" (default (rows*cols)**2).

    Examples
    --------
    >>> import fastsnake
    >>> rules = fastsnake.GameSettings(6, seed=1, tail="blocked")
    >>> fastsnake.sweep("cycle", rules, 20).summary["tail_rule"]
    'blocked'
    """

    size: object = 10
    seed: int = 0
    start_length: int = 3
    tail: str = "follow"
    max_moves: int | None = None

    def config(self, size=None) -> GameConfig:
        """The validated rules of a game on `size` (default: this value's one board)."""
        return board(self.size if size is None else size, self.start_length, self.tail, self.max_moves)


# The keywords of a `GameSettings` field an entry point takes beside `size` and `seed`.
SETTING_KEYWORDS = ("start_length", "tail", "max_moves")


def game_settings(size, seed, keywords: dict) -> GameSettings:
    """The settings of one call: `size` (a size or a `GameSettings`), `seed` (None: the settings'
    seed, else 0) and the setting keywords, which are taken out of `keywords` (the call's
    ``**options``, so that what is left are the policy's options)."""
    given = {k: keywords.pop(k) for k in SETTING_KEYWORDS if k in keywords}
    base = size if isinstance(size, GameSettings) else GameSettings(size)
    if seed is not None:
        given["seed"] = seed
    return dataclasses.replace(base, **given) if given else base


# -- naming policies given as objects ---------------------------------------------------------

_adhoc_lock = threading.Lock()
_adhoc: dict[int, tuple[object, str]] = {}  # id(object) -> (object, the name it was registered under)


def policy_name(policy) -> str:
    """The registered name of `policy`: a name, or a `Policy`/decide function (registered on first use)."""
    if isinstance(policy, str):
        return policy
    if isinstance(policy, EnginePolicy):
        return policy.name
    with _adhoc_lock:
        known = _adhoc.get(id(policy))
        if known is not None and known[0] is policy:
            if known[1] not in available():  # unregistered since: register it again under its name
                register_policy(known[1], policy)
            return known[1]
        fn = policy.decide if isinstance(policy, Policy) else policy
        if not callable(fn):
            raise PolicyError(f"policy {policy!r} is not a name, a fastsnake.Policy or a decide(state, ws) function")
        if isinstance(policy, Policy) and policy.name is not None:  # its own name, or an error when taken
            register_policy(policy.name, policy)
            _adhoc[id(policy)] = (policy, policy.name)
            return policy.name
        base = getattr(fn, "__name__", "policy").strip("<>") or "policy"
        base = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in base).strip("-_.")[:48] or "policy"
        taken = set(available())
        name = next(n for n in itertools.chain([base], (f"{base}-{k}" for k in itertools.count(2))) if n not in taken)
        register_policy(name, policy)
        _adhoc[id(policy)] = (policy, name)
        return name


def progress_callback(progress, label: str, unit: str = "game"):
    """None, a caller's callback(done, total), or (True) a tqdm bar on stderr."""
    if not progress:
        return None
    if callable(progress):
        return progress
    from tqdm import tqdm

    bar = None

    def update(done, total):
        nonlocal bar
        if bar is None:
            bar = tqdm(total=total, initial=done, desc=label, unit=unit, file=sys.stderr, leave=False,
                       disable=None, dynamic_ncols=True)
        bar.n = done
        bar.refresh()
        if done >= total:
            bar.close()

    return update



def policies(details: bool = False) -> dict:
    """Every policy, built-in, installed (entry-point group ``fastsnake.policies``) or registered.

    Returns ``{name: summary}`` (the summary's first paragraph); with ``details=True``
    ``{name: {"summary", "origin", "kind", "guaranteed", "options"}}`` where origin is
    the providing package and kind is ``engine`` (ours), ``numba`` or ``python``; options
    maps each option the policy declares to ``{"type", "default", "default_by_size", "low",
    "high", "words", "allowed", "help"}`` (``default`` is None when it depends on the board).
    A policy that cannot be loaded is left out with a warning on stderr.

    Parameters
    ----------
    details : bool
        Return a dict of facts per policy instead of its summary line.

    Returns
    -------
    dict

    Examples
    --------
    >>> import fastsnake
    >>> "cycle" in fastsnake.policies()
    True
    >>> fastsnake.policies(details=True)["cycle"]["guaranteed"]
    True
    """
    errors: list[str] = []
    found = all_policies(errors)
    for message in errors:
        warn_once(message)
    if not details:
        return {p.name: p.headline for p in found}
    return {
        p.name: {
            "summary": p.headline,
            "origin": p.origin,
            "kind": p.kind,
            "guaranteed": p.guaranteed,
            "options": {opt.name: opt.describe() for opt in p.options},
        }
        for p in found
    }



def timing_free(summary: dict) -> dict:
    """The summary without the keys that measure time (what two runs of one sweep share)."""
    return {k: v for k, v in summary.items() if k not in _TIMING_KEYS}


# -- paths and tables -------------------------------------------------------------------------

def to_pandas_table(table):
    try:
        import pandas  # noqa: F401
    except ImportError:
        raise InputError("to_pandas() needs pandas: pip install pandas (or 'fastsnake[pandas]')") from None
    return table.to_pandas()


def flat_summary(summary: dict) -> dict:
    """A summary as one table row: dicts and lists of dicts (``pairs``, ``[]`` for the first policy) as JSON."""
    def cell(v):
        nested = isinstance(v, dict) or (isinstance(v, list) and (not v or any(isinstance(x, dict) for x in v)))
        return json.dumps(v, sort_keys=True) if nested else v

    return {k: cell(v) for k, v in summary.items()}


def check_output(path, what="out") -> None:
    folder = os.path.dirname(os.path.abspath(str(path)))
    if not os.path.isdir(folder):
        blocker = file_in_the_way(path)
        if blocker is not None:
            raise SweepError(f"{what}={str(path)!r}: {blocker!r} is a file, not a folder")
        raise SweepError(f"{what}={str(path)!r}: folder {folder!r} does not exist")


def is_folder_target(out) -> bool:
    return out is not None and not str(out).endswith(".parquet")


def check_path(value, name: str) -> None:
    if value is not None and not isinstance(value, (str, os.PathLike)):
        raise SweepError(f"{name}={value!r} is not a path (give a str or pathlib.Path)")
    if value is not None and not_utf8(value):
        raise SweepError(f"{name}={os.fspath(value)!r} is not valid UTF-8, which Parquet files need (pyarrow "
                         f"reads paths as UTF-8): rename it")
